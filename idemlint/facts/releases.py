"""Lock releases: the deletes of a lock key that check no ownership (IDM005).

A lock taken with a TTL may expire while its holder still works; another
worker then takes it, and the first worker's plain ``delete(key)`` at the
end deletes the *other* worker's lock.  :func:`unsafe_releases` finds the
deletes of a key the task locked earlier (or whose name says lock) that
are not one atomic compare-and-delete, skipping those that cannot hit
another holder's lock: under a clock check, in a ``WATCH`` transaction, of
a key a heartbeat thread keeps alive, or the rollback of a claim on a
failure path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Iterator, List, Mapping, Optional, Set, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.semantic.trace import Event, FunctionScope, Trace, happens_before, source_text
from idemlint.effects import Knowledge, stores_lock_token
from idemlint.lock_scope import keys_kept_alive, lock_variable, on_a_failure_path, releases
from idemlint.names import argument, children, dotted_name, literal_text

if TYPE_CHECKING:
    from idemlint.facts import TaskFacts

# Keywords a key-value delete accepts (Django's cache ``version``); any other
# keyword (``timeout=``, ``headers=``) means an HTTP or ORM call.
_DELETE_KEYWORDS = frozenset({"version"})
# A delete under ``if time.monotonic() < deadline:`` runs only while the lock
# cannot have expired (Celery's "one task at a time" cookbook recipe).
_CLOCKS: Tuple[str, ...] = (
    "time.{monotonic,monotonic_ns,time,time_ns,perf_counter,perf_counter_ns}",
)
_LOOKUPS = frozenset({"get", "aget", "hget"})
_ALNUM = re.compile(r"[A-Za-z0-9]")

Origin = Tuple[str, str]


@dataclass(frozen=True)
class UnsafeRelease:
    """A lock released with no ownership check: a forced reset (``key`` is
    None), or a delete of ``key``, a lock key because ``how`` says so
    (``locked earlier in this task``), possibly after a separate ``get()``
    comparison (``compared_first``); ``compare_and_delete`` is the code of
    the same release as one atomic compare-and-delete of the task's own
    token, where the task stored one."""

    event: Event
    call: cst.Call
    key: Optional[cst.BaseExpression] = None
    how: str = ""
    compared_first: bool = False
    compare_and_delete: Optional[str] = None


def unsafe_releases(facts: "TaskFacts") -> Tuple[UnsafeRelease, ...]:
    """The deletes of a lock key with no atomic ownership check, and the
    forced resets of a lock, in the task's trace."""
    trace, knowledge = facts.trace, facts.knowledge
    found: List[UnsafeRelease] = []
    keys = facts.key_origins
    locked: Set[Origin] = set()
    first_lock = len(trace.events)
    tokens: List[_Token] = []
    for event in trace.calls():
        api = knowledge.lock_api(event)
        if api is None or not isinstance(event.node, cst.Call):
            continue
        if not stores_lock_token(event, knowledge):
            continue
        key = argument(event.node, api.key_position, api.key_keyword)
        if key is not None:
            locked |= keys.origins(key, event.scope)
            first_lock = min(first_lock, event.seq)
            value = argument(event.node, api.key_position + 1, "value")
            if api.token_value and value is not None:
                tokens.append(_Token(event, key, value))
    # A lock a heartbeat thread keeps alive cannot expire under its
    # live owner, so deleting it at the end deletes the task's own lock.
    kept_alive: Set[Origin] = set()
    for key, handing in keys_kept_alive(trace, knowledge):
        kept_alive |= keys.origins(key, handing.scope)
    # Keys the task deletes when nothing failed: a key deleted only on a
    # failure path is a claim rolled back after its step failed
    # (``r.set(k, 1, nx=True)``, then ``try: publish() except:
    # r.delete(k); raise``, or ``if not delivered: r.delete(k)``), held
    # until its TTL otherwise.
    checks = facts.checks_by_node
    failed = {
        e.seq for e in trace.calls()
        if isinstance(e.node, cst.Call) and _is_key_delete(e, knowledge) and on_a_failure_path(e, trace, checks, first_lock)
    }
    released: Set[Origin] = set()
    for event in trace.calls():
        if isinstance(event.node, cst.Call) and event.seq not in failed and _is_key_delete(event, knowledge):
            for key in _deleted_keys(event.node):
                released |= keys.origins(key, event.scope)
    watched = [e for e in trace.calls() if _method(e.node) in ("watch", "awatch")]
    for event in trace.calls():
        call = event.node
        if not isinstance(call, cst.Call):
            continue
        if catalog.matches_any(catalog.FORCED_LOCK_RESETS, event.callee):
            found.append(UnsafeRelease(event, call))
            continue
        if not _is_key_delete(event, knowledge):
            continue
        if _guarded_by_clock(event, checks) or _watched(event, watched):
            continue
        for key in _deleted_keys(call):
            origins = keys.origins(key, event.scope)
            if _looks_like_url(origins) or origins & kept_alive & locked:
                continue
            if event.seq in failed and not origins & locked & released:
                continue  # the rollback of a claim, never released on success
            if origins & locked:
                how = "locked earlier in this task"
            elif _says_lock(origins):
                how = "its name or text says lock"
            else:
                continue
            found.append(UnsafeRelease(
                event, call, key, how, _compared_first(event, checks),
                _compare_and_delete(event, call, key, tokens, keys),
            ))
            break
    return tuple(found)


