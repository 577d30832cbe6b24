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

import ast
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.names import Resolver, argument, called_name, children, literal_text, method_name
from idemlint.semantic.queries import filter_terms, statement_of
from idemlint.semantic.resolution import assigned_in, local_assignments
from idemlint.tasks import source_text

# A state a query selects rows by: the field and the text of its value
# (``"None"`` for ``field__isnull=True``).
State = Tuple[str, str]


@dataclass(frozen=True)
class ScheduleEntry:
    """Something a module schedules: a qualified name (``by_name`` False) or
    the text a beat entry gives as ``"task"`` (a dotted path or the name a
    task is registered under), or a name whose value holds beat entries."""

    target: str
    by_name: bool
    # ``target`` is a constant a beat schedule is built of
    # (``CELERY_BEAT_SCHEDULE = dict(PERIODIC_TASKS)``): its entries count.
    holds_entries: bool = False


@dataclass(frozen=True)
class Sweep:
    """A loop of a scheduled function over rows selected by ``state``: the
    tasks it enqueues in the loop (qualified, as the sweeper's module
    resolves them), whether it writes the field a done value there (the
    work done: ``cached = True``, ``status = Status.SENT``; not
    ``status = EXPIRED``), and the model it selects from (qualified; None
    when not read)."""

    state: State
    enqueued: FrozenSet[str]
    marks_done: bool
    model: Optional[str]


def schedule_entries(
    roots: Sequence[cst.CSTNode], resolver: Resolver, schedules: Sequence[cst.BaseExpression] = ()
) -> Iterator[ScheduleEntry]:
    """The beat entries of the beat schedules under ``roots`` (and of
    ``schedules``, values known to be beat schedules) and their
    ``add_periodic_task`` calls (a name a function binds itself is not
    read: it may be anything)."""
    for schedule in schedules:
        yield from _beat_entries(schedule, resolver)
    for root in roots:
        local = assigned_in(root) if isinstance(root, cst.FunctionDef) else frozenset()
        for node in _walk((root,)):
            found = _beat_schedule(node)
            if found is not None:
                yield from _beat_entries(found, resolver)
            elif isinstance(node, cst.Call) and method_name(node) in catalog.SCHEDULING_METHODS:
                signature = argument(node, *catalog.SCHEDULED_SIGNATURE)
                task = _unsigned(signature) if signature is not None else None
                head = task
                while isinstance(head, cst.Attribute):
                    head = head.value
                if task is None or (isinstance(head, cst.Name) and head.value in local):
                    continue
                qualified = resolver.resolve(task)
                if qualified is not None:
                    yield ScheduleEntry(qualified, by_name=False)


def may_schedule(statement: ast.stmt) -> bool:
    """Whether CPython's statement of a definition may hold a beat schedule
    or an ``add_periodic_task`` call (the others are not parsed)."""
    for node in ast.walk(statement):
        named = (
            node.attr if isinstance(node, ast.Attribute)
            else node.id if isinstance(node, ast.Name)
            else node.arg if isinstance(node, ast.keyword)
            else node.value if isinstance(node, ast.Constant) and isinstance(node.value, str)
            else None
        )
        if named is not None and (named in catalog.SCHEDULING_METHODS or names_beat_schedule(named)):
            return True
    return False


def _beat_entries(schedule: cst.BaseExpression, resolver: Resolver) -> Iterator[ScheduleEntry]:
    """The entries of a beat schedule, and the names it is built of
    (``dict(PERIODIC_TASKS)``, ``BASE | EXTRA``, ``{**BASE, ...}``)."""
    for node in _walk((schedule,)):
        named = _beat_entry_task(node)
        if named is not None:
            yield ScheduleEntry(named, by_name=True)
        elif isinstance(node, cst.Name) and node.value not in ("dict", "True", "False", "None"):
            yield ScheduleEntry(resolver.resolve(node) or node.value, by_name=False, holds_entries=True)


def _beat_schedule(node: cst.CSTNode) -> Optional[cst.BaseExpression]:
    """The value given to a beat schedule setting: ``beat_schedule = {...}``,
    ``CELERY_BEAT_SCHEDULE = {...}`` (``|=``, ``.update({...})``, an entry
    ``[name] = {...}``), ``app.conf.beat_schedule = ...``,
    ``conf["beat_schedule"] = ...``, ``update(beat_schedule=...)``, a
    ``"beat_schedule": {...}`` entry."""
    if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        if node.value is not None and any(
            names_beat_schedule(_target_name(t))
            or (isinstance(t, cst.Subscript) and names_beat_schedule(_target_name(t.value)))  # ``SCHEDULE["x"] = {...}``
            for t in targets
        ):
            return node.value
    elif (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "update"
        and names_beat_schedule(_target_name(node.func.value))
        and node.args
    ):
        return node.args[0].value  # ``CELERY_BEAT_SCHEDULE.update({...})``
    elif isinstance(node, cst.Arg) and node.keyword is not None and names_beat_schedule(node.keyword.value):
        return node.value
    elif isinstance(node, cst.DictElement) and names_beat_schedule(literal_text(node.key)):
        return node.value
    return None


