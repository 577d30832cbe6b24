"""Lock results: an acquisition whose answer the task does not act on (IDM012).

A non-blocking or time-limited acquisition (``SET NX``, ``cache.add``,
``lock.acquire(blocking=False)``) answers whether the lock was taken.
:func:`ignored_lock_results` finds those whose answer is lost: discarded,
assigned and never read, returned to a caller that drops it, a lock object
built and never acquired, or a lock released at the end of a ``with``
block that only tests it, before the work it should guard.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.semantic.trace import Event, Trace, source_text
from idemlint.effects import Knowledge, is_none, stores_lock_token
from idemlint.names import argument, descendants
from idemlint.statements import alone_on_its_line, does_work, only_tests_and_exits, placed_with

if TYPE_CHECKING:
    from idemlint.facts import TaskFacts

_MAX_HOPS = 4
_DROPPED_OBJECT = "object"


@dataclass(frozen=True)
class IgnoredLockResult:
    """A lock acquisition whose result the task does not act on.

    ``kind`` is ``released`` (a ``with`` block that only tests it ends before
    the work), ``dropped`` (a lock object never acquired), ``lost`` (the
    acquisition itself loses its result; ``how`` says how) or ``lost by
    caller`` (the call ``site`` drops what a helper returned).  ``takes`` says what the
    acquisition does (``takes a Redis SET NX lock``).  ``returnable``: the
    acquisition is a statement of the task's own body that an early
    ``return`` may guard (no loop or ``finally`` around it).
    """

    kind: str
    event: Event
    call: cst.Call
    site: Optional[Event] = None
    how: str = ""
    takes: str = ""
    returnable: bool = False


def ignored_lock_results(facts: "TaskFacts") -> Tuple[IgnoredLockResult, ...]:
    """The lock acquisitions of the task's trace whose answer is not acted on, in order."""
    trace, knowledge = facts.trace, facts.knowledge
    flow = _ResultFlow(trace)
    found: List[IgnoredLockResult] = []
    for event in trace.calls():
        call = event.node
        if not isinstance(call, cst.Call):
            continue
        if _released_before_the_work(event, knowledge):
            found.append(IgnoredLockResult("released", event, call))
            continue
        takes = _acquisition(event, call, knowledge, flow)
        if takes is None:
            continue
        if takes == _DROPPED_OBJECT:
            found.append(IgnoredLockResult("dropped", event, call))
            continue
        lost = flow.discarded(event)
        if lost is None:
            continue
        site, how = lost
        if site is event:
            found.append(IgnoredLockResult("lost", event, call, site, how, takes, _returnable(event, call)))
        elif isinstance(site.node, cst.Call):
            found.append(IgnoredLockResult("lost by caller", event, call, site, how, takes))
    return tuple(found)


def _returnable(event: Event, call: cst.Call) -> bool:
    """Whether ``if not <acquisition>: return`` may replace the bare
    acquisition: a statement of its own, alone on its line, in the task's
    own body (in a helper, ``return`` would only leave the helper), not in a
    loop (``continue`` would be the answer) nor under a ``finally`` (the
    early return would still run it, and release the lock another worker
    holds)."""
    return (
        event.discarded
        and event.scope.is_task
        and alone_on_its_line(event.scope.function, call)
        and not any(step.kind in ("Loop", "Try") for step in event.path)
    )


def _acquisition(
    event: Event, call: cst.Call, knowledge: Knowledge, flow: "_ResultFlow"
) -> Optional[str]:
    """What the acquisition does, for the message; None if it is none."""
    if _in_pipeline(event):
        return None
    api = knowledge.lock_api(event)
    if api is not None:
        if api.pattern in catalog.LOCK_OBJECT_APIS:
            if event.discarded and _is_redis(event, call):
                return _DROPPED_OBJECT
            return None
        if not stores_lock_token(event, knowledge):
            return None  # set-if-absent of data: a cache fill, not a lock
        label = api.label
        return f"takes a {label} lock"
    if _method(call) in ("acquire", "aacquire") and _can_fail(event, call, knowledge, flow):
        return "may give up without the lock (non-blocking or time-limited acquire)"
    return None


