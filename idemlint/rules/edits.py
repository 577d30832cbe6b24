"""Edits the rules' fixes make to calls, key expressions, lock expiries and
settings, in the code's own layout (:class:`Layout`).  Each answers None where its text cannot go in cleanly: the
rule then offers no fix, and the finding stays."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import List, Optional, Sequence, Set, cast

import libcst as cst

from idemlint import catalog
from idemlint.semantic.trace import Event
from idemlint.effects import is_none
from idemlint.fixes import UNSAFE
from idemlint.limits import Limit
from idemlint.names import argument, descendants, path_to
from idemlint.rules.base import NodeEdit, SuggestedFix, Violation
from idemlint.statements import truth_tested

# Calls that only spell a random value as text (``str(uuid4())``) or its
# attributes and methods that do (``uuid4().hex``, ``os.urandom(8).hex()``):
# the random part of a key is the value with these around it.
_SPELLING_CALLS = frozenset({"str", "repr", "format"})
_SPELLING_ATTRIBUTES = frozenset({"hex", "int", "urn"})


def ends_its_line(arg: cst.CSTNode) -> bool:
    """An argument followed, on its line, by a comma and a line break."""
    if not isinstance(arg, cst.Arg) or not isinstance(arg.comma, cst.Comma):
        return False
    comma = arg.comma
    return isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace) and not isinstance(
        comma.whitespace_before, cst.ParenthesizedWhitespace
    )


def keyword_appended(call: cst.Call, code: str) -> Optional[NodeEdit]:
    """``code`` (``name=value``) as the call's last argument: on a line of
    its own when the last argument has one and ends it with a comma, else
    after the last argument.  None for a call with no arguments, one that
    splats (the keyword may be in there), or a last value in brackets (the
    text would go inside them)."""
    if not call.args or any(arg.star for arg in call.args):
        return None
    last = call.args[-1]
    if getattr(last.value, "lpar", None) or isinstance(last.value, cst.GeneratorExp):
        return None  # text after it would go inside its brackets, or after a bare generator
    if _starts_its_line(call, len(call.args) - 1) and ends_its_line(last):
        return NodeEdit(last, f"{code},", "next_line")
    return NodeEdit(last.value, f", {code}", "after")


def entry_added(mapping: cst.Dict, key: str, value: str) -> Optional[NodeEdit]:
    """``"key": value`` as the dict literal's last entry (the whole literal
    when it is empty)."""
    if not mapping.elements:
        return NodeEdit(mapping, f'{{"{key}": {value}}}')
    last = mapping.elements[-1]
    if getattr(last.value, "lpar", None):
        return None
    return NodeEdit(last.value, f', "{key}": {value}', "after")


def random_part_replaced(
    expression: cst.BaseExpression, source: cst.Call, whole: str, placeholders: str
) -> Optional[NodeEdit]:
    """The random value ``source`` in a key ``expression`` replaced: the
    whole expression by ``whole`` (code) when it is only that value spelled
    as text, else the value's place in an f-string, in a ``+`` with a string
    or among a ``.format()``'s arguments by ``placeholders`` (``{order_id}``).
    None when the value is used any other way (hashed, sliced, summed)."""
    path = path_to(expression, source)
    if path is None:
        return None
    index = len(path) - 1
    while True:
        spelled = _spelling(path, index)
        if spelled is None:
            break
        index = spelled
    random = path[index]
    if index == 0:
        return NodeEdit(random, whole)
    parent = path[index - 1]
    if isinstance(parent, cst.FormattedStringExpression):
        return NodeEdit(parent, placeholders)
    if any(isinstance(node, cst.FormattedString) for node in path[:index]):
        return None  # an f-string inside an f-string's quotes needs Python 3.12
    text = f'f"{placeholders}"'
    if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Add):
        other = parent.right if parent.left is random else parent.left
        return NodeEdit(random, text) if _is_text(other) else None
    if _positional(parent) and index >= 2 and _is_format_call(path[index - 2]):
        return NodeEdit(random, text)
    return None


def _is_text(node: cst.CSTNode) -> bool:
    """A str literal (an f-string, or a string literal not of bytes)."""
    if isinstance(node, cst.FormattedString):
        return True
    if isinstance(node, cst.SimpleString):
        return "b" not in node.prefix.lower()
    if isinstance(node, cst.ConcatenatedString):
        return _is_text(node.left) and _is_text(node.right)
    return False


def _starts_its_line(call: cst.Call, position: int) -> bool:
    """Whether the call's argument at ``position`` starts a line."""
    if position == 0:
        return isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace)
    comma = call.args[position - 1].comma
    return isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace)


