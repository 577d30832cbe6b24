"""How long a lock is held, as far as the trace shows.

For IDM006, the expiry a lock is taken with (:func:`ttl_argument`), unless
it is renewed while held (:func:`renewed`: auto-renewal, ``extend``, an
``expire`` of its key); and the task's run-time limit says nothing about how long a lock
must live when a helper takes it and lets it go there (``release()`` in
the same function, or the end of its ``with`` block: that helper's
critical section), when it is taken in a loop (a key per item), when the
lock object is handed to other code (a progress callback may renew it out
of the trace's sight), when a set-if-absent lock's token goes to a task the
code enqueues (it is held for that task), or when every side effect and
enqueue after it is claimed on its own (a SET NX per item: a lapsed lock
lets a second run in, not a second copy of any effect).

For IDM005, a key a heartbeat thread sets again while the work runs
(``Thread(target=beat, args=(key,))``) cannot expire under its owner, and
a key deleted only on a failure path (an ``except`` handler, or ``if not
delivered:`` after ``delivered = post(...)``) is a claim rolled back so
that the next run retries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Mapping, Optional, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.semantic.trace import Event, Trace, in_a_handler, source_text
from idemlint.semantic.resolution import Definition, parameters
from idemlint.effects import Knowledge, is_none
from idemlint.names import argument, descendants, method_name

if TYPE_CHECKING:
    from idemlint.facts import TaskFacts

RELEASE_METHODS = frozenset({"release", "arelease"})


def lock_variable(event: Event, trace: Trace) -> Optional[str]:
    """The local name a lock object is assigned to (``lock = r.lock(...)``)."""
    for other in trace.after(event):
        if other.kind == "assign" and other.scope is event.scope and other.value is event.node:
            names = [t.value for t in other.targets if isinstance(t, cst.Name)]
            return names[0] if len(names) == 1 else None
    return None


def released_where_taken(event: Event, trace: Trace) -> bool:
    """Whether a lock a helper takes is let go in that helper: its ``with``
    block, or a ``release()`` on the name holding it.  A generator (a
    ``@contextmanager``) that yields while it holds the lock holds it for
    the ``with`` block that enters it: held by the task when the task's own
    ``with`` enters it (through other such context managers or none), let
    go in a helper otherwise."""
    if event.scope.is_task:
        return False
    if _held_across_a_yield(event, trace):
        return not _entered_by_the_tasks_with(event)
    step = event.path[-1] if event.path else None
    if step is not None and step.kind == "With" and step.branch == "items":
        return True
    name = lock_variable(event, trace)
    return name is not None and any(
        releases(other.node, name) for other in trace.calls() if other.scope is event.scope
    )


def _held_across_a_yield(event: Event, trace: Trace) -> bool:
    """Whether the function taking the lock yields while it holds it: a
    ``yield`` inside the ``with`` block that takes it, or, for a lock held
    by a name, a ``yield`` after it is taken and before that name's
    ``release()``, in source order."""
    function = event.scope.function
    step = event.path[-1] if event.path else None
    if step is not None and step.kind == "With" and step.branch == "items":
        block = next(
            (node for node in descendants(function.body) if isinstance(node, cst.With) and id(node) == step.container),
            None,
        )
        return block is not None and any(isinstance(node, cst.Yield) for node in descendants(block.body))
    name = lock_variable(event, trace)
    taken = False
    for node in descendants(function.body):
        if node is event.node:
            taken = True
        elif taken and isinstance(node, cst.Yield):
            return True
        elif taken and name is not None and releases(node, name):
            return False
    return False


def _entered_by_the_tasks_with(event: Event) -> bool:
    """Whether every function from the task down to the one an event runs
    in was entered by a ``with`` (the task's own, then a context manager's
    inside the one it entered), not called by a helper."""
    bodies = [index for index, step in enumerate(event.path) if step.boundary]  # the task's, then each callee's
    return len(bodies) >= 2 and all(
        event.path[body - 1].kind == "With" and event.path[body - 1].branch == "items" for body in bodies[1:]
    )


def taken_per_item(event: Event) -> bool:
    """Whether the lock is taken in the body of a loop (a key per item)."""
    return any(step.kind == "Loop" and step.branch == "body" for step in event.path)


def handed_to_other_code(event: Event, trace: Trace, knowledge: Knowledge) -> bool:
    """Whether the lock object is passed to a call as an argument or kept
    on an object (``self._lock = r.lock(...)``: the object's own methods,
    which this trace does not run, take and release it), or the token a
    set-if-absent lock stores is passed to a task it enqueues."""
    if _kept_on_an_object(event, trace):
        return True
    name = lock_variable(event, trace)
    token = _token_name(event, knowledge)
    for other in trace.calls():
        call = other.node
        if other.scope is not event.scope or other.seq <= event.seq or not isinstance(call, cst.Call):
            continue
        if name is not None and any(_is_name(arg.value, name) for arg in call.args):
            return True
        if token is not None and _enqueues(call) and any(
            _is_name(node, token) for arg in call.args for node in descendants(arg.value)
        ):
            return True
    return False


def _kept_on_an_object(event: Event, trace: Trace) -> bool:
    for other in trace.after(event):
        if other.kind == "assign" and other.scope is event.scope and other.value is event.node:
            return any(isinstance(target, cst.Attribute) for target in other.targets)
    return False


def _token_name(event: Event, knowledge: Knowledge) -> Optional[str]:
    """The local name a set-if-absent lock stores as its value."""
    api = knowledge.lock_api(event)
    call = event.node
    if api is None or api.pattern in catalog.LOCK_OBJECT_APIS or not isinstance(call, cst.Call):
        return None
    value = argument(call, api.key_position + 1, "value")
    return value.value if isinstance(value, cst.Name) else None


def _enqueues(call: cst.Call) -> bool:
    method = method_name(call)
    return method in catalog.ENQUEUEING_METHODS or method in catalog.SEND_BY_NAME_METHODS


def _is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _method_on(node: cst.CSTNode, holder: str) -> Optional[str]:
    """The method a call makes on the object ``holder`` spells (``lock``,
    ``self._lock``), if it makes one on it."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return None
    return node.func.attr.value if source_text(node.func.value) == holder else None


