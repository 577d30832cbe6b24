"""IDM013 unguarded-side-effect."""

from __future__ import annotations

from typing import Iterator, Tuple

from idemlint.semantic.trace import Event, call_label
from idemlint.effects import starts_task
from idemlint.facts import TaskFacts
from idemlint.guards import message_effect
from idemlint.rules.base import TaskRule, Violation, where


class UnguardedSideEffect(TaskRule):
    code = "IDM013"
    name = "unguarded-side-effect"
    summary = "An email, SMS, push or chat message is sent with no done-check or claim"
    what = (
        "Finds side effects that have no idempotency key at all (e-mail: Django "
        "`send_mail`/`EmailMessage.send`, `smtplib`, SES `send_email`, SendGrid, "
        "anymail, post_office; SMS, push and chat: Twilio `messages.create`, Vonage, "
        "Firebase, APNs, web push, Slack `chat_postMessage`, Discord, Telegram, "
        "Teams; tickets and comments: Zendesk, Jira, GitHub, GitLab, HubSpot; "
        "sends to Kafka and Pub/Sub; the whole list is docs/catalogue.md) "
        "reached in a task with no done-check and no claim before them. A check "
        "on unrelated state (`if appt.cancelled: return`, `if not user.is_active: "
        "return`) is not a done-check; nor is a check that *exits* when the work "
        "is not done, or one that runs the effect when it *is* done. Enqueueing "
        "a project task that sends such a message with no check of its own "
        "(`send_email.delay(...)`, `queue.enqueue(send_email, ...)`) is "
        "reported at the enqueue, naming that task; the task's own send keeps "
        "its own finding."
    )
    why = (
        "A worker crash after the send but before the ack, an expired "
        "visibility timeout, a retry after a later step failed, or a manual "
        "replay runs the task again, and the provider has no key to recognise "
        "the duplicate: the customer gets the message again, every time."
    )
    fix = (
        "Record that the message was sent (a `sent_at` field, a dedup row, a "
        "cache key) after sending it, return early when it is already recorded, "
        "and claim the work atomically before sending (a conditional `update()`, "
        "`get_or_create`, or `SET NX EX`) so concurrent deliveries do not both send."
    )
    example = '''\
@shared_task
def send_shipping_notice(order_id):
    order = Order.objects.get(pk=order_id)
    send_mail("Shipped", f"Tracking: {order.tracking}", None, [order.email])
'''
    use_instead = '''\
@shared_task
def send_shipping_notice(order_id):
    claimed = Order.objects.filter(
        pk=order_id, notice_state="pending"
    ).update(notice_state="sending")
    if not claimed:
        return
    order = Order.objects.get(pk=order_id)
    send_mail("Shipped", f"Tracking: {order.tracking}", None, [order.email])
    Order.objects.filter(pk=order_id).update(notice_state="sent")
'''
    limits = (
        "Only catalogued non-keyable APIs (and those added in configuration) are "
        "known. A claim before the send silences the rule; a lock released "
        "after the send (its `with` block ends, `release()` on the name holding "
        "it, a delete of its key) is no such claim, and the message names it. "
        "A lock a project context manager releases after its `yield` is not "
        "seen as released (its body is read where the `with` enters it). "
        "A done-check whose test idemlint cannot "
        "read (a helper with an unrevealing name) is reported. A task enqueued "
        "by name (`send_task(\"...\")`) is not looked into."
    )

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        trace, knowledge = facts.trace, facts.knowledge
        for event in trace.calls():
            effect = message_effect(knowledge, event)
            enqueued = knowledge.enqueued_message(event) if effect is None else None
            if effect is None and enqueued is None:
                continue
            guards = facts.guards
            if guards.checked_before(event) is not None:
                continue
            lock = facts.lock_let_go_around(event)
            if lock is None and guards.claimed_before(event) is not None:
                continue
            call = f"`{call_label(event.node)}` in {where(event, trace.task.name)}"  # type: ignore[arg-type]
            label = effect.label if effect is not None else enqueued.label  # type: ignore[union-attr]
            if enqueued is None:
                does, guard = f"sends the {label}", "with no done-check or claim before it"
                related: Tuple[Tuple[Event, str], ...] = ()
            else:
                does = (
                    f"{starts_task(event)} task `{enqueued.task}`, which sends the {label} "
                    "with no check of its own,"
                )
                guard = "and nothing here checks or claims the work before it"
                related = ((enqueued.event, f"task `{enqueued.task}` sends the {label} here"),)
            if lock is not None:
                guard = (
                    f"under a lock (`{call_label(lock.node)}`) that is released after it, "  # type: ignore[arg-type]
                    "with no done-check or claim that outlasts it"
                )
                related = ((lock, "the lock is taken here"), *related)
            again = "after the release" if lock is not None else "of the task"
            yield Violation(
                event.node,
                f"{call} {does} {guard}; every redelivery {again} sends the {label} again",
                event=event,
                related=related,
            )