class _ResultFlow:
    """Where a call's result goes: read, dropped, or returned to a caller."""

    def __init__(self, trace: Trace) -> None:
        self.calls: Dict[int, Event] = {}
        self.assigned: Dict[int, Event] = {}
        self.returns: List[Event] = []
        for event in trace.events:
            if event.kind == "call":
                self.calls.setdefault(id(event.node), event)
            elif event.kind == "assign" and event.value is not None:
                self.assigned[id(_unawait(event.value))] = event
            elif event.kind == "return":
                self.returns.append(event)
        self._uses: Dict[Tuple[int, str], List[cst.Name]] = {}
        self._targets: Dict[int, frozenset[int]] = {}

    def discarded(self, event: Event, hops: int = 0) -> Optional[Tuple[Event, str]]:
        """The event at which ``event``'s result is lost, and how, if it is."""
        if hops > _MAX_HOPS:
            return None
        if event.discarded:
            return event, "discards the result"
        assign = self.assigned.get(id(event.node))
        if assign is not None:
            names = [t.value for t in assign.targets if isinstance(t, cst.Name)]
            if len(names) != len(assign.targets):
                return None
            if all(name == "_" for name in names):
                return event, "assigns the result to `_`"
            uses = [use for name in names for use in self._reads(event, name)]
            if not uses:
                return event, f"never reads `{names[0]}`, the variable holding the result"
            returned = [r for r in self.returns if r.scope is event.scope]
            if all(any(_contains(r.node, use) for r in returned) for use in uses):
                return self._through_returns(event, returned, uses, hops)
            return None
        returned = [
            r for r in self.returns
            if r.scope is event.scope and _contains(r.node, event.node)
        ]
        if returned:
            return self._through_returns(event, returned, [event.node], hops)
        return None

    def _through_returns(
        self, event: Event, returned: List[Event], values: Sequence[cst.CSTNode], hops: int
    ) -> Optional[Tuple[Event, str]]:
        for ret in returned:
            if ret.call_site is None or not any(_contains(ret.node, v) for v in values):
                continue
            caller = self.calls.get(id(ret.call_site))
            if caller is None or event.scope.is_task:
                continue
            lost = self.discarded(caller, hops + 1)
            if lost is not None:
                return lost
        return None

    def _reads(self, event: Event, name: str) -> List[cst.Name]:
        """Name nodes reading ``name`` in the function holding ``event``."""
        function = event.scope.function
        key = (id(function), name)
        if key not in self._uses:
            targets = self._assign_targets(function)
            self._uses[key] = [
                node for node in descendants(function.body)
                if isinstance(node, cst.Name) and node.value == name and id(node) not in targets
            ]
        return self._uses[key]

    def _assign_targets(self, function: cst.FunctionDef) -> frozenset[int]:
        if id(function) not in self._targets:
            found = set()
            for node in descendants(function.body):
                if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
                    found.add(id(node.target))
                elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
                    found.add(id(node.target))
            self._targets[id(function)] = frozenset(found)
        return self._targets[id(function)]


def _released_before_the_work(event: Event, knowledge: Knowledge) -> bool:
    """``with cache.lock(key) as held: if not held: return`` and the work
    after the block: the lock is let go before anything it should guard."""
    step = event.path[-1] if event.path else None
    if step is None or step.kind != "With" or step.branch != "items":
        return False
    api = knowledge.lock_api(event)
    if api is None or api.pattern not in catalog.LOCK_OBJECT_APIS:
        return False
    placed = placed_with(event.scope.function, step.container)
    if placed is None or not isinstance(placed.node.body, cst.IndentedBlock):
        return False
    return only_tests_and_exits(placed.node.body.body) and does_work(placed.following)


def _can_fail(event: Event, call: cst.Call, knowledge: Knowledge, flow: _ResultFlow) -> bool:
    """A distributed lock's ``acquire`` that may return False."""
    receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
    if receiver is None:
        return False
    resolved = event.scope.resolver.resolve(receiver) or ""
    if resolved.split(".")[0] in catalog.LOCAL_LOCK_MODULES:
        return False
    built: Optional[cst.Call] = None
    if isinstance(receiver, cst.Name):
        value = knowledge.visible_value(receiver.value, event.scope)
        value = _unawait(value) if value is not None else None
        if isinstance(value, cst.Call):
            maker = flow.calls.get(id(value))
            if maker is not None and knowledge.lock_api(maker) is not None:
                built = value
    if built is None and not catalog.matches_any(catalog.DISTRIBUTED_LOCK_OBJECTS, resolved):
        return False
    # redis-py: ``acquire(blocking=None, blocking_timeout=None)`` falls back
    # to the values the lock was built with; python-redis-lock's
    # ``acquire(blocking=True, timeout=None)`` waits at most ``timeout``.
    blocking = _keyword(call, "blocking", position=0)
    if blocking is None and built is not None:
        blocking = _keyword(built, "blocking")
    if blocking is not None and _is_false(blocking):
        return True
    waits = _keyword(call, "blocking_timeout", position=1)
    if waits is None and built is not None:
        waits = _keyword(built, "blocking_timeout")
    limit = _keyword(call, "timeout")
    return waits is not None or (limit is not None and not _is_minus_one(limit))


def _keyword(
    call: cst.Call, name: str, position: Optional[int] = None
) -> Optional[cst.BaseExpression]:
    """The argument ``name`` (or at ``position``), None when absent or None."""
    value = argument(call, position, name) if position is not None else None
    if position is None:
        value = next(
            (a.value for a in call.args if a.keyword is not None and a.keyword.value == name),
            None,
        )
    return None if value is None or is_none(value) else value


def _is_redis(event: Event, call: cst.Call) -> bool:
    if isinstance(call.func, cst.Attribute):
        receiver = call.func.value
        spelled = f"{event.scope.resolver.resolve(receiver) or ''} {source_text(receiver)}"
        return "redis" in spelled.lower()
    return catalog.matches_any(("redis_lock.Lock", "redis.*Lock"), event.callee)


def _in_pipeline(event: Event) -> bool:
    """Commands queued on a pipeline return the pipeline; ``execute()`` answers."""
    return "pipeline()" in (event.callee or "")


def _contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    return any(n is node for n in descendants(tree))


def _unawait(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.expression if isinstance(node, cst.Await) else node


def _method(call: cst.Call) -> Optional[str]:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def _is_false(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Name):
        return node.value == "False"
    return isinstance(node, cst.Integer) and node.value == "0"


def _is_minus_one(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
        and node.expression.value == "1"
    )