def releases(node: cst.CSTNode, holder: str) -> bool:
    """Whether a call releases the lock ``holder`` spells (``lock.release()``)."""
    return _method_on(node, holder) in RELEASE_METHODS


def keys_kept_alive(trace: Trace, knowledge: Knowledge) -> Iterator[Tuple[cst.BaseExpression, Event]]:
    """The lock keys a heartbeat thread refreshes while the task works:
    ``Thread(target=f, args=(..., key, ...))`` where ``f`` sets the key again
    or pushes its expiry back, each key expression with the call that hands it."""
    for event in trace.calls():
        call = event.node
        if not isinstance(call, cst.Call) or event.callee not in catalog.THREAD_STARTERS:
            continue
        target = argument(call, None, "target")
        handed = argument(call, None, "args")
        if target is None or not isinstance(handed, cst.Tuple) or knowledge.calls is None:
            continue
        found = knowledge.calls.value_of(target, event.scope)
        if not isinstance(found, Definition):
            continue
        names = parameters(found)
        for position, element in enumerate(handed.elements):
            if position < len(names) and _refreshes(found.function, names[position]):
                yield element.value, event


def _refreshes(function: cst.FunctionDef, parameter: str) -> bool:
    """Whether ``function`` sets or re-expires the key its ``parameter`` holds."""
    return any(
        isinstance(node, cst.Call)
        and method_name(node) in catalog.KEY_REFRESH_METHODS
        and bool(node.args)
        and _is_name(node.args[0].value, parameter)
        for node in descendants(function.body)
    )


def work_claimed_apart(event: Event, facts: "TaskFacts") -> bool:
    """Whether the side effects and enqueues after the lock ``event`` are
    each covered by a test-and-set claim of their own, taken after it (and
    there are some)."""
    trace, knowledge, guards = facts.trace, facts.knowledge, facts.guards
    name = lock_variable(event, trace)
    own_claims = [
        claim for claim in guards.claims
        if claim.seq > event.seq and not guards.is_lock(claim) and (name is None or _method_on(claim.node, name) is None)
    ]
    work = [other for other in trace.calls() if other.seq > event.seq and _is_work(other, knowledge)]
    return bool(work) and all(any(guards.covers(claim, other) for claim in own_claims) for other in work)


