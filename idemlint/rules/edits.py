"""Edits the rules' fixes make to calls and key expressions, in the code's
own layout.  Each answers None where its text cannot go in cleanly: the
rule then offers no fix, and the finding stays."""

from __future__ import annotations

from dataclasses import replace
from typing import List, Optional, Sequence

import libcst as cst

from idemlint.names import children
from idemlint.rules.base import NodeEdit, SuggestedFix, Violation

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
    path = _path_to(expression, source)
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


def _path_to(root: cst.CSTNode, target: cst.CSTNode) -> Optional[List[cst.CSTNode]]:
    """The nodes from ``root`` down to ``target``, both included."""
    if root is target:
        return [root]
    for child in children(root):
        below = _path_to(child, target)
        if below is not None:
            return [root, *below]
    return None


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


def names_in(node: cst.CSTNode) -> Sequence[str]:
    """Every plain name the expression reads."""
    found: List[str] = []
    if isinstance(node, cst.Name):
        found.append(node.value)
    for child in children(node):
        if not (isinstance(node, cst.Attribute) and child is node.attr):
            found.extend(names_in(child))
    return found


_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def in_a_loop(function: cst.FunctionDef, node: cst.CSTNode) -> bool:
    """Whether ``node`` runs in a loop or a comprehension of ``function``
    (a key made there is the same on every pass)."""
    path = _path_to(function.body, node)
    return path is not None and any(isinstance(step, _LOOPS) for step in path[:-1])


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
