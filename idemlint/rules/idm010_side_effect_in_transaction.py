"""IDM010 side-effect-in-transaction."""

from __future__ import annotations

from typing import Iterator, Optional

from idemlint.semantic.trace import call_label
from idemlint.effects import starts_task
from idemlint.facts import TaskFacts
from idemlint.facts.in_transaction import EffectInTransaction
from idemlint.fixes import UNSAFE
from idemlint.rules.base import NodeEdit, SuggestedFix, TaskRule, Violation, where


class SideEffectInTransaction(TaskRule):
    code = "IDM010"
    name = "side-effect-in-transaction"
    summary = "A side effect runs inside a database transaction"
    what = (
        "Finds catalogued side effects (payments, HTTP POST/PATCH, "
        "email, SMS, push, chat messages) executed inside a database transaction: "
        "a `with transaction.atomic():` block, a function decorated with "
        "`@transaction.atomic` (the task itself or a helper it calls), a "
        "SQLAlchemy `session.begin()`/`engine.begin()`/`Session.begin()` block, "
        "their `async with` forms, an ORM's `db.atomic()` or `conn.transaction()`, "
        "the `transaction` package's `transaction.manager`, Pyramid's `request.tm`, "
        "a project context manager or decorator that opens any of these around "
        "its `yield` or the function it wraps, a task class whose `__call__` runs "
        "the task's body inside one (`base=AtomicTask`), and helpers called "
        "inside any of them. "
        "Callbacks registered with `transaction.on_commit(...)` run after the "
        "commit and are not reported. Enqueueing a project task that makes such "
        "an effect unguarded (`send_receipt.delay(...)`) is reported at the "
        "enqueue, unless the task's `base=` class's `apply_async` hands the "
        "enqueue to `transaction.on_commit`."
    )
    why = (
        "A rollback undoes the rows, not the charge, the email or the webhook. "
        "When the transaction rolls back after the call (a later query fails, "
        "a constraint fires at commit, the worker is killed before the commit), "
        "the outside world has seen the effect while the database has no record "
        "of it, and the redelivered task does it again. Meanwhile the database "
        "connection, and any row locks taken with `select_for_update`, stay held "
        "for the whole network round trip, which under load exhausts the pool "
        "and blocks other workers."
    )
    fix = (
        "Keep the transaction for database work only: claim or record the work "
        "inside it, commit, then perform the side effect after the block, or "
        "register it with `transaction.on_commit(...)` so it runs only once the "
        "rows are committed."
    )
    example = '''\
@shared_task
def charge_order(order_id):
    with transaction.atomic():
        order = Order.objects.select_for_update().get(pk=order_id)
        stripe.PaymentIntent.create(amount=order.total, currency="eur",
                                    customer=order.customer_id, confirm=True,
                                    idempotency_key=f"charge-order-{order_id}")
        order.status = "paid"
        order.save(update_fields=["status"])
'''
    use_instead = '''\
@shared_task
def charge_order(order_id):
    with transaction.atomic():
        order = Order.objects.select_for_update().get(pk=order_id)
        if order.status != "new":
            return
        order.status = "charging"
        order.save(update_fields=["status"])
    stripe.PaymentIntent.create(amount=order.total, currency="eur",
                                customer=order.customer_id, confirm=True,
                                idempotency_key=f"charge-order-{order_id}")
    Order.objects.filter(pk=order_id).update(status="paid")
'''
    limits = (
        "Transactions are recognised by the context managers and decorators in "
        "the catalogue (`transaction.atomic`, `*.begin()`, `*.begin_nested()`, "
        "`*.transaction()`); a project's own context manager that opens a "
        "transaction, or a psycopg2 connection used as `with conn:`, is not. A "
        "transaction opened by the caller that enqueued the task (or by Huey's "
        "or Django's request-level wrappers) is not seen either."
    )

    fix_availability = (
        "Sometimes, unsafe (`--fix --unsafe-fixes`), for Django: the call becomes "
        "`transaction.on_commit(lambda: <call>)`, spelled with the name the module "
        "imports (`transaction.on_commit`, or an imported `on_commit`). Unsafe "
        "because the call then happens after the commit, and not at all when the "
        "transaction rolls back. Offered only for a statement of its own, alone "
        "on its line, whose result nothing reads, the last of the block of a "
        "transaction Django's `atomic` opened in the same function (nothing then "
        "changes what the lambda reads before the commit), outside any loop (each lambda would see the loop "
        "variable's last value), where the module already imports "
        "`django.db.transaction` or its `on_commit`."
    )

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        for found in facts.effects_in_transactions:
            event, opened = found.event, found.opened
            call = f"`{call_label(event.node)}` in {where(event, facts.task.name)}"  # type: ignore[arg-type]
            if found.enqueued:
                sub = found.enqueued[0]
                started = starts_task(event)
                undone = (
                    "the enqueue, so the call is made for work that never committed (and may "
                    "run before the commit), and the redelivered task enqueues it again"
                    if started == "enqueues"
                    else "the call, so it stands while the work it records is rolled back, "
                    "and the redelivered task makes it again"
                )
                yield Violation(
                    event.node,
                    f"{call} runs inside {opened} and {started} task `{sub.task}`, which "
                    f"{sub.consequence} unguarded: a rollback cannot undo {undone}",
                    event=event,
                    related=((sub.event, f"task `{sub.task}` {sub.consequence} here"),),
                )
                continue
            yield Violation(
                event.node,
                f"{call} runs "
                f"inside {opened}: a rollback cannot undo the {found.kind} call, so if the "
                "transaction rolls back or the worker dies before the commit, the call "
                "stands, its record is lost and the redelivered task makes it again; "
                "the DB connection is also held across the network call",
                event=event,
                fix=_after_commit(found),
            )


def _after_commit(found: EffectInTransaction) -> Optional[SuggestedFix]:
    """The call handed to Django's ``on_commit``.  Unsafe: the call now
    happens after the commit, or not at all when the transaction rolls back."""
    if found.deferred is None:
        return None
    call, hook = found.event.node, found.hook
    return SuggestedFix(
        f"Make `{call_label(call)}` after the commit, with `{hook}`", UNSAFE,  # type: ignore[arg-type]
        (NodeEdit(call, found.deferred),),
    )