def _is_work(event: Event, knowledge: Knowledge) -> bool:
    call = event.node
    return (
        knowledge.is_side_effect(event)
        or bool(event.enqueued)
        or (isinstance(call, cst.Call) and _enqueues(call))
    )


def on_a_failure_path(event: Event, trace: Trace, checks: Mapping[int, Event], since: int) -> bool:
    """Whether ``event`` runs only when a step after event ``since`` (the
    claim) failed: in an ``except`` handler, or in the body of an ``if``
    that tests a result the code got from a call after it as falsy
    (``delivered = post(...)``, then ``if not delivered:`` or ``if
    delivered is None:``)."""
    if in_a_handler(event):
        return True
    for step in event.path:
        check = checks.get(step.container)
        if step.kind != "If" or step.branch != "body" or check is None or check.value is None:
            continue
        tested = _tested_falsy(check.value)
        if tested is not None and _assigned_from_a_call(tested, check, trace, since):
            return True
    return False


def _tested_falsy(test: cst.BaseExpression) -> Optional[str]:
    """``not name`` / ``name is None`` / ``name is False``: the name tested."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return test.expression.value if isinstance(test.expression, cst.Name) else None
    if (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value in ("None", "False")
    ):
        return test.left.value
    return None


def _assigned_from_a_call(name: str, check: Event, trace: Trace, since: int) -> bool:
    """Whether the last assignment of ``name`` before ``check``, in its
    function and after event ``since``, gives it a call's result."""
    for earlier in reversed(trace.events[since + 1 : check.seq]):
        if earlier.kind == "assign" and earlier.scope is check.scope and any(
            _is_name(target, name) for target in earlier.targets
        ):
            value = earlier.value
            if isinstance(value, cst.Await):
                value = value.expression
            return isinstance(value, cst.Call)
    return False


def ttl_argument(
    call: cst.Call, api: catalog.LockApi
) -> Optional[Tuple[cst.BaseExpression, str]]:
    """The expiry expression and the keyword that gives its unit."""
    if any(a.star for a in call.args):
        return None
    for arg in call.args:
        if arg.keyword is None:
            continue
        name = arg.keyword.value
        if name in catalog.ABSOLUTE_LOCK_TTL_KEYWORDS:
            return None
        if name in api.ttl_keywords:
            return None if is_none(arg.value) else (arg.value, name)
    if api.ttl_position is None or not api.ttl_keywords:
        return None
    value = argument(call, api.ttl_position, None)
    if value is None or is_none(value):
        return None
    return value, api.ttl_keywords[0]


def renewed(
    event: Event, call: cst.Call, api: catalog.LockApi, calls: List[Event], held_by: Optional[str]
) -> bool:
    """Whether the lock is kept alive while held: auto-renewal, extend, expire,
    by what the renewal runs or on the name ``held_by`` holding the lock."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in catalog.LOCK_AUTO_RENEWAL_KEYWORDS:
            if not (isinstance(arg.value, cst.Name) and arg.value.value in ("False", "None")):
                return True
    renewals = {f"{event.callee}().{method}" for method in catalog.LOCK_RENEWAL_METHODS}
    key = argument(call, api.key_position, api.key_keyword)
    for other in calls:
        if other.seq <= event.seq or not isinstance(other.node, cst.Call):
            continue
        if other.callee in renewals:
            return True
        func = other.node.func
        if (
            held_by is not None
            and other.scope is event.scope
            and isinstance(func, cst.Attribute)
            and func.attr.value in catalog.LOCK_RENEWAL_METHODS
            and isinstance(func.value, cst.Name)
            and func.value.value == held_by
        ):
            return True
        if (
            key is not None
            and isinstance(func, cst.Attribute)
            and func.attr.value in catalog.KEY_EXPIRE_METHODS
            and other.node.args
            and other.node.args[0].value.deep_equals(key)
        ):
            return True
    return False
