"""IDM011 unique-constraint-only."""

from __future__ import annotations

import re
from typing import Iterator, List

import libcst as cst

from idemlint import catalog
from idemlint.analysis import Event, Trace, call_label, happens_before
from idemlint.effects import Knowledge
from idemlint.guards import Guards
from idemlint.names import dotted_name
from idemlint.rules.base import TaskRule, Violation, where

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


class UniqueConstraintOnly(TaskRule):
    code = "IDM011"
    name = "unique-constraint-only"
    summary = (
        "A side effect runs before the insert whose unique constraint is the "
        "only duplicate check"
    )
    what = (
        "Finds side effects (payments, HTTP POST/PATCH, email, SMS, "
        "push, chat) followed by a database insert (`Model.objects.create`, "
        "`bulk_create`, `save`, `session.add(...)` flushed by `commit`/`flush`, "
        "a raw `INSERT` through `execute`) whose `IntegrityError` (Django, "
        "SQLAlchemy, psycopg2 `UniqueViolation`, pymongo `DuplicateKeyError`) is "
        "caught to detect a duplicate, when no lock or claim (`set nx`, "
        "`redis.lock`, `select_for_update`, `get_or_create`, an earlier guarded "
        "insert) comes before the side effect."
    )
    why = (
        "The unique constraint stops the second *row*, not the second *call*. "
        "When the task is redelivered, or two workers run it at the same "
        "moment, both reach the external call before either insert fails: the "
        "customer is charged twice or the webhook is delivered twice, and the "
        "`IntegrityError` handler then quietly treats the duplicate as success."
    )
    fix = (
        "Claim the unit of work before the side effect: insert the row first "
        "(status `pending`) and return on `IntegrityError`, take a lock "
        "(`set(key, token, nx=True, ex=ttl)`), or lock the row with "
        "`select_for_update`; then do the side effect and mark the row done. "
        "Keep the constraint as the second line of defence."
    )
    example = '''\
@shared_task
def charge_customer(idempotency_key, order_id, amount_cents):
    charge_id = payment_gateway.charge(order_id=order_id, amount_cents=amount_cents,
                                       idempotency_key=idempotency_key)
    try:
        db.session.add(Charge(idempotency_key=idempotency_key, order_id=order_id,
                              gateway_charge_id=charge_id))
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
'''
    use_instead = '''\
@shared_task
def charge_customer(idempotency_key, order_id, amount_cents):
    try:
        db.session.add(Charge(idempotency_key=idempotency_key, order_id=order_id,
                              status="pending"))
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        return  # another delivery owns (or finished) this charge
    charge_id = payment_gateway.charge(order_id=order_id, amount_cents=amount_cents,
                                       idempotency_key=idempotency_key)
    db.session.query(Charge).filter_by(idempotency_key=idempotency_key).update(
        {"status": "done", "gateway_charge_id": charge_id})
    db.session.commit()
'''
    limits = (
        "Only a duplicate error caught by a `try` around the insert (in the "
        "task or a helper it calls) counts; `INSERT ... ON CONFLICT DO NOTHING` "
        "checked through its row count, or a `get_or_create` whose `created` "
        "flag is tested after the effect, is not recognised. Any lock or claim "
        "before the effect silences the rule, even one on unrelated work."
    )

    def check(self, trace: Trace, knowledge: Knowledge) -> Iterator[Violation]:
        inserts = _guarded_inserts(trace, knowledge)
        if not inserts:
            return
        for event in trace.calls():
            if not knowledge.is_side_effect(event):
                continue
            insert = next(
                (i for i in inserts if i.seq > event.seq and happens_before(event, i)),
                None,
            )
            if insert is None:
                continue
            guards = Guards.of(trace, knowledge)  # built once per trace
            if guards.claimed_before(event) is not None:
                continue
            error = next(
                name for name in insert.caught if catalog.DUPLICATE_ERRORS.search(name)
            )
            yield Violation(
                event.node,
                f"`{call_label(event.node)}` in {where(event, trace.task.name)} runs "  # type: ignore[arg-type]
                f"before `{_insert_label(insert.node)}`, whose `{error.split('.')[-1]}` "  # type: ignore[arg-type]
                "is the only duplicate check; with no lock or claim before it, a "
                "redelivered or concurrent run repeats the external call and the "
                "constraint rejects only the second row",
                event=event,
            )


def _guarded_inserts(trace: Trace, knowledge: Knowledge) -> List[Event]:
    """Row writes inside a ``try`` whose handler catches a duplicate error."""
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