def released_after(facts: "TaskFacts", claim: Event, effect: Event) -> bool:
    """Whether lock ``claim`` is let go after ``effect`` when nothing failed:
    the end of its ``with`` block, a ``release()`` of the name holding it,
    or a delete of its key.  Such a lock keeps a second run out only while
    the first holds it; a redelivery after the release runs the effect again."""
    trace, knowledge = facts.trace, facts.knowledge
    call = claim.node
    step = claim.path[-1] if claim.path else None
    if step is not None and step.kind == "With" and step.branch == "items":
        return True
    if not isinstance(call, cst.Call):
        return False
    later = [
        event for event in trace.calls()
        if event.seq > effect.seq
        and happens_before(effect, event)
        and not on_a_failure_path(event, trace, facts.checks_by_node, claim.seq)
    ]
    # The name holding the lock: what it was assigned to (``lock =
    # r.lock(...)``), or what ``acquire()`` is called on (``lock.acquire()``).
    holder = _receiver(call) if _method(call) in catalog.HELD_LOCK_METHODS else lock_variable(claim, trace)
    if holder is not None and any(other.scope is claim.scope and releases(other.node, holder) for other in later):
        return True
    api = knowledge.lock_api(claim)
    key = argument(call, api.key_position, api.key_keyword) if api is not None else None
    if key is None:
        return False
    keys = facts.key_origins
    locked = keys.origins(key, claim.scope)
    return any(
        isinstance(event.node, cst.Call) and _is_key_delete(event, knowledge)
        and any(keys.origins(deleted, event.scope) & locked for deleted in _deleted_keys(event.node))
        for event in later
    )


@dataclass(frozen=True)
class _Token:
    """A SET NX that stores a value under a key: the holder's token, if it is one."""

    event: Event
    key: cst.BaseExpression
    value: cst.BaseExpression


def _compare_and_delete(
    event: Event, call: cst.Call, key: cst.BaseExpression, tokens: List[_Token], keys: "KeyOrigins"
) -> Optional[str]:
    """The code of the delete made one Lua compare-and-delete of the token that the
    task's own SET NX stored under the same key through the same redis-py
    client, earlier in the task's body.  The token must be a variable of the
    task: a literal (``"1"``) is every holder's, and checking it proves nothing."""
    func = call.func
    if not event.scope.is_task or not isinstance(func, cst.Attribute) or len(call.args) != 1:
        return None
    if call.args[0].keyword is not None or call.args[0].star:
        return None
    if not catalog.matches_any(catalog.EVAL_CLIENT_DELETES, event.callee):
        return None
    client, key_text = source_text(func.value), source_text(key)
    for token in tokens:
        taken = token.event.node
        if token.event.scope is not event.scope or token.event.seq > event.seq or not isinstance(taken, cst.Call):
            continue
        if not isinstance(taken.func, cst.Attribute) or source_text(taken.func.value) != client:
            continue
        if source_text(token.key) != key_text or not keys.is_holder_token(token.value, event.scope):
            continue
        if not keys.assigned_once(key, event.scope):
            continue
        assert isinstance(token.value, cst.Name)
        script = repr(catalog.COMPARE_AND_DELETE_SCRIPT)
        return f"{client}.eval({script}, 1, {key_text}, {token.value.value})"
    return None


