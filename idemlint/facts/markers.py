"""Done-markers: writes that record work as done, and the work they record.

A marker is a write that says the work is done (a done status or flag
saved, a done key set, a dedup row inserted, a row moved out of the state
its loop selects it by, a watermark advanced, a claim's rows committed).
:func:`early_markers` finds those written before the work they record,
outside one transaction with it (IDM003): if the worker dies in between,
the marker says done and the redelivery skips the work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, Set, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.semantic.trace import Event, Trace, call_label, happens_before, in_a_handler, source_text
from idemlint.effects import Knowledge
from idemlint.names import argument, children, descendants, dotted_name, literal_text, method_name

if TYPE_CHECKING:
    from idemlint.facts import TaskFacts


@dataclass(frozen=True)
class Marker:
    """A done-marker write: ``report`` is where it is reported, ``write`` the
    event that persists it, ``field`` the field it writes (None for a key,
    a dedup row or a claim's rows); ``dedup`` markers record any following
    work."""

    report: cst.CSTNode
    write: Event
    text: str
    dedup: bool
    field: Optional[str] = None
    claim: Optional[Event] = None  # a test-and-set claim whose rows record the work
    # A row created in its done state: it overwrites nothing, so only a
    # check of that state makes a redelivery skip the work after it.
    created: bool = False
    state: Optional[str] = None  # the code of the state it writes (``Order.STATUS_PAID``)
    receiver: Optional[str] = None  # the object it is written on (``order``)


@dataclass(frozen=True)
class EarlyMarker:
    """A done-marker written before the work it records: ``work`` is the
    first side effect, enqueue or work-named call after it that a crash in
    between would make a redelivery skip."""

    marker: Marker
    work: Event


def early_markers(facts: "TaskFacts") -> Tuple[EarlyMarker, ...]:
    """The markers written before their work, in the order they are written,
    one per reported node.  Several markers before one effect are one review
    comment: the one written last before it (usually the record of that
    very work)."""
    closest: Dict[int, Tuple[Marker, Event]] = {}
    for marker in _markers(facts):
        effect = _first_work_after(marker, facts)
        if effect is None or _records_earlier_work(marker, facts):
            continue
        current = closest.get(effect.seq)
        if current is None or current[0].write.seq < marker.write.seq:
            closest[effect.seq] = (marker, effect)
    found: List[EarlyMarker] = []
    reported: Set[int] = set()
    for marker, effect in sorted(closest.values(), key=lambda pair: pair[0].write.seq):
        if id(marker.report) not in reported:
            reported.add(id(marker.report))
            found.append(EarlyMarker(marker, effect))
    return tuple(found)


def _markers(facts: "TaskFacts") -> Iterator[Marker]:
    trace = facts.trace
    pending: Dict[str, List[Event]] = {}
    # By object, the statuses set since its last save that leave work to
    # do (``mail.status = AWAITING_RETRY`` beside ``mail.sent = now()``):
    # a save writing one with a done flag writes no done-marker.
    left_to_do: Dict[str, List[Event]] = {}
    for event in trace.events:
        if event.kind == "assign":
            for target in event.targets:
                _note_status(event, target, left_to_do)
                if _is_done_assignment(target, event.value) or _moves_selected_row(event, target, facts):
                    receiver = dotted_name(target.value)  # type: ignore[attr-defined]
                    if receiver:
                        pending.setdefault(receiver, []).append(event)
            continue
        if event.kind != "call" or not isinstance(event.node, cst.Call):
            continue
        call = event.node
        if method_name(call) in catalog.BULK_SAVE_METHODS:
            yield from _bulk_saved(event, call, pending, trace)
            continue
        saved = _saved_receivers(call, pending)
        for receiver in saved:
            assignments = pending.pop(receiver)
            remaining = left_to_do.pop(receiver, [])
            for assignment in assignments:
                if any(happens_before(r, assignment) or happens_before(assignment, r) for r in remaining):
                    continue  # written together with a state that leaves the work to do
                yield Marker(
                    assignment.node,
                    event,
                    f"`{source_text(assignment.node, 60)}`",
                    dedup=False,
                    field=_assigned_field(assignment),
                    state=source_text(assignment.value) if assignment.value is not None else None,
                    receiver=receiver,
                )
        for receiver in _saved_receivers(call, left_to_do):
            del left_to_do[receiver]
        marker = _call_marker(event, call, facts)
        if marker is not None:
            yield marker


def _note_status(event: Event, target: cst.BaseExpression, left_to_do: Dict[str, List[Event]]) -> None:
    """Keep ``left_to_do`` up to date with a status assignment: one that
    leaves the work to do joins it, a later one that does not supersedes
    those before it."""
    value = event.value
    if not isinstance(target, cst.Attribute) or value is None or not catalog.STATUS_FIELDS.match(target.attr.value):
        return
    receiver = dotted_name(target.value)
    if receiver is None:
        return
    if _says_work_remains(value):
        left_to_do.setdefault(receiver, []).append(event)
    elif receiver in left_to_do:
        left_to_do[receiver] = [r for r in left_to_do[receiver] if not happens_before(r, event)]


def _moves_selected_row(event: Event, target: cst.BaseExpression, facts: "TaskFacts") -> bool:
    """``invite.status = Status.EXPIRED`` in ``for invite in
    Invite.objects.filter(status=Status.PENDING)``: the row leaves the
    state the loop selects it by, the state the next run selects on, so
    the new one records the work whatever it is called."""
    if not isinstance(target, cst.Attribute) or not isinstance(target.value, cst.Name) or event.value is None:
        return False
    if not catalog.STATUS_FIELDS.match(target.attr.value):
        return False
    selection = facts.guards.selection_around(event)
    if selection is None:
        return False
    loop, field, selected = selection
    row = loop.node.target if isinstance(loop.node, cst.For) else None
    return (
        field == target.attr.value
        and isinstance(row, cst.Name)
        and row.value == target.value.value
        and source_text(event.value) != selected
        and not _says_work_remains(event.value)
    )


def _says_work_remains(value: cst.BaseExpression) -> bool:
    """``"processing"``, ``Status.SENDING``, ``PENDING``: a state that
    claims the work or leaves it to do, not one that records it done."""
    text = literal_text(value) if isinstance(value, cst.SimpleString) else dotted_name(value) or ""
    words = catalog.words((text or "").rsplit(".", 1)[-1])
    return not words.isdisjoint(catalog.IN_PROGRESS_STATE_WORDS | catalog.UNDONE_STATE_WORDS | catalog.NOT_DONE_WORDS)


def _bulk_saved(
    event: Event, call: cst.Call, pending: Dict[str, List[Event]], trace: Trace
) -> Iterator[Marker]:
    """``Invite.objects.bulk_update(invites, fields=["status"])`` writes the
    done states assigned to the objects appended to ``invites`` before it,
    of the fields it names: one marker, reported at the write."""
    objects = argument(call, 0, "objs")
    fields = argument(call, 1, "fields")
    if not isinstance(objects, cst.Name) or not isinstance(fields, (cst.List, cst.Tuple)):
        return
    names = {literal_text(element.value) for element in fields.elements}
    appended = _appended_to(trace, event, objects.value)
    written = [
        receiver for receiver, assignments in pending.items()
        if receiver in appended and any(_assigned_field(a) in names for a in assignments)
    ]
    if not written:
        return
    first = pending[written[0]][0]
    for receiver in written:
        del pending[receiver]
    yield Marker(
        call, event, f"`{call_label(call)}` of `{source_text(first.node, 60)}`", dedup=False,
        field=_assigned_field(first),
    )


def _appended_to(trace: Trace, before: Event, collection: str) -> Set[str]:
    """The names appended to the list ``collection`` before an event, in its function."""
    return {
        dotted_name(earlier.node.args[0].value) or ""
        for earlier in trace.events[: before.seq]
        if earlier.kind == "call" and id(earlier.scope) == id(before.scope)
        and isinstance(earlier.node, cst.Call) and earlier.node.args
        and isinstance(earlier.node.func, cst.Attribute)
        and earlier.node.func.attr.value in catalog.LIST_ADDS
        and dotted_name(earlier.node.func.value) == collection
    }


def _assigned_field(assignment: Event) -> Optional[str]:
    target = assignment.targets[0] if assignment.targets else None
    return target.attr.value if isinstance(target, cst.Attribute) else None


def _is_done_assignment(target: cst.BaseExpression, value: Optional[cst.BaseExpression]) -> bool:
    if not isinstance(target, cst.Attribute) or value is None:
        return False
    return _is_done_field(target.attr.value, value)


def _is_done_field(field: str, value: cst.BaseExpression) -> bool:
    if catalog.STATUS_FIELDS.match(field):
        return _is_done_state(value)
    if catalog.DONE_FLAG_FIELDS.match(field):
        if isinstance(value, cst.Name):
            return value.value == "True"
        return isinstance(value, cst.Call)
    return False


def _is_done_state(value: cst.BaseExpression) -> bool:
    """``"paid"``, ``OrderStatus.PAID``, ``Order.STATUS_PAID``; not ``NOT_SENT``."""
    if isinstance(value, cst.SimpleString):
        text = literal_text(value) or ""
    elif isinstance(value, cst.Attribute):
        text = value.attr.value
    else:
        return False
    if text.lower() in catalog.DONE_STATES:
        return True
    names = catalog.words(text)
    return names.isdisjoint(catalog.NOT_DONE_WORDS) and not names.isdisjoint(catalog.DONE_STATES)


def _saved_receivers(call: cst.Call, pending: Dict[str, List[Event]]) -> List[str]:
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in catalog.SAVE_METHODS:
        return []
    if func.attr.value in ("commit", "flush"):
        return list(pending)
    receiver = dotted_name(func.value)
    return [receiver] if receiver in pending else []


def _call_marker(event: Event, call: cst.Call, facts: "TaskFacts") -> Optional[Marker]:
    knowledge = facts.knowledge
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    method = func.attr.value
    if _is_mark_method(method) and _is_local_object(func.value, event):
        return Marker(call, event, _label(call), dedup=False)
    if method in ("update", "aupdate", "update_or_create"):
        for arg in call.args:
            if arg.keyword is not None and _is_done_field(arg.keyword.value, arg.value):
                return Marker(
                    call, event, f"{_label(call)} marking `{arg.keyword.value}` done", False, arg.keyword.value
                )
            if arg.keyword is not None and _selects_the_work(event, arg.keyword.value, facts):
                return Marker(
                    call, event, f"{_label(call)} advancing `{arg.keyword.value}`, which selects the work,", False,
                    arg.keyword.value,
                )
        return None
    if method in catalog.CACHE_SET_METHODS:
        return _cache_marker(event, call, knowledge, _label(call))
    if method in catalog.INSERT_METHODS:
        return _insert_marker(event, call, _label(call))
    if method in catalog.SQL_EXECUTE_METHODS and call.args:
        return _sql_marker(event, call, facts, _label(call))
    if method == "add" and call.args:
        created = call.args[0].value
        if isinstance(created, cst.Call):
            name = dotted_name(created.func) or ""
            if catalog.names_dedup_table(name.split(".")[-1]):
                return Marker(call, event, _label(call), dedup=True)
    return None


def _label(call: cst.Call) -> str:
    """The call as a message names it (generated code: asked only of a marker)."""
    return f"`{call_label(call)}`"


def _selects_the_work(event: Event, field: str, facts: "TaskFacts") -> bool:
    """Whether ``update(last_run_at=now())`` advances a watermark: earlier
    in the same function, a local read from the field (``since =
    task.last_run_at``) bounds a query's range (``filter(modified__gte=since)``),
    so the next run starts from the new value."""
    return any(seq < event.seq for seq in facts.watermark_bounds.get((id(event.scope), field), ()))


def watermark_bounds(trace: Trace) -> Dict[Tuple[int, str], List[int]]:
    """(scope, field) -> where a local read from ``obj.field`` bounds a
    query's range (the seq of that filter call)."""
    read: Dict[Tuple[int, str], str] = {}  # (scope, local) -> the field it was read from
    bounds: Dict[Tuple[int, str], List[int]] = {}
    for event in trace.events:
        scope = id(event.scope)
        if event.kind == "assign" and isinstance(event.value, cst.Attribute):
            for target in event.targets:
                if isinstance(target, cst.Name):
                    read[(scope, target.value)] = event.value.attr.value
        elif (
            event.kind == "call"
            and isinstance(event.node, cst.Call)
            and method_name(event.node) in catalog.BOUNDING_METHODS
        ):
            for arg in event.node.args:
                if (
                    arg.keyword is not None
                    and arg.keyword.value.rsplit("__", 1)[-1] in catalog.RANGE_LOOKUPS
                    and isinstance(arg.value, cst.Name)
                    and (scope, arg.value.value) in read
                ):
                    bounds.setdefault((scope, read[(scope, arg.value.value)]), []).append(event.seq)
    return bounds


def _is_mark_method(method: str) -> bool:
    """``order.mark_paid()``, ``email.mark_as_sent()``: a model method that saves a done state."""
    names = catalog.words(method)
    return "mark" in names and not names.isdisjoint(catalog.DONE_STATES)


def _cache_marker(event: Event, call: cst.Call, knowledge: Knowledge, label: str) -> Optional[Marker]:
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) + len([a for a in call.args if a.keyword is not None]) < 2:
        return None
    if knowledge.lock_api(event) is not None:
        return None
    key = argument(call, 0, "name") or argument(call, 0, "key")
    if key is None:
        return None
    text = knowledge.string_value(key, event.scope)
    if text is None and isinstance(key, cst.Name):
        text = key.value
    if text is not None and catalog.says_done(text):
        return Marker(call, event, label, dedup=True)
    return None


