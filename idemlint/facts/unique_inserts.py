"""Unique inserts: row writes whose duplicate error is caught (IDM011).

A task that inserts a row inside a ``try`` whose handler catches the
unique constraint's duplicate error (``IntegrityError``,
``UniqueViolation``, ``DuplicateKeyError``) relies on that constraint to
stop a second run.  :func:`unique_inserts` finds those writes: a side
effect made before one, with no claim, is repeated by every redelivery.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, List, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.semantic.trace import Event, call_label
from idemlint.names import dotted_name

if TYPE_CHECKING:
    from idemlint.facts import TaskFacts

# Writes that insert a row (or, for ``save``, may), and so raise the
# duplicate error of a unique constraint.
_ROW_WRITES = catalog.INSERT_METHODS | frozenset(
    {
        "acreate", "aget_or_create", "abulk_create", "save", "asave",
        "add", "add_all", "insert_one", "insert_many",
    }
)
# Calls that flush rows added to an ORM session earlier.
_FLUSHES = frozenset({"commit", "flush"})
_SESSION_ADDS = frozenset({"add", "add_all"})
_SQL_WRITE = re.compile(r"\b(insert|update|upsert|merge)\b", re.IGNORECASE)


@dataclass(frozen=True)
class UniqueInsert:
    """A row write at ``event`` (``label``: ``Charge(...).save()``) whose
    duplicate error ``error`` (``IntegrityError``) a handler catches."""

    event: Event
    label: str
    error: str


def unique_inserts(facts: "TaskFacts") -> Tuple[UniqueInsert, ...]:
    """Row writes inside a ``try`` whose handler catches a duplicate error, in order."""
    found: List[UniqueInsert] = []
    for event in _guarded_inserts(facts):
        assert isinstance(event.node, cst.Call)
        error = next(name for name in event.caught if catalog.DUPLICATE_ERRORS.search(name))
        found.append(UniqueInsert(event, _insert_label(event.node), error.split(".")[-1]))
    return tuple(found)


def _guarded_inserts(facts: "TaskFacts") -> List[Event]:
    """Row writes inside a ``try`` whose handler catches a duplicate error."""
    trace, knowledge = facts.trace, facts.knowledge
    found: List[Event] = []
    added = False
    for event in trace.calls():
        call = event.node
        func = call.func if isinstance(call, cst.Call) else None
        if not isinstance(call, cst.Call) or not isinstance(func, cst.Attribute):
            continue
        method = func.attr.value
        if method in _SESSION_ADDS:
            added = True
        if not any(catalog.DUPLICATE_ERRORS.search(name) for name in event.caught):
            continue
        if knowledge.lock_api(event) is not None:
            continue  # ``cache.add(key, ...)`` is a lock, not a row
        if method in _ROW_WRITES or (method in _FLUSHES and added):
            found.append(event)
        elif method in catalog.SQL_EXECUTE_METHODS and call.args:
            statement = call.args[0].value
            text = knowledge.string_value(statement, event.scope)
            if text is None or _SQL_WRITE.search(text):
                found.append(event)
    return found


def _insert_label(call: cst.Call) -> str:
    """``Charge(...).save()`` where :func:`call_label` would say ``....save()``."""
    func = call.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call):
        model = dotted_name(func.value.func)
        if model is not None:
            return f"{model}(...).{func.attr.value}()"
    return call_label(call)
