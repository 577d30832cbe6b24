"""What Celery runs on a schedule, and what a scheduled sweep repairs (IDM009).

A task lost with its worker process is not always lost for good:

- a task Celery runs on a schedule is run again by its next run: a beat
  entry (a mapping with ``"task"`` and ``"schedule"``, as in
  ``beat_schedule`` or Django's ``CELERY_BEAT_SCHEDULE``), an
  ``add_periodic_task(schedule, signature)`` call (Celery's app method, or a
  framework directive of that name), or a periodic decorator's own
  schedule;
- a task that requires its row to be in a state on entry (it fetches the row
  by it, ``get(id=..., status=UNPROCESSED)``, or tests it, ``if not
  file.cached:``) leaves the row in that state when it is lost.  A scheduled
  *sweeper* that goes over the rows selected by the same state and, in that
  loop, enqueues the task again, or does the work and moves the rows out of
  that state itself (``row.cached = True``), takes the lost run up.

Everything here reads the syntax of the functions involved (the sweeper's
own body, the task's own body); what a helper they call does is not read,
so a sweep or an entry check inside a helper is not seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.names import Resolver, literal_text

# A state a query selects rows by: the field and the text of its value
# (``"None"`` for ``field__isnull=True``).
State = Tuple[str, str]


@dataclass(frozen=True)
class ScheduleEntry:
    """Something a module schedules: a qualified name (``by_name`` False) or
    the text a beat entry gives as ``"task"`` (a dotted path or the name a
    task is registered under)."""

    target: str
    by_name: bool


@dataclass(frozen=True)
class Sweep:
    """A loop of a scheduled function over rows selected by ``state``: the
    tasks it enqueues in the loop (qualified, as the sweeper's module
    resolves them), whether it writes the state's field there, and the
    model it selects from (qualified; None when not read)."""

    state: State
    enqueued: FrozenSet[str]
    writes_state: bool
    model: Optional[str]


def schedule_entries(roots: Sequence[cst.CSTNode], resolver: Resolver) -> Iterator[ScheduleEntry]:
    """The beat entries and ``add_periodic_task`` calls under ``roots``."""
    for node in _walk(roots):
        if isinstance(node, cst.Dict):
            named = _beat_entry_task(node)
            if named is not None:
                yield ScheduleEntry(named, by_name=True)
        elif isinstance(node, cst.Call) and _method(node) in catalog.SCHEDULING_METHODS:
            signature = _argument(node, *catalog.SCHEDULED_SIGNATURE)
            qualified = resolver.resolve(_unsigned(signature)) if signature is not None else None
            if qualified is not None:
                yield ScheduleEntry(qualified, by_name=False)


def sweeps(function: cst.FunctionDef, resolver: Resolver) -> List[Sweep]:
    """Each loop of ``function`` over rows it selects by a state."""
    assigned = _single_assignments(function)
    found: List[Sweep] = []
    for node in _walk(function.body.body):
        if not isinstance(node, cst.For):
            continue
        calls = list(_query_calls(node.iter, assigned))
        for state in (s for call in calls if _method(call) in catalog.SWEEP_SELECTING_METHODS for s in _states(call)):
            found.append(Sweep(
                state,
                frozenset(_enqueued(node.body, resolver)),
                _writes_field(node.body, state[0]),
                _model(calls, resolver),
            ))
    return found


def requires_on_entry(function: cst.FunctionDef, state: State) -> bool:
    """Whether ``function`` fetches its row by ``state`` or tests the
    state's field (``if not row.cached:``, ``if event.status != X: return``)."""
    field, value = state
    for node in _walk(function.body.body):
        if isinstance(node, cst.Call) and _method(node) in catalog.ENTRY_FETCHING_METHODS:
            if state in _states(node):
                return True
        elif isinstance(node, (cst.If, cst.While)) and any(
            isinstance(part, cst.Attribute) and part.attr.value == field for part in _walk((node.test,))
        ):
            return True
    return False


def references(function: cst.FunctionDef, qualified: str, resolver: Resolver) -> bool:
    """Whether ``function`` names ``qualified`` (a model it fetches)."""
    return any(
        isinstance(node, (cst.Name, cst.Attribute)) and resolver.resolve(node) == qualified
        for node in _walk(function.body.body)
    )