def _spelling(path: Sequence[cst.CSTNode], index: int) -> Optional[int]:
    """The index in ``path`` of the expression that only spells the one at
    ``index`` as text (``str(x)``, ``x.hex``, ``x.hex()``), if any."""
    if index == 0:
        return None
    node, parent = path[index], path[index - 1]
    if isinstance(parent, cst.Attribute):
        return index - 1 if parent.value is node and parent.attr.value in _SPELLING_ATTRIBUTES else None
    if isinstance(parent, cst.Call):
        return index - 1 if parent.func is node and not parent.args and isinstance(node, cst.Attribute) else None
    if _positional(parent) and index >= 2:
        call = path[index - 2]
        if (
            isinstance(call, cst.Call)
            and len(call.args) == 1
            and isinstance(call.func, cst.Name)
            and call.func.value in _SPELLING_CALLS
        ):
            return index - 2
    return None


def _positional(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Arg) and not node.star and node.keyword is None


def _is_format_call(node: cst.CSTNode) -> bool:
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "format"
        and isinstance(node.func.value, (cst.SimpleString, cst.ConcatenatedString))
    )


def without_shared_keys(violations: List[Violation]) -> List[Violation]:
    """The violations of one task, with no fix where two fixes would write
    the same text: two calls sharing a key is what a provider rejects, or
    takes for one."""
    written = [_written(violation.fix) for violation in violations]
    shared = {text for text in written if text is not None and written.count(text) > 1}
    return [
        replace(violation, fix=None) if text in shared else violation
        for violation, text in zip(violations, written)
    ]


def _written(fix: Optional[SuggestedFix]) -> Optional[str]:
    return None if fix is None else "\0".join(edit.text for edit in fix.edits)


class Layout:
    """How the module lays its code out, worked out the first time a fix
    asks (most modules never do): the small statements alone on their line,
    and the arguments that start a line of their own."""

    def __init__(self, module: cst.Module) -> None:
        self._module = module
        self._alone: Set[int] = set()
        self._starting: Set[int] = set()
        self._read = False

    def alone(self, statement: cst.CSTNode) -> bool:
        self._read_layout()
        return id(statement) in self._alone

    def starts_line(self, arg: cst.CSTNode) -> bool:
        self._read_layout()
        return id(arg) in self._starting

    def _read_layout(self) -> None:
        if self._read:
            return
        self._read = True
        # A plain walk: a libcst visitor rebuilds every node of the module.
        for node in descendants(self._module):
            kind = type(node)
            if kind is cst.SimpleStatementLine:
                body = cast(cst.SimpleStatementLine, node).body
                if len(body) == 1:
                    self._alone.add(id(body[0]))
            elif kind is cst.Call:
                call = cast(cst.Call, node)
                broken = isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace)
                for arg in call.args:
                    if broken:
                        self._starting.add(id(arg))
                    comma = arg.comma
                    broken = isinstance(comma, cst.Comma) and isinstance(
                        comma.whitespace_after, cst.ParenthesizedWhitespace
                    )


def in_brackets(node: cst.CSTNode) -> bool:
    """``(True)``: text put after the node would go inside its brackets."""
    return bool(getattr(node, "lpar", None))


def line_repeated(statement: cst.CSTNode, name: str, replacement: str, layout: Layout) -> Optional[NodeEdit]:
    """The assignment ``statement`` again on the next line, with ``name``
    (written once in it) replaced: ``x.task_acks_late = True`` gives
    ``x.task_reject_on_worker_lost = True``.  None unless the statement
    assigns one target and has its line to itself."""
    code = cst.Module([]).code_for_node(statement)
    single = isinstance(statement, cst.Assign) and len(statement.targets) == 1
    if not (single or isinstance(statement, cst.AnnAssign)) or not layout.alone(statement) or code.count(name) != 1:
        return None
    return NodeEdit(statement, code.replace(name, replacement), "next_line")