def _insert_marker(event: Event, call: cst.Call, label: str) -> Optional[Marker]:
    func = call.func
    assert isinstance(func, cst.Attribute)
    model = (dotted_name(func.value) or "").replace(".objects", "").split(".")[-1]
    statuses = {
        a.keyword.value: a.value for a in call.args if a.keyword is not None
    }
    for field, value in statuses.items():
        if catalog.STATUS_FIELDS.match(field):
            if _is_done_state(value):
                return Marker(call, event, label, dedup=False, field=field, created=True)
            return None
    if model and catalog.names_dedup_table(model):
        return Marker(call, event, label, dedup=True)
    return None


def _sql_marker(event: Event, call: cst.Call, facts: "TaskFacts", label: str) -> Optional[Marker]:
    knowledge, guards = facts.knowledge, facts.guards
    if guards.inserts_for_good(event):
        # The rows it returns are the ones this run inserted; committed,
        # they record the work as taken for good, whatever it turns out to be.
        commit = _committed_after(event, knowledge.trace)
        if commit is None:
            return None
        return Marker(call, commit, f"{label} inserting the rows that record the work", dedup=False, claim=event)
    statement = call.args[0].value
    if isinstance(statement, cst.Name):
        statement = knowledge.visible_value(statement.value, event.scope) or statement
    text = knowledge.string_value(statement, event.scope)
    if text is not None:
        match = catalog.SQL_INSERT.search(text)
        if match and match.group(1).lower().startswith("insert"):
            if catalog.names_dedup_table(match.group(2)):
                return Marker(call, event, label, dedup=True)
        if match and catalog.SQL_DONE_STATE.search(text):
            return Marker(call, event, label, dedup=False)
        return None
    for inner in _inner_calls(statement):
        if dotted_name(inner.func) == "insert" and inner.args:
            table = dotted_name(inner.args[0].value) or ""
            if catalog.names_dedup_table(table.split(".")[-1]):
                return Marker(call, event, label, dedup=True)
        if isinstance(inner.func, cst.Attribute) and inner.func.attr.value == "values":
            for arg in inner.args:
                if arg.keyword is not None and _is_done_field(arg.keyword.value, arg.value):
                    return Marker(call, event, label, dedup=False, field=arg.keyword.value)
    return None


