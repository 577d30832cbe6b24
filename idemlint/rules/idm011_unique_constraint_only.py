"""IDM011 unique-constraint-only."""

from __future__ import annotations

from typing import Iterator

from idemlint.semantic.trace import call_label, happens_before
from idemlint.facts import TaskFacts
from idemlint.rules.base import TaskRule, Violation, where

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

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        inserts = facts.unique_inserts
        if not inserts:
            return
        for event in facts.side_effects:
            insert = next(
                (i for i in inserts if i.event.seq > event.seq and happens_before(event, i.event)),
                None,
            )
            if insert is None:
                continue
            guards = facts.guards
            if guards.claimed_before(event) is not None:
                continue
            yield Violation(
                event.node,
                f"`{call_label(event.node)}` in {where(event, facts.task.name)} runs "  # type: ignore[arg-type]
                f"before `{insert.label}`, whose `{insert.error}` "
                "is the only duplicate check; with no lock or claim before it, a "
                "redelivered or concurrent run repeats the external call and the "
                "constraint rejects only the second row",
                event=event,
            )
