"""IDM002 missing-idempotency-key."""

from __future__ import annotations

from typing import Iterator

from idemlint.analysis import Trace, call_label
from idemlint.effects import Knowledge
from idemlint.guards import Guards
from idemlint.rules.base import TaskRule, Violation, where


class MissingIdempotencyKey(TaskRule):
    code = "IDM002"
    name = "missing-idempotency-key"
    summary = "A keyable side effect in a task is called without an idempotency key"
    what = (
        "Finds calls to APIs that accept an idempotency key (Stripe, YooKassa, "
        "Square, Adyen, Checkout.com, payment gateways, HTTP POST and PATCH "
        "through requests, httpx, aiohttp or urllib3) made from a task without one. "
        "A call that passes `**kwargs`, or a `headers=`/`options=` variable whose "
        "content cannot be seen, gets the benefit of the doubt; a headers dict is "
        "read with the entries added to it after its literal "
        "(`headers[\"Idempotency-Key\"] = key`), and given the benefit of the doubt "
        "only when one of them cannot be read (`headers.update(extra)`)."
        " A call that a test-and-set claim of the work covers (`if not r.set(key, 1, nx=True, "
        "ex=...): return`, a conditional `UPDATE`) is not reported: a redelivery "
        "stops at the claim; a lock held around the call is no such claim."
        "\n\n"
        "HTTP is read by its own semantics (RFC 9110, section 9.2.2): `PUT` and "
        "`DELETE` are idempotent, a second request leaves the state the first one "
        "left, so they are not reported unless the catalogue knows an API that "
        "breaks this; `GET`, `HEAD` and `OPTIONS` are safe. A `POST` that exchanges "
        "credentials for a token or a session is read-like and not reported either: "
        "one whose URL (a literal, the literal parts of an f-string or a `+`, with "
        "the module's constants filled in, or the path given to `urljoin`) ends, "
        "after dropping the query and ignoring case, `-` and `_`, in the path "
        "segment `token`, `login` or `signin`, or in `token/refresh`, "
        "`oauth/access_token` or `oauth2/access_token`. So `/oauth/token`, "
        "`/oauth2/v2.0/token`, `/auth/token/`, `/api/v1/auth/login` and "
        "`/users/sign_in` are exchanges, while `/tokens`, `/tokens/revoke-all`, "
        "`/token/{id}/revoke`, `/login-attempts` and `https://token.example.com/charges` "
        "are not: only the end of the path decides, never a word anywhere in the URL."
    )
    why = (
        "Every durable queue delivers at least once: a worker killed after the "
        "charge but before the ack, an expired visibility timeout or a retry "
        "after partial success runs the task again, and the provider sees a "
        "brand-new request. Stripe's and YooKassa's SDKs add a random key per "
        "request when you pass none; that protects only the SDK's own network "
        "retries, never a redelivered task."
    )
    fix = (
        "Pass a key derived from the task's own arguments (the unit of work), "
        "for example `f\"charge-order-{order_id}\"`, or one created by the caller "
        "and passed in. For HTTP, send it as an `Idempotency-Key` header."
    )
    example = '''\
@shared_task(acks_late=True)
def charge_order(order_id):
    order = Order.objects.get(id=order_id)
    stripe.PaymentIntent.create(amount=order.total, currency="eur",
                                customer=order.customer_id)
'''
    use_instead = '''\
@shared_task(acks_late=True)
def charge_order(order_id):
    order = Order.objects.get(id=order_id)
    stripe.PaymentIntent.create(amount=order.total, currency="eur",
                                customer=order.customer_id,
                                idempotency_key=f"charge-order-{order_id}")
'''
    limits = (
        "Only APIs in the catalogue (and those added in configuration) are "
        "known. A key hidden behind a variable we cannot see is assumed present. "
        "An HTTP API whose `PUT` or `DELETE` is not idempotent (one that appends "
        "or counts on `PUT`) is reported only once the catalogue names it. A "
        "token exchange is assumed to be one by its path alone: an endpoint named "
        "`/token` that changes state would be missed, and a URL built from values "
        "we cannot read is always an effect."
    )

    def check(self, trace: Trace, knowledge: Knowledge) -> Iterator[Violation]:
        for event in trace.calls():
            effect = knowledge.keyable_effect(event)
            if effect is None or knowledge.has_idempotency_key(event, effect):
                continue
            guards = Guards.of(trace, knowledge)  # built once per trace
            claim = guards.claimed_before(event)
            if claim is not None and not guards.is_lock(claim):
                continue  # a test-and-set claim of the work: a redelivery stops there
            note = ""
            if effect.sdk_random_key:
                note = (
                    f" (the {effect.label} SDK's automatic key covers only its own "
                    "network retries, not a redelivered task)"
                )
            yield Violation(
                event.node,
                f"`{call_label(event.node)}` in {where(event, trace.task.name)} is "  # type: ignore[arg-type]
                f"called without an idempotency key; a redelivered task "
                f"{effect.consequence}{note}",
                event=event,
            )