def _committed_after(event: Event, trace: Trace) -> Optional[Event]:
    """The ``commit()`` of the session that ran a statement, later in the
    same function: until then a crash rolls the rows back with the work."""
    call = event.node
    assert isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
    session = dotted_name(call.func.value)
    if session is None:
        return None
    for later in trace.after(event):
        if (
            later.kind == "call"
            and later.scope is event.scope
            and isinstance(later.node, cst.Call)
            and isinstance(later.node.func, cst.Attribute)
            and later.node.func.attr.value in ("commit", "acommit")
            and dotted_name(later.node.func.value) == session
            and happens_before(event, later)
        ):
            return later
    return None


def _inner_calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    if isinstance(node, cst.Call):
        yield node
    for child in children(node):
        yield from _inner_calls(child)


def _records_earlier_work(marker: Marker, facts: "TaskFacts") -> bool:
    """Whether the marker comes after a side effect its own function made
    (``push(finding); ra.handled = now(); ra.save(); notify(...)``): it
    records that work, which is done, not the work after it.  An enqueue
    before it does not count: it may be bookkeeping (a log entry's
    notification), deferred to the commit, or the very work still to come."""
    write = marker.write
    chain = write.scope.chain
    return any(
        event.seq < write.seq and event.scope.chain[: len(chain)] == chain and happens_before(event, write)
        for event in facts.side_effects
    )


