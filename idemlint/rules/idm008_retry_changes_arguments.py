"""IDM008 retry-changes-arguments."""

from __future__ import annotations

from typing import Iterator

from idemlint.semantic.trace import call_label, source_text
from idemlint.facts import TaskFacts
from idemlint.rules.base import TaskRule, Violation, where


class RetryChangesArguments(TaskRule):
    code = "IDM008"
    name = "retry-changes-arguments"
    summary = "A task retries or re-enqueues itself with changed arguments"
    what = (
        "Finds `self.retry(args=..., kwargs=...)` in a bound Celery task "
        "(`bind=True` or a `Task` subclass) whose values are not the task's own "
        "arguments passed through unchanged (an attempt counter, a refreshed "
        "token, `{**self.request.kwargs, \"attempt\": n}`), and a task that "
        "re-enqueues itself with changed arguments: `<this task>.delay(...)`, "
        "`.apply_async(args=..., kwargs=...)`, `self.apply_async(...)`, Dramatiq "
        "`<actor>.send(...)` / `send_with_options(args=...)`, RQ "
        "`queue.enqueue(<this function>, ...)`, `<this task>.s(...).apply_async()`, "
        "taskiq `<task>.kiq(...)`, Huey "
        "`<task>(...)` / `.schedule(args=...)` and arq `enqueue_job(\"<this "
        "function>\", ...)`. `self.retry()` without `args`/`kwargs`, "
        "`self.request.args`/`self.request.kwargs`, and parameters passed on "
        "under their own name and position are pass-through."
    )
    why = (
        "A task's arguments name its unit of work, and everything that makes a "
        "redelivery harmless is derived from them: the idempotency key sent to "
        "the provider, the lock key, the dedup row. A retry with new arguments is "
        "a different unit of work: its keys no longer match the ones the first "
        "attempt used, so the provider, the lock and the dedup table all see new "
        "work. And because the original message can still be redelivered (or "
        "the enqueueing attempt itself runs twice), the old and the new unit both "
        "run. `self.request.retries` counts attempts without changing the arguments."
    )
    fix = (
        "Retry with the original arguments (`raise self.retry(exc=exc, "
        "countdown=...)`), read the attempt number from `self.request.retries`, "
        "and fetch refreshed state (tokens, cursors) inside the task instead of "
        "passing it in. Work that must continue with new arguments belongs to a "
        "follow-up enqueued once, under a key derived from the original arguments."
    )
    example = '''\
@shared_task(bind=True, max_retries=5)
def charge_order(self, order_id, attempt=0):
    try:
        gateway.charge(order_id, idempotency_key=f"charge-{order_id}-{attempt}")
    except GatewayTimeout as exc:
        raise self.retry(exc=exc, args=(order_id, attempt + 1), countdown=30)
'''
    use_instead = '''\
@shared_task(bind=True, max_retries=5)
def charge_order(self, order_id):
    try:
        gateway.charge(order_id, idempotency_key=f"charge-{order_id}")
    except GatewayTimeout as exc:
        countdown = 30 * 2 ** self.request.retries
        raise self.retry(exc=exc, countdown=countdown)
'''
    limits = (
        "Arguments are followed through local variables and same-module helper "
        "parameters; a whole `args=`/`kwargs=` value built by a call or read from "
        "elsewhere is not judged. Leaving a trailing argument out is not reported "
        "(Celery's retry keeps the request's own kwargs). A value equal to an "
        "argument but read from another object (`order.id` for `order_id`) "
        "counts as changed. A signature applied directly "
        "(`task.s(...).apply_async()`) is judged; one passed through `chain`, "
        "`group` or a variable is not seen."
    )

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        for found in facts.self_enqueues:
            call, event, change = found.call, found.event, found.change
            label = call_label(call)
            if label.startswith("...."):
                label = f"{source_text(call.func, 48)}()"
            place = where(event, facts.task.name)
            if found.retry:
                yield Violation(
                    call,
                    f"`{label}` in {place} retries the task with {change}; the "
                    "retry is a different unit of work, so idempotency keys and "
                    "locks derived from the arguments drift between attempts and "
                    "no longer match the work the first attempt already did",
                    event=event,
                )
            else:
                yield Violation(
                    call,
                    f"`{label}` in {place} re-enqueues the task itself with {change}; "
                    "the new message is a different unit of work whose keys no "
                    "longer match the original's, and every redelivery of this task "
                    "enqueues it again",
                    event=event,
                )