def _target_name(target: cst.BaseExpression) -> Optional[str]:
    if isinstance(target, cst.Name):
        return target.value
    if isinstance(target, cst.Attribute):
        return target.attr.value
    if isinstance(target, cst.Subscript) and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
        return literal_text(target.slice[0].slice.value)
    return None


def names_beat_schedule(name: Optional[str]) -> bool:
    return name is not None and name.lower().endswith(catalog.BEAT_SCHEDULE_SETTING)


def sweeps(function: cst.FunctionDef, resolver: Resolver) -> List[Sweep]:
    """Each loop of ``function`` over rows it selects by a state: a ``for``
    statement, or a comprehension whose element enqueues
    (``group(task.s(row.id) for row in rows)``)."""
    assigned = _single_assignments(function)
    found: List[Sweep] = []
    for node in _walk(function.body.body):
        body: cst.CSTNode
        if isinstance(node, cst.For):
            iterated, body = node.iter, node.body
        elif isinstance(node, (cst.GeneratorExp, cst.ListComp, cst.SetComp)):
            iterated, body = node.for_in.iter, node.elt
        else:
            continue
        calls = list(_query_calls(iterated, assigned))
        for state in (s for call in calls if method_name(call) in catalog.SELECTING_METHODS for s in _states(call)):
            found.append(Sweep(
                state,
                frozenset(_enqueued(body, resolver)),
                any(_is_done_value(state, written) for written in _written(body, state[0])),
                _model(calls, resolver),
            ))
    return found


def requires_on_entry(function: cst.FunctionDef, sweep: Sweep, resolver: Resolver, same_model: bool) -> bool:
    """Whether ``function`` requires its row in the state ``sweep``
    selects: it fetches the row by that state (``get(id=..., status=X)``)
    or tests the field against it (``if not row.cached:`` for a selected
    ``False``, ``if event.status != X: return``), and it never moves the
    row to a state of work in progress (``status = "running"``), where a
    lost run would leave it out of the sweep.  With ``same_model``, the row
    must be of the model the sweep selects (fetched from it)."""
    field, _ = sweep.state
    if any(_words(written) & catalog.IN_PROGRESS_STATE_WORDS for written in _written(function.body, field)):
        return False
    assigned = _single_assignments(function)
    for node in _walk(function.body.body):
        if isinstance(node, cst.Call) and method_name(node) in catalog.FILTERING_METHODS and sweep.state in _states(node):
            model = _model(list(_query_calls(node, assigned)), resolver)
            if not same_model or (model is not None and model == sweep.model):
                return True
        elif isinstance(node, (cst.If, cst.While)):
            for row in _rows_tested(node.test, sweep.state):
                if not same_model or _fetched_from(row, assigned, sweep.model, resolver):
                    return True
    return False


def _rows_tested(test: cst.BaseExpression, state: State) -> Iterator[Optional[str]]:
    """The rows (the names holding them) a test compares with ``state``:
    ``row.field == value`` (``!=``, ``is``), or the field's truth for a
    selected ``False``, ``None`` or ``True``."""
    field, value = state
    for node in _walk((test,)):
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            left, right = node.left, node.comparisons[0].comparator
            if isinstance(left, cst.Attribute) and left.attr.value == field and source_text(right) == value:
                yield _holder(left)
        elif isinstance(node, cst.Attribute) and node.attr.value == field and value in ("False", "None", "True"):
            yield _holder(node)


def _holder(attribute: cst.Attribute) -> Optional[str]:
    return attribute.value.value if isinstance(attribute.value, cst.Name) else None


def _fetched_from(
    row: Optional[str], assigned: Dict[str, cst.BaseExpression], model: Optional[str], resolver: Resolver
) -> bool:
    """Whether the name ``row`` holds a row fetched from ``model``
    (``session.get(File, pk)``, ``File.objects.get(pk=pk)``)."""
    value = assigned.get(row) if row is not None else None
    if value is None or model is None:
        return False
    return any(
        isinstance(node, (cst.Name, cst.Attribute)) and resolver.resolve(node) == model for node in _walk((value,))
    )


def _is_done_value(state: State, written: cst.BaseExpression) -> bool:
    """Whether writing ``written`` to the field a sweep selects by marks
    the work done: a done state (``Status.SENT``), or a flag selected
    unset (``False``, ``None``) and now set, unless the flag says the row
    was given up (``expired``, ``cancelled``)."""
    field, selected = state
    text = source_text(written)
    words = _words(written)
    if text == selected or words & (catalog.IN_PROGRESS_STATE_WORDS | catalog.NOT_DONE_WORDS):
        return False
    if catalog.STATUS_FIELDS.match(field):
        return bool(words & catalog.CHECKED_DONE_STATES)
    return (
        selected in ("False", "None")
        and text not in ("False", "None")
        and catalog.words(field).isdisjoint(catalog.GIVEN_UP_WORDS)
    )


def _words(node: cst.BaseExpression) -> FrozenSet[str]:
    return frozenset(catalog.words(source_text(node)))