def _first_work_after(marker: Marker, facts: "TaskFacts") -> Optional[Event]:
    trace, knowledge = facts.trace, facts.knowledge
    write = marker.write
    chain = write.scope.chain
    for event in trace.after(write):
        if event.kind != "call":
            continue
        if write.transaction is not None and event.transaction == write.transaction:
            continue
        if not _is_work(event, marker, knowledge) or not happens_before(write, event):
            continue
        apart = marker.created or marker.claim is not None or event.scope.chain[: len(chain)] != chain
        if apart and not _checked_before(marker, event, facts):
            continue
        if not _enabled_by(marker, event, facts):
            return event
    return None


def _checked_before(marker: Marker, work: Event, facts: "TaskFacts") -> bool:
    """Whether the route checks the marker before ``work``, for work that
    runs after the marker's own function returned, or after a row created
    in its done state: the task tests ``receipt.status == "sent"``, calls
    ``_mark_sent(receipt)``, then sends; only then does a redelivery skip
    the work on the lying marker.  A helper that records its own outcome
    (``mark_failed(attempt)``) says nothing about the work its caller goes
    on to when nothing there reads what it wrote.  A marker with no field
    (a key, a dedup row) is checked by any done-check; a claim's rows, by
    covering the work."""
    guards = facts.guards
    if marker.claim is not None:
        return guards.covers(marker.claim, work)  # the rows it inserted decide the work
    checks = guards.checks_before(work)
    if marker.field is None:
        return bool(checks)
    return any(_reads_field(check.value or check.node, marker.field) for check in checks)


