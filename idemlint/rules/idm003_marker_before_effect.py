"""IDM003 marker-before-effect."""

from __future__ import annotations

from typing import Iterator

from idemlint.semantic.trace import call_label
from idemlint.facts import TaskFacts
from idemlint.rules.base import TaskRule, Violation, where


class MarkerBeforeEffect(TaskRule):
    code = "IDM003"
    name = "marker-before-effect"
    summary = "A 'done' marker is written before the side effect it records"
    what = (
        "Finds writes that mark work as done (a `status = \"paid\"`/`\"sent\"`/"
        "`\"done\"` saved or updated, a `notified = True` style flag, a cache or "
        "Redis key of done/processed/idempotency work, a row in a processed or "
        "dedup table, a row moved out of the state a loop selects it by, such "
        "as `invite.status = EXPIRED` over `filter(status=PENDING)`, whatever "
        "the new state is called, saved or written by `bulk_update()`, a "
        "watermark the run selects its work by, `filter(created__gte=since)` "
        "with `since = task.last_run_at`, advanced by `update(last_run_at=...)`) that "
        "run before the side effect or work they record, outside one "
        "transaction with it. The work is what the trace shows: a catalogued "
        "side effect or an enqueue on the normal path, not in an `except` "
        "handler. A marker written after a side effect of its own function "
        "(`push(...)`, then `handled_at = now()`, then a courtesy notice) "
        "records that effect, and is not reported. A marker records the work "
        "of the function that writes it: work its caller goes on to after "
        "it returns counts only when the route checks the marker (its field; "
        "for a key, any done-check) before that work (`if receipt.status == \"sent\": return`, then "
        "`_mark_sent(receipt)`, then the send), since only then does a "
        "redelivery skip it. A save that also writes a state leaving work to "
        "do (`status = AWAITING_RETRY` beside `sent = now()`) writes no "
        "marker, and a row created in its done state (`create(state=PAID)`) "
        "is one only where the route checks that state before the work. "
        "Rows inserted as a claim (`INSERT ... ON CONFLICT DO "
        "NOTHING RETURNING`, its result read) are a marker of the side "
        "effects and enqueues the claim covers once its session commits them: then they say "
        "\"notified\" and the redelivery, inserting nothing, skips the mail."
    )
    why = (
        "If the worker dies between the marker and the effect, the marker says "
        "the work is done while it is not. The redelivered task (or any check on "
        "the marker) skips it: the email is never sent, the customer is never "
        "charged, the webhook is never handled."
    )
    fix = (
        "Write a *pending* state first if you need a claim, do the side effect, "
        "then write the done marker. For database-only work, put the marker and "
        "the work in one `transaction.atomic()` block."
    )
    example = '''\
@shared_task
def send_receipt(order_id):
    order = Order.objects.get(id=order_id)
    order.receipt_sent = True
    order.save()
    send_mail("Your receipt", render_receipt(order), None, [order.email])
'''
    use_instead = '''\
@shared_task
def send_receipt(order_id):
    order = Order.objects.get(id=order_id)
    send_mail("Your receipt", render_receipt(order), None, [order.email])
    order.receipt_sent = True
    order.save(update_fields=["receipt_sent"])
'''
    limits = (
        "Markers are recognised by field, state and key names (see the "
        "catalogue). A project call the walk does not follow (past the event "
        "budget, or not resolved) counts as work when its name says it does the "
        "work (`charge`, `send`, `notify`...); one it follows is judged by what "
        "it reaches. A claim's rows are taken to record every effect after "
        "them that the claim covers, whether or not the rows returned "
        "decide which ones run."
    )

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        task = facts.task.name
        for early in facts.early_markers:
            marker, effect = early.marker, early.work
            written = where(marker.write, task)
            done = where(effect, task)
            placed = (
                f"before `{call_label(effect.node)}` in {written}"  # type: ignore[arg-type]
                if done == written
                else f"in {written} before `{call_label(effect.node)}` in {done}"  # type: ignore[arg-type]
            )
            yield Violation(
                marker.report,
                f"{marker.text} is written {placed}; if the worker dies in "
                "between, the marker says done and the retry skips the work",
                event=marker.write,
            )
