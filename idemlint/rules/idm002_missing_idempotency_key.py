"""IDM002 missing-idempotency-key."""

from __future__ import annotations

from typing import Iterator, Optional

from idemlint import catalog
from idemlint.semantic.trace import Event, Trace, call_label, source_text
from idemlint.effects import Knowledge, is_none, key_argument
from idemlint.fixes import UNSAFE
from idemlint.names import in_a_loop
from idemlint.facts import TaskFacts
from idemlint.rules.base import SuggestedFix, TaskRule, Violation, where
from idemlint.rules.edits import idempotency_header_added, key_keyword_given, without_shared_keys
from idemlint.unit_of_work import identifying_arguments, operation_of, work_key


class MissingIdempotencyKey(TaskRule):
    code = "IDM002"
    name = "missing-idempotency-key"
    summary = "A keyable side effect in a task is called without an idempotency key"
    what = (
        "Finds calls to APIs that accept an idempotency key (Stripe, YooKassa, "
        "Square, Adyen, Checkout.com, payment gateways, HTTP POST and PATCH "
        "through requests, httpx, aiohttp or urllib3) made from a task without one. "
        "A `**` mapping it can read (a dict literal, a wrapper's `**params` "
        "filled in by the call that names them) holds the key or not, and a key "
        "that is `None` on some path (a default the call leaves, a branch that "
        "sets none, a parameter whose walked callers pass `None`) counts as "
        "missing, as a key argument does. A call that passes a `**` mapping, or "
        "a `headers=`/`options=` variable, whose "
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
        "the module's constants filled in, the path given to `urljoin`, or a "
        "relative path joined to the `base_url` an httpx client was made with) ends, "
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

    fix_availability = (
        "Sometimes, unsafe (`--fix --unsafe-fixes`), for a call in the task's own "
        "body: a key built from the task's name, the operation and the task's "
        "arguments whose names say they identify the work "
        "(`f\"charge-order-charge-create-{order_id}\"`; `order_id`, `pk`, `invoice_uuid`, "
        "`slug`, not one that defaults to `None`), so that two calls of one task never "
        "share it, is passed as the SDK takes one, by the keyword the catalogue names "
        "(`idempotency_key=` for Stripe, YooKassa, Adyen, Checkout.com and Mollie, "
        "`dedup_key=` for PagerDuty, `message_id=` for Segment) or in place of the "
        "`None` passed for it; an HTTP request gets an `Idempotency-Key` header, "
        "as `headers=` or as an entry of the `headers=` dict literal it passes. "
        "Unsafe because the key now repeats on purpose: check that the arguments "
        "name one unit of work, and for HTTP that the server honours the header. "
        "Not offered in a helper (its callers may do other work), in a loop or a "
        "comprehension (every pass would send the same key), where two calls of the "
        "task would get the same key, after a bare generator argument, when no argument "
        "identifies the work, where the arguments are splatted or the headers are "
        "a variable, nor for an API whose key the catalogue cannot pass as a keyword "
        "(StripeClient's options, Square's two SDKs, request objects)."
    )

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        return iter(without_shared_keys(list(self._violations(facts))))

    def _violations(self, facts: TaskFacts) -> Iterator[Violation]:
        trace, knowledge = facts.trace, facts.knowledge
        for event in trace.calls():
            effect = knowledge.keyable_effect(event)
            if effect is None or knowledge.has_idempotency_key(event, effect):
                continue
            guards = facts.guards
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
                f"`{call_label(event.node)}` in {where(event, trace.task.name)} "  # type: ignore[arg-type]
                f"{_how_the_key_is_missing(event, effect, knowledge)}; a redelivered task "
                f"{effect.consequence}{note}",
                event=event,
                fix=_key_passed(event, effect, trace),
            )


_NONE_ON_A_PATH = "which is `None` on some path (a default the call leaves, a branch that sets none)"


def _how_the_key_is_missing(event: Event, effect: catalog.KeyableEffect, knowledge: Knowledge) -> str:
    """No key at all, a key argument that is ``None`` on some path, or a
    key entry of a ``**`` mapping the call passes that is."""
    given = key_argument(event, effect)
    if given is not None and not is_none(given):
        return f"passes the idempotency key `{source_text(given)}`, {_NONE_ON_A_PATH}"
    mapping = knowledge.mapping_naming_the_key(event, effect) if given is None else None
    if mapping is not None:
        where = "a `**` mapping" if mapping == "**" else f"`{mapping}=`"
        return f"passes an idempotency key in {where}, {_NONE_ON_A_PATH}"
    return "is called without an idempotency key"


def _key_passed(event: Event, effect: catalog.KeyableEffect, trace: Trace) -> Optional[SuggestedFix]:
    """A key naming the task's unit of work, passed as the SDK takes one
    (its key keyword; an ``Idempotency-Key`` header for HTTP), by a call in
    the task's own body: a helper's callers may do other work."""
    call = event.call
    key = work_key(trace.task, operation_of(event.callee))
    if call is None or not event.scope.is_task or key is None:
        return None
    if in_a_loop(event.scope.function, call):
        return None  # every pass would send the same key
    names = ", ".join(f"`{name}`" for name in identifying_arguments(trace.task))
    if effect.url_position is not None:
        edit = idempotency_header_added(call, effect, key)
        title = f"Send an `{catalog.IDEMPOTENCY_HEADER}` header built from the task's {names}"
    elif effect.key_keyword:
        edit = key_keyword_given(call, effect, key)
        title = f"Pass `{effect.key_keyword}` built from the task's {names}"
    else:
        return None
    return SuggestedFix(title, UNSAFE, (edit,)) if edit is not None else None