def _reads_field(node: cst.CSTNode, field: str) -> bool:
    """Whether an expression reads ``field``: ``receipt.status``, or a
    query on it (``filter(status="sent")``, ``sent_at__isnull=False``)."""
    return any(
        (isinstance(part, cst.Attribute) and part.attr.value == field)
        or (isinstance(part, cst.Arg) and part.keyword is not None and part.keyword.value.split("__")[0] == field)
        for part in descendants(node)
    )


def _enabled_by(marker: Marker, work: Event, facts: "TaskFacts") -> bool:
    """Whether the work runs because the marker's state holds: in the body
    of an ``if``, after the marker, whose test (directly or through the
    local holding it) is true when ``order.status == Order.STATUS_PAID``,
    after ``order.status = Order.STATUS_PAID``. The state is then what the
    work needs, and a redelivery finding it does the work, not skip it."""
    if marker.field is None or marker.state is None or marker.receiver is None:
        return False
    for step in work.path:
        check = facts.checks_by_node.get(step.container)
        if step.kind != "If" or step.branch != "body" or check is None or check.value is None:
            continue
        if check.seq < marker.write.seq:
            continue
        test = check.value
        if isinstance(test, cst.Name):
            test = facts.knowledge.visible_value(test.value, check.scope) or test
        if any(_tests_state(part, marker) for part in _alternatives(test)):
            return True
    return False