class KeyOrigins:
    """Where a key expression comes from: variables, texts, constants.

    Two keys are the same lock key when they share an origin: the same
    variable (followed through assignments and helper parameters), the same
    module constant, the same literal or f-string text (``f"lock:{x}"`` is
    ``lock:{}``), or the same attribute spelling.
    """

    def __init__(self, trace: Trace, knowledge: Knowledge) -> None:
        self.constants = knowledge.constants
        self.values: Dict[Tuple[int, str], List[Tuple[cst.BaseExpression, FunctionScope]]] = {}
        for event in trace.events:
            if event.kind not in ("assign", "bind") or event.value is None:
                continue
            scope = event.value_scope if event.kind == "bind" else event.scope
            for target in event.targets:
                if isinstance(target, cst.Name):
                    self.values.setdefault((id(event.scope), target.value), []).append(
                        (event.value, scope or event.scope)
                    )

    def is_holder_token(self, node: cst.BaseExpression, scope: FunctionScope) -> bool:
        """A local variable assigned once, from a value the holder made its
        own: a random one (``uuid4().hex``) or the task's request id.  A
        literal, a parameter or a value made from the arguments is what
        another worker on the same work would store too."""
        if not isinstance(node, cst.Name):
            return False
        values = self.values.get((id(scope), node.value), [])
        if len(values) != 1:
            return False
        value, value_scope = values[0]
        return any(
            (isinstance(part, cst.Call) and catalog.matches_any(catalog.RANDOM_SOURCES, value_scope.resolver.resolve(part.func)))
            or (isinstance(part, cst.Attribute) and source_text(part).endswith("request.id"))
            for part in _nodes(value)
        )

    def assigned_once(self, node: cst.BaseExpression, scope: FunctionScope) -> bool:
        """Whether a variable key is assigned once (not moved to another key before its release)."""
        return not isinstance(node, cst.Name) or len(self.values.get((id(scope), node.value), [])) <= 1

    def origins(
        self, node: cst.BaseExpression, scope: FunctionScope, depth: int = 0
    ) -> Set[Origin]:
        found: Set[Origin] = set()
        if depth > 8:
            return found
        node = _unwrap(node)
        if isinstance(node, cst.Name):
            found.add(("var", f"{id(scope)}:{node.value}"))
            values = self.values.get((id(scope), node.value))
            if values:
                for value, value_scope in values:
                    if value is not node:
                        found |= self.origins(value, value_scope, depth + 1)
            elif node.value not in scope.parameters and node.value in self.constants:
                found.add(("const", node.value))
                found |= self.origins(self.constants[node.value], scope, depth + 1)
        elif isinstance(node, (cst.Attribute, cst.Subscript)):
            found.add(("expr", source_text(node)))
        elif isinstance(node, cst.Call) and dotted_name(node.func):
            # ``_job_lock_id(query_hash)``: the helper that builds the key, with its
            # arguments (``make_key("guard", pk)`` is not ``make_key("result", pk)``).
            found.add(("call", source_text(node)))
        text = _text(node)
        if text is not None and _ALNUM.search(text.replace("{}", "")):
            found.add(("text", text))
        return found


def _unwrap(node: cst.BaseExpression) -> cst.BaseExpression:
    """``str(key)``, ``key.encode()``, ``await key`` are the key itself."""
    for _ in range(4):
        if isinstance(node, cst.Await):
            node = node.expression
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value in ("str", "bytes")
            and len(node.args) >= 1
        ):
            node = node.args[0].value
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "encode"
        ):
            node = node.func.value
        else:
            break
    return node


