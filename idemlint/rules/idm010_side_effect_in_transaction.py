"""IDM010 side-effect-in-transaction."""

from __future__ import annotations

from typing import Iterator, Optional, Tuple

import libcst as cst

from idemlint.analysis import Event, Trace, call_label
from idemlint.effects import Knowledge, SubTaskEffect, starts_task
from idemlint.fixes import UNSAFE
from idemlint.calls import assigned_in
from idemlint.names import Resolver, descendants
from idemlint.rules.base import NodeEdit, SuggestedFix, TaskRule, Violation, where
from idemlint.statements import alone_on_its_line, is_call_statement, placed_with


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

    def check(self, trace: Trace, knowledge: Knowledge) -> Iterator[Violation]:
        for event in trace.calls():
            if event.transaction is None:
                continue
            kind = _effect_kind(event, knowledge)
            enqueued = _enqueued_in_transaction(event, knowledge) if kind is None else ()
            if kind is None and not enqueued:
                continue
            opened = trace.transactions.get(event.transaction, "a database transaction")
            call = f"`{call_label(event.node)}` in {where(event, trace.task.name)}"  # type: ignore[arg-type]
            if enqueued:
                sub = enqueued[0]
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
                f"inside {opened}: a rollback cannot undo the {kind} call, so if the "
                "transaction rolls back or the worker dies before the commit, the call "
                "stands, its record is lost and the redelivered task makes it again; "
                "the DB connection is also held across the network call",
                event=event,
                fix=_after_commit(event, trace),
            )


def _effect_kind(event: Event, knowledge: Knowledge) -> Optional[str]:
    """``Stripe``, ``HTTP``, ``email``: what the side effect is, or None."""
    keyable = knowledge.keyable_effect(event)
    if keyable is not None:
        return keyable.label
    non_keyable = knowledge.non_keyable_effect(event)
    return non_keyable.label if non_keyable is not None else None


def _enqueued_in_transaction(event: Event, knowledge: Knowledge) -> Tuple[SubTaskEffect, ...]:
    """The effects of the task this call enqueues, unless its class puts
    the enqueue off until the transaction commits (a run is never put off)."""
    effects = knowledge.enqueued_effects(event)
    if effects and effects[0].after_commit and starts_task(event) == "enqueues":
        return ()
    return effects


def _after_commit(event: Event, trace: Trace) -> Optional[SuggestedFix]:
    """The call handed to Django's ``transaction.on_commit(lambda: ...)``,
    where that is the same call made later: a statement of its own, alone
    on its line, whose result nothing reads, and the last of the block of
    a transaction Django's ``atomic`` opened in the same function (nothing
    runs between it and the commit that could change what the lambda
    reads); outside any loop (a lambda would see the loop variable's last
    value); and with ``on_commit`` reachable by a name the module already
    imports.  Unsafe: the call now happens after the commit,
    or not at all when the transaction rolls back."""
    call = event.node
    if not isinstance(call, cst.Call) or not event.discarded:
        return None
    if any(step.kind == "Loop" and step.branch == "body" for step in event.path):
        return None
    # What a lambda cannot hold (``await``, ``yield``) or would take from the
    # function (``n := ...``), and exceptions handled around it (unbound at commit).
    if any(isinstance(node, (cst.Await, cst.Yield, cst.NamedExpr)) for node in descendants(call)):
        return None
    if any(step.kind == "Try" and step.branch.startswith("handler") for step in event.path):
        return None
    if not _opened_by_django(event, trace) or not alone_on_its_line(event.scope.function, call):
        return None
    if not _last_in_the_transaction(event, call):
        return None
    hook = _on_commit_name(event.scope.resolver)
    if hook is None or _shadowed_locally(hook.split(".", 1)[0], event.scope.function):
        return None
    code = cst.Module([]).code_for_node(call)
    return SuggestedFix(
        f"Make `{call_label(call)}` after the commit, with `{hook}`", UNSAFE,
        (NodeEdit(call, f"{hook}(lambda: {code})"),),
    )


def _last_in_the_transaction(event: Event, call: cst.Call) -> bool:
    """Whether the call is the last statement of the block the transaction
    is (the ``with atomic():`` body, the item alone, or the decorated
    function's body), in the same function: nothing then runs between it
    and the commit that could change what the deferred lambda reads."""
    function = event.scope.function
    if id(function) == event.transaction:
        block = function.body
    else:
        placed = placed_with(function, event.transaction) if event.transaction is not None else None
        # Another item of the ``with`` (a file) would close before the commit.
        if placed is None or len(placed.node.items) != 1:
            return False
        block = placed.node.body
    return isinstance(block, cst.IndentedBlock) and bool(block.body) and is_call_statement(block.body[-1], call)


def _opened_by_django(event: Event, trace: Trace) -> bool:
    """Whether the transaction the event runs in is Django's ``atomic`` on
    the default database (``on_commit`` without ``using=`` hooks that one),
    and the only one open: an enclosing ``atomic`` would defer the call to
    its own commit, after code the lambda's names may see change."""
    opened = [
        other
        for other in trace.events
        if other.kind == "call"
        and (other.callee or "").startswith(_DJANGO_ATOMIC)
        and any(step.kind == "With" and step.branch == "items" for step in other.path)
    ]
    containers = {step.container for step in event.path if step.kind == "With" and step.branch == "body"}
    around = [
        other for other in opened
        if any(step.container in containers for step in other.path if step.kind == "With" and step.branch == "items")
    ]
    decorated = [
        d for d in event.scope.function.decorators
        if (event.scope.resolver.resolve(d.decorator) or "").startswith(_DJANGO_ATOMIC)
    ]
    if len(around) + len(decorated) != 1:
        return False
    if decorated:
        spelled = decorated[0].decorator
        return id(event.scope.function) == event.transaction and not (isinstance(spelled, cst.Call) and spelled.args)
    call = around[0].node
    return isinstance(call, cst.Call) and not call.args and any(
        step.kind == "With" and step.branch == "items" and step.container == event.transaction for step in around[0].path
    )


def _shadowed_locally(name: str, function: cst.FunctionDef) -> bool:
    """A parameter or local of the function with the name the fix would call through."""
    params = function.params
    spelled = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    spelled |= {p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)}
    return name in spelled or name in assigned_in(function)


def _on_commit_name(resolver: Resolver) -> Optional[str]:
    """How the module spells Django's ``on_commit``: ``transaction.on_commit``, or an imported ``on_commit``."""
    for name, bound in sorted(resolver.imports.items()):
        if bound == "django.db.transaction":
            return f"{name}.on_commit"
        if bound == "django.db.transaction.on_commit":
            return name
    return None


_DJANGO_ATOMIC = "django.db.transaction.atomic"
