"""IDM012 lock-result-ignored."""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.analysis import Event, Trace, call_label, source_text
from idemlint.effects import Knowledge, is_none, stores_lock_token
from idemlint.names import argument, descendants
from idemlint.fixes import UNSAFE
from idemlint.rules.base import NodeEdit, SuggestedFix, TaskRule, Violation, where
from idemlint.statements import alone_on_its_line, does_work, only_tests_and_exits, placed_with

_MAX_HOPS = 4
_DROPPED_OBJECT = "object"
_CONSEQUENCE = (
    "when another worker holds the lock the acquisition returns a false value, "
    "and the task runs the work anyway, concurrently with that worker"
)


class LockResultIgnored(TaskRule):
    code = "IDM012"
    name = "lock-result-ignored"
    summary = "A lock acquisition's result is discarded"
    what = (
        "Finds lock acquisitions in a task whose result nobody reads: a bare "
        "`r.set(k, token, nx=True, ex=ttl)`, `r.setnx(...)`, `cache.add(...)`, "
        "`cache.set(..., nx=True)`, a non-blocking or time-limited "
        "`lock.acquire(blocking=False)` / `acquire(False)` / "
        "`acquire(blocking_timeout=...)` (also when the lock was built with "
        "`blocking=False` or `blocking_timeout=`), their `await` forms, results "
        "assigned to `_` or to a variable never read, a helper's returned lock "
        "result thrown away by the task that calls it, a `redis.lock(...)` "
        "object created as a statement and never acquired, and a lock held by "
        "`with` whose block only tests whether it was taken (`if not held: "
        "return`), with the work after the block, once the lock is let go. A "
        "result tested in "
        "`if`/`while`, `with r.lock(...)`, a blocking `acquire()` without a "
        "timeout (it returns only once the lock is held) and `threading`/"
        "`asyncio` locks are not reported."
    )
    why = (
        "`SET NX` and `cache.add` do not fail when the key exists: they return "
        "`False`/`None` and the task goes on. Two deliveries of the same task "
        "(a redelivery after a visibility timeout, a retry racing the original) "
        "both pass the \"lock\" and both run the work: the lock exists in Redis "
        "but excludes no one."
    )
    fix = (
        "Test the result and stop (or retry later) when the lock is held "
        "elsewhere: `if not r.set(key, token, nx=True, ex=ttl): return`. For a "
        "lock object, use `with r.lock(key, timeout=ttl):` or a blocking "
        "`acquire()`, or test what a non-blocking `acquire()` returns."
    )
    example = '''\
@shared_task
def export_invoices(account_id):
    redis_client.set(f"lock:export:{account_id}", token(), nx=True, ex=600)
    build_export(account_id)
'''
    use_instead = '''\
@shared_task
def export_invoices(account_id):
    if not redis_client.set(f"lock:export:{account_id}", token(), nx=True, ex=600):
        return "already running"
    build_export(account_id)
'''
    limits = (
        "A result stored in a variable counts as read as soon as the variable "
        "is read anywhere (a log line included). Lock objects stored on "
        "attributes (`self.lock`) or received as parameters without a type "
        "annotation are not followed, so their `acquire(blocking=False)` is not "
        "reported. A set-if-absent that stores data (`cache.add(key, html, "
        "3600)`: the value is neither a literal nor a token, and the key does "
        "not say lock or claim) is taken for a cache fill, not a lock; "
        "`add(...)` counts only on a cache."
    )

    fix_availability = (
        "Sometimes, unsafe (`--fix --unsafe-fixes`): a bare acquisition in the "
        "task's own body, alone on its line, becomes `if not <acquisition>: "
        "return`, so a run that finds the lock taken does nothing. Unsafe because "
        "that run's work is then skipped, not waited for: make sure the holder "
        "does it. Not offered in a helper (`return` would only leave the helper), "
        "for a statement that shares its line, in a loop (where `continue` would "
        "be the answer) or a `try` (a `finally` would still release the lock), "
        "or for the other shapes this rule reports. The task then returns `None` "
        "on that run, not its result."
    )

    def check(self, trace: Trace, knowledge: Knowledge) -> Iterator[Violation]:
        flow = _ResultFlow(trace)
        for event in trace.calls():
            call = event.node
            if not isinstance(call, cst.Call):
                continue
            if _released_before_the_work(event, knowledge):
                yield Violation(
                    call,
                    f"`{call_label(call)}` in {where(event, trace.task.name)} is released "
                    "at the end of its `with` block, which only tests whether it was "
                    "taken; the work after the block runs unlocked, and a redelivered "
                    "copy runs it concurrently",
                    event=event,
                )
                continue
            found = self._acquisition(event, call, knowledge, flow)
            if found is None:
                continue
            if found == _DROPPED_OBJECT:
                yield Violation(
                    call,
                    f"`{call_label(call)}` in {where(event, trace.task.name)} creates a "
                    "lock object and drops it without acquiring it; the task runs "
                    "unlocked and a redelivered copy runs the same work concurrently",
                    event=event,
                )
                continue
            lost = flow.discarded(event)
            if lost is None:
                continue
            site, how = lost
            if site is event:
                yield Violation(
                    call,
                    f"`{call_label(call)}` in {where(event, trace.task.name)} {found} "
                    f"but {how}; {_CONSEQUENCE}",
                    event=event,
                    fix=_return_unless_taken(event, call),
                )
            elif isinstance(site.node, cst.Call):
                yield Violation(
                    site.node,
                    f"`{call_label(site.node)}` in {where(site, trace.task.name)} "
                    f"{how}, which is what `{call_label(call)}` in "
                    f"`{event.scope.qualified_name}` returned: whether it took the "
                    f"lock; {_CONSEQUENCE}",
                    event=site,
                )

    def _acquisition(
        self, event: Event, call: cst.Call, knowledge: Knowledge, flow: "_ResultFlow"
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


def _return_unless_taken(event: Event, call: cst.Call) -> Optional[SuggestedFix]:
    """``if not <acquisition>: return`` in place of the bare acquisition,
    where returning ends the task: a statement of its own, alone on its
    line, in the task's own body (in a helper, ``return`` would only leave
    the helper).  Unsafe: a run that finds the lock taken now does nothing."""
    if not event.discarded or not event.scope.is_task or not alone_on_its_line(event.scope.function, call):
        return None
    # In a loop ``continue`` would be the answer; under a ``finally`` the
    # early return would still run it, and release the lock another worker holds.
    if any(step.kind in ("Loop", "Try") for step in event.path):
        return None
    edits = (
        NodeEdit(call, "if not ", "before"),
        NodeEdit(call, ":", "after"),
        NodeEdit(call, "return", "next_line_nested"),
    )
    return SuggestedFix(f"Return when `{call_label(call)}` does not take the lock", UNSAFE, edits)