def _beat_entry_task(node: cst.CSTNode) -> Optional[str]:
    """The ``"task"`` of an entry that also has a ``"schedule"``: a
    mapping literal or ``dict(task=..., schedule=...)``."""
    entries: Dict[str, cst.BaseExpression] = {}
    if isinstance(node, cst.Dict):
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                key = literal_text(element.key)
                if key is not None:
                    entries[key] = element.value
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict":
        entries = {arg.keyword.value: arg.value for arg in node.args if arg.keyword is not None}
    task, schedule = catalog.BEAT_ENTRY_KEYS
    if schedule not in entries or task not in entries:
        return None
    return literal_text(entries[task])


def _unsigned(expression: cst.BaseExpression) -> cst.BaseExpression:
    """The task of ``task.s(...)``, ``task.si(...)``, ``task.signature(...)``."""
    func = expression.func if isinstance(expression, cst.Call) else None
    if isinstance(func, cst.Attribute) and func.attr.value in catalog.SIGNATURE_METHODS:
        return func.value
    return expression


def _single_assignments(function: cst.FunctionDef) -> Dict[str, cst.BaseExpression]:
    """The local names ``function`` assigns exactly once, with their values."""
    return {name: found[0] for name, found in local_assignments(function.body.body).items() if len(found) == 1}


def _query_calls(node: cst.BaseExpression, assigned: Dict[str, cst.BaseExpression]) -> Iterator[cst.Call]:
    """The calls a loop's iterable is built of, through receivers, the
    statement a session runs, what a comprehension goes over and the local
    names assigned once (a name is followed once)."""
    followed: Set[str] = set()
    while True:
        if isinstance(node, cst.Name) and node.value in assigned and node.value not in followed:
            followed.add(node.value)
            node = assigned[node.value]
        elif isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        elif isinstance(node, cst.Await):
            node = node.expression
        elif isinstance(node, (cst.GeneratorExp, cst.ListComp, cst.SetComp)):
            node = node.for_in.iter  # ``ids = [row.id for row in rows]``: the rows' ids
        elif isinstance(node, cst.Call):
            if isinstance(node.func, cst.Name) and node.func.value in catalog.COLLECTION_CONVERSIONS and node.args:
                node = node.args[0].value  # ``list(rows)``
                continue
            yield node
            node = statement_of(node) or node.func
        else:
            return


def _states(call: cst.Call) -> List[State]:
    """The states a query call selects by (see :mod:`idemlint.semantic.queries`):
    a field equal to a literal or a constant (``Status.QUEUED``, ``False``),
    or empty (``field__isnull=True``, ``Model.field.is_(None)``)."""
    found: List[State] = []
    for term in filter_terms(call):
        field, _, operator = term.lookup.partition("__")
        value = term.value
        if term.excluded:
            continue
        if operator in ("", "exact") and _is_constant(value):
            found.append((field, source_text(value)))
        elif operator == "isnull" and isinstance(value, cst.Name) and value.value == "True":
            found.append((field, "None"))
    return found


def _is_constant(value: cst.BaseExpression) -> bool:
    if isinstance(value, (cst.SimpleString, cst.Integer)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("True", "False", "None") or value.value.isupper()
    return isinstance(value, cst.Attribute) and isinstance(value.value, (cst.Name, cst.Attribute))


def _enqueued(body: cst.CSTNode, resolver: Resolver) -> Iterator[str]:
    for node in _walk((body,)):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and (
            node.func.attr.value in catalog.ENQUEUE_CALL_METHODS
        ):
            qualified = resolver.resolve(node.func.value)
            if qualified is not None:
                yield qualified


def _written(body: cst.CSTNode, field: str) -> Iterator[cst.BaseExpression]:
    """What ``body`` writes to ``row.<field>`` or by ``update(<field>=...)``."""
    for node in _walk((body,)):
        if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if any(isinstance(t, cst.Attribute) and t.attr.value == field for t in targets):
                yield node.value
        elif isinstance(node, cst.Call) and method_name(node) in catalog.STATE_WRITE_METHODS:
            yield from (arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == field)


def _model(calls: Sequence[cst.Call], resolver: Resolver) -> Optional[str]:
    """The model a query selects from: ``query(Model)``'s or
    ``select(Model)``'s argument, or the class whose manager it starts from
    (``Model.objects``)."""
    for call in calls:
        called = called_name(call)
        if called in ("query", "select") and call.args:  # ``session.query(Model)``, ``select(Model)``
            return resolver.resolve(call.args[0].value)
    innermost = calls[-1].func if calls else None
    while isinstance(innermost, (cst.Attribute, cst.Call)):
        innermost = innermost.value if isinstance(innermost, cst.Attribute) else innermost.func
        if isinstance(innermost, cst.Attribute) and innermost.attr.value == "objects":
            return resolver.resolve(innermost.value)
    return None


def _walk(roots: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Every node under ``roots``, not into nested functions or classes."""
    given = {id(root) for root in roots}
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and id(node) not in given:
            continue
        stack.extend(reversed(children(node)))