def _text(node: cst.BaseExpression) -> Optional[str]:
    """A key's literal text with ``{}`` for computed parts, when it has any."""
    if isinstance(node, cst.SimpleString):
        return literal_text(node)
    if isinstance(node, cst.FormattedString):
        return "".join(
            part.value if isinstance(part, cst.FormattedStringText) else "{}"
            for part in node.parts
        )
    if isinstance(node, cst.ConcatenatedString):
        left, right = _text(node.left), _text(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Add):
            left, right = _text(node.left), _text(node.right)
            if left is None and right is None:
                return None
            return (left if left is not None else "{}") + (right if right is not None else "{}")
        if isinstance(node.operator, cst.Modulo):
            return _text(node.left)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value == "format":
            return _text(node.func.value)
    return None


def _says_lock(origins: Set[Origin]) -> bool:
    for kind, value in origins:
        named = value.split("(", 1)[0] if kind == "call" else value  # the helper's name, not its arguments
        if not catalog.words(named).isdisjoint(catalog.LOCK_NAME_WORDS):
            return True
    return False


def _looks_like_url(origins: Set[Origin]) -> bool:
    return any(
        kind == "text" and ("://" in value or value.startswith(("/", "{}/")))
        for kind, value in origins
    )


def _is_key_delete(event: Event, knowledge: Knowledge) -> bool:
    call = event.node
    if not isinstance(call, cst.Call) or _method(call) not in catalog.KEY_DELETE_METHODS:
        return False
    callee = event.callee or ""
    if callee.split(".")[0] in catalog.NOT_KEY_STORE_MODULES:
        return False
    if knowledge.keyable_effect(event) is not None or knowledge.is_http_call(event):
        return False  # an HTTP DELETE (keyable or not) deletes no key
    return all(
        arg.keyword is None or arg.keyword.value in _DELETE_KEYWORDS for arg in call.args
    )


def _deleted_keys(call: cst.Call) -> Iterator[cst.BaseExpression]:
    many = _method(call) in ("delete_many", "adelete_many")
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            continue
        if many and isinstance(arg.value, (cst.List, cst.Tuple, cst.Set)):
            for element in arg.value.elements:
                if not isinstance(element, cst.StarredElement):
                    yield element.value
        elif not many:
            yield arg.value


def _enclosing_checks(event: Event, checks: Mapping[int, Event]) -> Iterator[Event]:
    """The ``if`` statements whose body holds ``event``."""
    for step in event.path:
        if step.kind == "If" and step.branch == "body" and step.container in checks:
            yield checks[step.container]


def _guarded_by_clock(event: Event, checks: Mapping[int, Event]) -> bool:
    for check in _enclosing_checks(event, checks):
        for node in _nodes(check.value):
            if isinstance(node, cst.Call) and catalog.matches_any(
                _CLOCKS, check.scope.resolver.resolve(node.func)
            ):
                return True
    return False


def _compared_first(event: Event, checks: Mapping[int, Event]) -> bool:
    for check in _enclosing_checks(event, checks):
        for node in _nodes(check.value):
            if isinstance(node, cst.Call) and _method(node) in _LOOKUPS:
                return True
    return False


def _watched(event: Event, watched: List[Event]) -> bool:
    """``pipe.watch(key)`` ... ``pipe.multi(); pipe.delete(key)``: optimistic CAS."""
    receiver = _receiver(event.node)
    return receiver is not None and any(
        w.seq < event.seq and w.scope is event.scope and _receiver(w.node) == receiver
        for w in watched
    )


def _receiver(node: cst.CSTNode) -> Optional[str]:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return source_text(node.func.value)
    return None


def _method(node: cst.CSTNode) -> Optional[str]:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value
    return None


def _nodes(node: Optional[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    if node is None or isinstance(node, cst.Lambda):
        return
    yield node
    for child in children(node):
        yield from _nodes(child)