def _beat_entry_task(node: cst.Dict) -> Optional[str]:
    """The ``"task"`` of a mapping that also has a ``"schedule"``."""
    entries: Dict[str, cst.BaseExpression] = {}
    for element in node.elements:
        if isinstance(element, cst.DictElement):
            key = literal_text(element.key)
            if key is not None:
                entries[key] = element.value
    task, schedule = catalog.BEAT_ENTRY_KEYS
    if schedule not in entries or task not in entries:
        return None
    return literal_text(entries[task])


def _argument(call: cst.Call, position: int, keyword: str) -> Optional[cst.BaseExpression]:
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    return positional[position].value if len(positional) > position else None


def _unsigned(expression: cst.BaseExpression) -> cst.BaseExpression:
    """The task of ``task.s(...)``, ``task.si(...)``, ``task.signature(...)``."""
    if (
        isinstance(expression, cst.Call)
        and isinstance(expression.func, cst.Attribute)
        and expression.func.attr.value in ("s", "si", "signature")
    ):
        return expression.func.value
    return expression


def _single_assignments(function: cst.FunctionDef) -> Dict[str, cst.BaseExpression]:
    """The local names ``function`` assigns exactly once, with their values."""
    values: Dict[str, List[cst.BaseExpression]] = {}
    for node in _walk(function.body.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, cst.Name):
                values.setdefault(target.value, []).append(node.value)
    return {name: found[0] for name, found in values.items() if len(found) == 1}


def _query_calls(node: cst.BaseExpression, assigned: Dict[str, cst.BaseExpression]) -> Iterator[cst.Call]:
    """The calls a loop's iterable is built of, through receivers and the
    local names assigned once (a name is followed once)."""
    followed: Set[str] = set()
    while True:
        if isinstance(node, cst.Name) and node.value in assigned and node.value not in followed:
            followed.add(node.value)
            node = assigned[node.value]
        elif isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        elif isinstance(node, cst.Await):
            node = node.expression
        elif isinstance(node, cst.Call):
            yield node
            node = node.func
        else:
            return


def _states(call: cst.Call) -> List[State]:
    """The states a query call selects by: ``field=`` a literal or a
    constant (``Status.QUEUED``, ``False``), or ``field__isnull=True``."""
    found: List[State] = []
    for arg in call.args:
        if arg.keyword is None:
            continue
        field, _, operator = arg.keyword.value.partition("__")
        value = arg.value
        if operator in ("", "exact") and _is_constant(value):
            found.append((field, _text(value)))
        elif operator == "isnull" and isinstance(value, cst.Name) and value.value == "True":
            found.append((field, "None"))
    return found


def _is_constant(value: cst.BaseExpression) -> bool:
    if isinstance(value, (cst.SimpleString, cst.Integer)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("True", "False", "None") or value.value.isupper()
    return isinstance(value, cst.Attribute) and isinstance(value.value, (cst.Name, cst.Attribute))


def _text(node: cst.CSTNode) -> str:
    return cst.Module(body=()).code_for_node(node)


def _enqueued(body: cst.CSTNode, resolver: Resolver) -> Iterator[str]:
    for node in _walk((body,)):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and (
            node.func.attr.value in catalog.ENQUEUE_CALL_METHODS
        ):
            qualified = resolver.resolve(node.func.value)
            if qualified is not None:
                yield qualified


def _writes_field(body: cst.CSTNode, field: str) -> bool:
    """An assignment to ``row.<field>`` or an ``update(<field>=...)``."""
    for node in _walk((body,)):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if any(isinstance(t, cst.Attribute) and t.attr.value == field for t in targets):
                return True
        elif isinstance(node, cst.Call) and _method(node) in catalog.STATE_WRITE_METHODS:
            if any(arg.keyword is not None and arg.keyword.value == field for arg in node.args):
                return True
    return False


def _model(calls: Sequence[cst.Call], resolver: Resolver) -> Optional[str]:
    """The model a query selects from: ``query(Model)``'s argument, or the
    class whose manager it starts from (``Model.objects``)."""
    for call in calls:
        if _method(call) == "query" and call.args:
            return resolver.resolve(call.args[0].value)
    innermost = calls[-1].func if calls else None
    while isinstance(innermost, (cst.Attribute, cst.Call)):
        innermost = innermost.value if isinstance(innermost, cst.Attribute) else innermost.func
        if isinstance(innermost, cst.Attribute) and innermost.attr.value == "objects":
            return resolver.resolve(innermost.value)
    return None


def _method(call: cst.Call) -> Optional[str]:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def _walk(roots: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Every node under ``roots``, not into nested functions or classes."""
    given = {id(root) for root in roots}
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and id(node) not in given:
            continue
        stack.extend(reversed(node.children))