def lock_expiry_fix(event: Event, call: cst.Call, api: catalog.LockApi, limit: Limit) -> Optional[SuggestedFix]:
    """The lock taken with an expiry of the task's time limit, where the
    call can say it (no splat; a place for the expiry the API has; in the
    task's own body, since a helper may serve tasks with other limits)."""
    if not event.scope.is_task or any(arg.star for arg in call.args) or not call.args:
        return None
    if any(arg.keyword is not None and arg.keyword.value == "keepttl" for arg in call.args):
        return None  # Redis refuses an expiry beside KEEPTTL
    last = call.args[-1].value
    if getattr(last, "lpar", None):  # ``nx=(True)``: text after it would go inside the brackets
        return None
    if api.never_expires:  # ``setnx(k, v)``: SET NX with the expiry
        if not isinstance(call.func, cst.Attribute) or len(call.args) != 2 or call.args[1].keyword is not None:
            return None
        # SET NX answers None, not False, when the key exists: only a truth test reads both alike.
        if not (event.discarded or truth_tested(event.scope.function, call)):
            return None
        edits = (
            NodeEdit(call.func.attr, "set"),
            NodeEdit(last, f", nx=True, ex={amount_in(limit, 'ex')}", "after"),
        )
        return SuggestedFix(f"Take the lock with `SET NX EX {amount_in(limit, 'ex')}`", UNSAFE, edits)
    if not api.ttl_keywords:
        return None
    keyword = api.ttl_keywords[0]
    given = next(
        (arg for arg in call.args if arg.keyword is not None and arg.keyword.value in api.ttl_keywords), None
    )
    explicit = given.value if given is not None else None
    if given is not None and given.keyword is not None:
        keyword = given.keyword.value  # ``px=None`` takes milliseconds
    if keyword in catalog.ABSOLUTE_LOCK_TTL_KEYWORDS:
        return None  # a point in time, not a duration
    amount = amount_in(limit, keyword)
    if explicit is None and api.ttl_position is not None:
        positional = argument(call, api.ttl_position, None)
        explicit = positional if positional is not None and is_none(positional) else None
    if explicit is not None:
        edit = NodeEdit(explicit, str(amount))
    else:
        edit = NodeEdit(last, f", {keyword}={amount}", "after")
    return SuggestedFix(f"Give the lock an expiry of {limit.describe()}", UNSAFE, (edit,))


def amount_in(limit: Limit, keyword: str) -> int:
    """The limit in the unit of the API's expiry keyword, rounded up."""
    unit = catalog.LOCK_TTL_SECONDS_PER_UNIT.get(keyword, 1.0)
    return math.ceil(limit.seconds / unit)


def key_keyword_given(call: cst.Call, effect: catalog.KeyableEffect, key: str) -> Optional[NodeEdit]:
    """The key as the SDK's keyword, or in place of the ``None`` passed for
    it (by that keyword or at its position)."""
    given = argument(call, effect.key_position, effect.key_keyword)
    if given is not None:
        return NodeEdit(given, key)  # the call is reported, so it is None
    return keyword_appended(call, f"{effect.key_keyword}={key}")


def idempotency_header_added(call: cst.Call, effect: catalog.KeyableEffect, key: str) -> Optional[NodeEdit]:
    """The header added to a ``headers=`` dict literal, or as ``headers=``
    when the call passes none.  Not where headers may be passed positionally
    (past the URL and a body)."""
    assert effect.url_position is not None
    if sum(1 for arg in call.args if arg.keyword is None) > effect.url_position + 2:
        return None
    headers = argument(call, None, "headers")
    if headers is None:
        return keyword_appended(call, f'headers={{"{catalog.IDEMPOTENCY_HEADER}": {key}}}')
    return entry_added(headers, catalog.IDEMPOTENCY_HEADER, key) if isinstance(headers, cst.Dict) else None
