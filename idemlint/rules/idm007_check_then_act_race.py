"""IDM007 check-then-act-race."""

from __future__ import annotations

from typing import Iterator, Optional, Tuple

from idemlint.semantic.trace import Event, call_label
from idemlint.effects import Knowledge, starts_task
from idemlint.facts import TaskFacts
from idemlint.guards import message_effect, tested_code
from idemlint.rules.base import TaskRule, Violation, where


class CheckThenActRace(TaskRule):
    code = "IDM007"
    name = "check-then-act-race"
    summary = "A done-check guards a side effect, but nothing claims the work atomically"
    what = (
        "Finds side effects guarded by a done-check (`if cache.get(key): return`, "
        "`if order.status == \"paid\": return`, `if Sent.objects.filter(...).exists(): "
        "return`, `if not order.notified: send(...)`) with no atomic claim of the "
        "work held when the effect runs: no `SET NX`, `get_or_create` whose "
        "`created` flag is read, unique insert caught by `IntegrityError`, or "
        "conditional `update()` whose row count is used, and no lock "
        "(`redis.lock`, `select_for_update`) taken *before* the check. Applies to "
        "effects without an idempotency key: emails, SMS, push and chat messages, "
        "and keyable calls (charges, HTTP POSTs) made without a key."
    )
    why = (
        "Queues redeliver concurrently too: an expired visibility timeout hands "
        "the message to a second worker while the first still runs it, and a "
        "duplicate publish starts two copies at once. Both read the state before "
        "either writes it, both pass the check, and both send the email or make "
        "the charge. The check only protects against a redelivery that starts "
        "after the first run finished."
    )
    fix = (
        "Claim the work atomically before the effect: a conditional `update()` "
        "from a pending state (`filter(pk=pk, notified=False, sending=False)."
        "update(sending=True)`), `get_or_create` of a dedup row, or `SET NX EX` "
        "of a dedup key; or take a lock with a TTL and run the done-check "
        "*inside* it. For keyable APIs, passing a deterministic idempotency key "
        "lets the provider drop the concurrent duplicate."
    )
    example = '''\
@shared_task
def send_welcome_email(user_id):
    user = User.objects.get(pk=user_id)
    if user.welcome_sent:
        return
    send_mail("Welcome", "...", None, [user.email])
    User.objects.filter(pk=user_id).update(welcome_sent=True)
'''
    use_instead = '''\
@shared_task
def send_welcome_email(user_id):
    claimed = User.objects.filter(
        pk=user_id, welcome_state="pending"
    ).update(welcome_state="sending")
    if not claimed:
        return
    user = User.objects.get(pk=user_id)
    send_mail("Welcome", "...", None, [user.email])
    User.objects.filter(pk=user_id).update(welcome_state="sent")
'''
    limits = (
        "Done-checks are recognised by what the test reads (cache/Redis lookups, "
        "`.exists()`/`.count()`/`.first()`, status fields compared to a done "
        "state, done flags such as `notified` or `sent_at`, helpers named like "
        "`already_sent()` or returning such a read) and by its polarity; a loop "
        "over a query filtered to undone rows (`filter(sent_at__isnull=True)`, "
        "`filter(status=\"pending\")`) guards its body the same way, and so "
        "does one filtered on any state of a status field (a literal, a "
        "constant, an enum member) when the loop's body, or an `update()` of "
        "that query after it, writes another state of that field. A Redis list "
        "of pending items (`LRANGE`, `SMEMBERS`, `HGETALL`) tested and deleted "
        "later in the same function is a done-check too. Any "
        "claim in the task counts, whether or not it is on the same key or row. "
        "A lock is trusted when a done-check runs after it is taken."
    )

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        trace, knowledge = facts.trace, facts.knowledge
        for event in trace.calls():
            consequence = _unprotected_effect(event, knowledge)
            if consequence is None:
                continue
            guards = facts.guards
            check = guards.race_window(event)
            if check is None:
                continue
            if check.kind == "check":
                guard = f"runs after the done-check `{tested_code(check)}`"
                slipped = "the done-check two concurrent deliveries both pass"
            else:
                guard = f"runs for rows selected as not done by `{tested_code(check)}`"
                slipped = "the selection of rows not done, which two overlapping runs both make"
            yield Violation(
                event.node,
                f"`{call_label(event.node)}` in {where(event, trace.task.name)} "  # type: ignore[arg-type]
                f"{guard} but nothing "
                "claims the work atomically before it (no lock, SET NX, "
                "select_for_update, get_or_create or conditional update); two "
                f"concurrent deliveries both pass the check and {consequence}",
                event=event,
                related=((check, slipped), *_enqueued_places(event, knowledge)),
            )


def _unprotected_effect(event: Event, knowledge: Knowledge) -> Optional[str]:
    """What a duplicate of this call does, if nothing downstream drops it."""
    if knowledge.non_keyable_effect(event) is not None:
        effect = message_effect(knowledge, event)  # None: a sender task enqueued by name
        return None if effect is None else f"both send the {effect.label}"
    keyable = knowledge.keyable_effect(event)
    if keyable is not None and not knowledge.has_idempotency_key(event, keyable):
        return f"the unkeyed {keyable.label} call {keyable.consequence}"
    enqueued = knowledge.enqueued_effects(event)
    if enqueued:
        return f"both {starts_task(event)[:-1]} task `{enqueued[0].task}`, which {enqueued[0].consequence} unguarded"
    return None


def _enqueued_places(event: Event, knowledge: Knowledge) -> Tuple[Tuple[Event, str], ...]:
    """Where the task an enqueue starts makes the effect the race repeats."""
    return tuple(
        (effect.event, f"task `{effect.task}` {effect.consequence} here")
        for effect in knowledge.enqueued_effects(event)[:1]
    )