def _alternatives(test: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The parts of a test joined by ``and``/``or``: each one that holds
    may let the body run (a part under ``not`` does the opposite)."""
    if isinstance(test, cst.BooleanOperation):
        yield from _alternatives(test.left)
        yield from _alternatives(test.right)
    else:
        yield test


def _tests_state(node: cst.BaseExpression, marker: Marker) -> bool:
    """``order.status == Order.STATUS_PAID`` on the marker's object and state, either way round."""
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return False
    target = node.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = (node.left, target.comparator)
    return any(
        isinstance(one, cst.Attribute)
        and one.attr.value == marker.field
        and dotted_name(one.value) == marker.receiver
        and source_text(other) == marker.state
        for one, other in (sides, sides[::-1])
    )


def _is_work(event: Event, marker: Marker, knowledge: Knowledge) -> bool:
    """What the trace shows: a side effect or an enqueue, on the normal path
    (an exception handler is not the work); a project call the walk followed
    is judged by what it reaches, not by its name."""
    if in_a_handler(event):
        return False
    if knowledge.is_side_effect(event) or bool(event.enqueued):
        return True
    if event.followed or marker.claim is not None:
        return False  # a claim's rows may be plain data: only an effect is its work
    if catalog.matches_any(catalog.BOOKKEEPING_CALLS, event.callee):
        return False
    if knowledge.lock_api(event) is not None:
        return False
    call = event.node
    assert isinstance(call, cst.Call)
    if marker.dedup:
        return not _is_exception(call)
    if _outside_the_project(call, event):
        return False  # a library's effects are the catalogue's to know, not its names'
    names = (event.callee or "").replace("()", "").split(".")
    # ``send_receipt.delay()`` does what its receiver says; ``signal.send()``
    # on an object we cannot resolve says nothing by itself.
    verbs = names[-2:-1] if names[-1] in catalog.DISPATCH_METHODS else names[-1:]
    # ``SyncRecord(...)`` builds an object: a class's name is a noun, whatever its first word.
    return any(_leading_word(name) in catalog.WORK_VERBS for name in verbs if not name[:1].isupper())


def _is_local_object(receiver: cst.BaseExpression, event: Event) -> bool:
    """``order.mark_paid()`` on a row the task holds, not on a module-level
    service object (``debounce_cache.mark_task_done()``)."""
    root = dotted_name(receiver)
    if root is None:
        return False
    name = root.split(".")[0]
    index = event.scope.index
    return name not in ("self", "cls") and name not in index.imports and name not in index.constants


def _outside_the_project(call: cst.Call, event: Event) -> bool:
    """A call through an import from another top-level package than this
    module's own (``metrics_sdk.push_scope`` in ``metrics.tasks``)."""
    module = event.scope.module.name
    spelled = dotted_name(call.func)
    if "." not in module or spelled is None:
        return False
    imported = event.scope.index.imports.get(spelled.split(".")[0])
    if imported is None or imported.startswith("."):
        return False
    return imported.split(".")[0] != module.split(".")[0]


def _leading_word(name: str) -> str:
    match = catalog.WORD.search(name)
    return match.group(0).lower() if match else ""


def _is_exception(call: cst.Call) -> bool:
    name = dotted_name(call.func) or ""
    return name.endswith(("Error", "Exception")) or name.split(".")[-1] in ("retry", "Retry", "Reject")
