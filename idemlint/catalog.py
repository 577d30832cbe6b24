"""What idemlint knows about the outside world, as data.

Every entry is matched against a *resolved* callee name: the dotted name of
the called expression after the module's own imports and simple local
bindings have been applied.  ``import stripe as s; s.Charge.create(...)``
resolves to ``stripe.Charge.create``; ``session = requests.Session()`` then
``session.post(...)`` resolves to ``requests.Session().post``.  A ``()``
segment marks "an instance created by calling this".

Patterns are globs: ``*`` matches any run of characters (dots included) and
``{a,b}`` matches either alternative.  Rules never spell API names; they ask
this module.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple, TypeVar


MAX_GLOB_ALTERNATIVES = 1024
"""How many patterns one glob's ``{a,b}`` groups may expand to."""


@dataclass(frozen=True)
class Glob:
    """A catalogue glob, compiled: ``*`` matches any run of characters and
    ``{a,b}`` either alternative.

    Matched without backtracking, in time linear in the name for a given
    pattern, whatever the user configures: a regex of several ``.*`` takes
    time exponential in their number on a name that almost matches.  Each
    ``{a,b}`` expansion is kept as the literal parts between its stars; a
    name matches one when it starts with the first part, ends with the last
    and holds the others in order in between.  Taking each middle part at
    its leftmost occurrence is never wrong (a later occurrence leaves less
    room for the parts after it), so each part is searched for once.
    """

    exact: FrozenSet[str]  # the expansions without a star
    # The others: (first part, last part, the parts between, the least length).
    wild: Tuple[Tuple[str, str, Tuple[str, ...], int], ...]
    ignore_case: bool = False

    def matches(self, name: str) -> bool:
        # Called for every catalogue entry and every name a run resolves:
        # one loop, string methods only.
        if self.ignore_case:
            name = name.lower()
        if name in self.exact:
            return True
        size = len(name)
        for first, last, middle, least in self.wild:
            if size >= least and name.startswith(first) and name.endswith(last):
                if not middle or _in_order(middle, name, len(first), size - len(last)):
                    return True
        return False


def compile_glob(pattern: str, *, ignore_case: bool = False) -> Glob:
    """The :class:`Glob` of ``pattern``; ``ValueError`` (saying why) for a
    ``{`` without ``}``, a stray ``}``, nested braces, or more than
    ``MAX_GLOB_ALTERNATIVES`` expansions."""
    if ignore_case:
        pattern = pattern.lower()
    choices = _brace_choices(pattern)
    count = 1
    for choice in choices:
        count *= len(choice)
        if count > MAX_GLOB_ALTERNATIVES:
            raise ValueError(f"its braces expand to more than {MAX_GLOB_ALTERNATIVES} alternatives")
    expanded = ["".join(texts) for texts in itertools.product(*choices)]
    wild = (_star_parts(text) for text in dict.fromkeys(expanded) if "*" in text)
    return Glob(
        frozenset(text for text in expanded if "*" not in text),
        tuple((parts[0], parts[-1], parts[1:-1], len(parts[0]) + len(parts[-1])) for parts in wild),
        ignore_case,
    )


def _brace_choices(pattern: str) -> List[Tuple[str, ...]]:
    """``a{b,c}d`` -> ``[("a",), ("b", "c"), ("d",)]``."""
    choices: List[Tuple[str, ...]] = []
    literal_start = position = 0
    while position < len(pattern):
        char = pattern[position]
        if char == "}":
            raise ValueError("'}' without '{'")
        if char != "{":
            position += 1
            continue
        end = pattern.find("}", position)
        if end < 0:
            raise ValueError("'{' without '}'")
        inner = pattern[position + 1 : end]
        if "{" in inner:
            raise ValueError("nested '{'")
        choices += [(pattern[literal_start:position],), tuple(inner.split(","))]
        literal_start = position = end + 1
    return [*choices, (pattern[literal_start:],)]


def _star_parts(text: str) -> Tuple[str, ...]:
    """The literal parts between the stars; several stars in a row are one."""
    parts = text.split("*")
    if len(parts) <= 2:
        return tuple(parts)
    return (parts[0], *(part for part in parts[1:-1] if part), parts[-1])


def _in_order(parts: Tuple[str, ...], name: str, start: int, end: int) -> bool:
    """Whether ``parts`` occur in ``name[start:end]`` in order, without overlapping."""
    for part in parts:
        found = name.find(part, start, end)
        if found < 0:
            return False
        start = found + len(part)
    return True


# --------------------------------------------------------------------------
# Side effects


@dataclass(frozen=True)
class KeyableEffect:
    """An API that accepts an idempotency key.

    ``key_position`` is the positional index at which the key may be passed
    (YooKassa's ``Payment.create(params, key)``).  ``url_position`` marks an
    HTTP call and says where its URL is (or ``url=``); its method is the
    argument at ``method_position`` (``request(method, url)``) or else the
    verb the callee is named after (``post``), and the call is an effect only
    for :data:`KEYABLE_HTTP_METHODS` (or an :data:`IDEMPOTENT_HTTP_METHODS`
    method a :class:`NonIdempotentHttpApi` names).  ``opaque_positional`` means positional dict
    arguments (request bodies, option objects) may carry the key, so one we
    cannot see earns the benefit of the doubt.  ``sdk_random_key`` marks SDKs
    that generate a random key per request when none is passed.
    ``key_names`` are the entry's own key parameters, beside the accepted
    spellings: a keyword argument, or an entry of a dict passed positionally
    or in a key container (PagerDuty's ``dedup_key``, PostHog's ``uuid``),
    compared without case, ``-`` or ``_``.  ``key_keyword`` is the keyword
    argument the SDK takes its key as, where IDM002's fix passes one (empty:
    none the fix can pick; an HTTP call gets a header instead).
    ``payload_classes`` are the SDK's
    request objects (globs over resolved names, Opsgenie's
    ``CreateAlertPayload``), whose keyword arguments are read as a dict's
    entries are.  ``family``, ``library`` (the
    distribution on PyPI) and ``read`` (the version and file or page its
    signature was read from) are what docs/catalogue.md shows.
    """

    pattern: str
    label: str
    consequence: str
    key_position: Optional[int] = None
    method_position: Optional[int] = None
    url_position: Optional[int] = None
    opaque_positional: bool = False
    sdk_random_key: bool = False
    ignore_case: bool = False
    key_containers: Tuple[str, ...] = ("headers", "options", "request_options", "extra_headers")
    key_names: Tuple[str, ...] = ()
    key_keyword: str = ""
    payload_classes: Tuple[str, ...] = ()
    family: str = ""
    library: str = ""
    read: str = ""


@dataclass(frozen=True)
class NonKeyableEffect:
    """An API with no idempotency key: a second call is a second message.
    ``dedup_names`` are the arguments some of its targets deduplicate on
    (SQS and SNS FIFO queues and topics: ``MessageDeduplicationId``, also
    inside each of a batch's ``Entries``): a call that passes one is no
    repeated message, and a random value there is IDM001's.  ``family``,
    ``library`` and ``read`` as for :class:`KeyableEffect`."""

    pattern: str
    label: str
    family: str = ""
    library: str = ""
    read: str = ""
    dedup_names: Tuple[str, ...] = ()


@lru_cache(maxsize=8)
def method_names(patterns: Tuple[str, ...]) -> Glob:
    """The method names ``patterns`` end in, as one glob (``post`` for
    ``requests.*().post``, ``send_*`` for ``telegram.*().send_*``): what a
    call's name must match before it is worth asking which library class
    the method comes from.  Everything, should the names not fit one glob."""
    finals: Set[str] = set()
    for pattern in patterns:
        try:
            choices = _brace_choices(pattern)
        except ValueError:
            return compile_glob("*")
        for texts in itertools.product(*choices):
            finals.add("".join(texts).rsplit(".", 1)[-1].replace("()", "") or "*")
    try:
        return compile_glob("{" + ",".join(sorted(finals)) + "}")
    except ValueError:
        return compile_glob("*")


@lru_cache(maxsize=None)
def dedup_key_effect(effect: NonKeyableEffect) -> KeyableEffect:
    """A message API's dedup arguments read the way an idempotency key is:
    as a keyword, an entry of a dict passed positionally or splatted, or in
    each entry of a batch's ``Entries``."""
    return KeyableEffect(
        effect.pattern,
        effect.label,
        "",
        key_containers=("Entries", "PublishBatchRequestEntries"),
        key_names=effect.dedup_names,
        family=effect.family,
        library=effect.library,
    )


# The HTTP verbs a client is called by; which of them are effects is decided
# by the method (see KEYABLE_HTTP_METHODS), not by the pattern.
_HTTP_VERBS = "{post,put,patch,delete}"
_HTTP_REPEAT = "sends the request again and the server applies it twice"
HTTP_READ = (
    "requests 2.34.2, src/requests/api.py (post(url, data=None, json=None, **kwargs), "
    "request(method, url, **kwargs)), sessions.py (Session.request(method, url, ...)); "
    "httpx 0.28.1, httpx/_api.py, _client.py (request(method, url, *, ...)); "
    "aiohttp 3.14.3, aiohttp/client.py (ClientSession.request(method, url, **kwargs), post(url, *, data=None, ...))"
)
REQUESTS_HARDENED_READ = (
    "1.0.0, requests_hardened/manager.py (Manager.send_request(method, url, **kwargs); "
    "Manager.get_session() returns an HTTPSession, a requests.Session)"
)
URLLIB3_READ = (
    "urllib3 2.7.0, src/urllib3/__init__.py (request(method, url, *, body=None, fields=None, "
    "headers=None, ..., json=None)), _request_methods.py (RequestMethods.request(method, url, ...)), "
    "connectionpool.py (urlopen(method, url, body=None, headers=None, ...))"
)
BIGQUERY_READ = (
    "google-cloud-bigquery 2.x+, google/cloud/bigquery/client.py (insert_rows_json(table, "
    "json_rows, row_ids=AutoRowIDs.GENERATE_UUID, ...); insert_rows passes **kwargs on)"
)
YOOKASSA_READ = (
    "yookassa 3.13.0, src/yookassa/payment.py (create(params, idempotency_key=None), "
    "capture(payment_id, params=None, idempotency_key=None), "
    "cancel(payment_id, idempotency_key=None); uuid4() when none is given)"
)

KEYABLE_EFFECTS: Tuple[KeyableEffect, ...] = (
    KeyableEffect(
        "stripe.StripeClient().*.{create,create_*,capture,confirm,pay,refund}",
        "Stripe",
        "charges the customer or creates the object twice",
        opaque_positional=True,
        sdk_random_key=True,
        family="payments",
        library="stripe",
        read="stripe-python 15.3.1, stripe/_stripe_client.py (StripeClient.v1.*), _request_options.py "
        "(options={\"idempotency_key\": ...})",
    ),
    KeyableEffect(
        "stripe.*.{create,create_*,capture,confirm,pay,refund,"
        "finalize_invoice,increment_authorization}",
        "Stripe",
        "charges the customer or creates the object twice",
        sdk_random_key=True,
        key_keyword="idempotency_key",
        family="payments",
        library="stripe",
        read="stripe-python 15.3.1, stripe/_customer.py (Customer.create(**params); the params "
        "inherit RequestOptions, idempotency_key included)",
    ),
    KeyableEffect(
        "yookassa.*.create",
        "YooKassa",
        "charges the customer twice",
        key_position=1,
        sdk_random_key=True,
        key_keyword="idempotency_key",
        family="payments",
        library="yookassa",
        read=YOOKASSA_READ,
    ),
    KeyableEffect(
        "yookassa.*.capture",
        "YooKassa",
        "charges the customer twice",
        key_position=2,
        sdk_random_key=True,
        key_keyword="idempotency_key",
        family="payments",
        library="yookassa",
        read=YOOKASSA_READ,
    ),
    KeyableEffect(
        "yookassa.*.cancel",
        "YooKassa",
        "charges the customer twice",
        key_position=1,
        sdk_random_key=True,
        key_keyword="idempotency_key",
        family="payments",
        library="yookassa",
        read=YOOKASSA_READ,
    ),
    # Square's key is required by its API; a random one is the mistake (IDM001).
    # The new SDK takes it as a keyword, the legacy one (square_legacy since
    # v42) inside the body dict; capturing (complete) takes none.
    KeyableEffect(
        "{square,square_legacy}.*.{payments.create,payments.update,refunds.refund_payment,"
        "create_payment,update_payment,refund_payment}",
        "Square",
        "charges or refunds the customer twice",
        opaque_positional=True,
        key_containers=("body", "request", "options"),
        family="payments",
        library="squareup",
        read="45.1.0 (and 42.0, 43.2), src/square/payments/client.py (create(*, source_id, "
        "idempotency_key, ...)), refunds/client.py (refund_payment(*, idempotency_key, ...)); "
        "41.0.0, square/api/payments_api.py (create_payment(body)), refunds_api.py (refund_payment(body))",
    ),
    # Adyen sends Idempotency-Key only when one is passed, as an argument of
    # its own (never inside the request).
    KeyableEffect(
        "Adyen.*.{payments,cancel_authorised_payment,payout,make_instant_card_payout}",
        "Adyen",
        "charges or pays out twice",
        key_position=1,
        key_keyword="idempotency_key",
        family="payments",
        library="Adyen",
        read="15.0.2, Adyen/services/checkout/payments_api.py (payments(request, idempotency_key=None, "
        "**kwargs)), modifications_api.py, payouts/instant_payouts_api.py (payout(request, "
        "idempotency_key=None); make_instant_card_payout before 9.0.0)",
    ),
    KeyableEffect(
        "Adyen.*.{capture_authorised_payment,refund_captured_payment,"
        "cancel_authorised_payment_by_psp_reference,refund_or_cancel_payment}",
        "Adyen",
        "captures or refunds the payment twice",
        key_position=2,
        key_keyword="idempotency_key",
        family="payments",
        library="Adyen",
        read="15.0.2, Adyen/services/checkout/modifications_api.py (capture_authorised_payment(request, "
        "paymentPspReference, idempotency_key=None, **kwargs))",
    ),
    KeyableEffect(
        "checkout_sdk.*.{request_payment,request_payout}",
        "Checkout.com",
        "charges the customer or pays out twice",
        key_position=1,
        key_keyword="idempotency_key",
        family="payments",
        library="checkout-sdk",
        read="3.8.0, checkout_sdk/payments/payments_client.py (request_payment(payment_request, "
        "idempotency_key=None), request_payout(payout_request, idempotency_key=None))",
    ),
    KeyableEffect(
        "checkout_sdk.*.{capture_payment,refund_payment,void_payment,reverse_payment,"
        "increment_payment_authorization}",
        "Checkout.com",
        "captures or refunds the payment twice",
        key_position=2,
        key_keyword="idempotency_key",
        family="payments",
        library="checkout-sdk",
        read="3.8.0, checkout_sdk/payments/payments_client.py (capture_payment(payment_id, "
        "capture_request=None, idempotency_key=None); refund_payment, void_payment alike)",
    ),
    KeyableEffect(
        "{requests,httpx}." + _HTTP_VERBS,
        "HTTP",
        _HTTP_REPEAT,
        url_position=0,
        family="HTTP",
        library="requests, httpx",
        read=HTTP_READ,
    ),
    KeyableEffect(
        "{requests,httpx,aiohttp}.*()." + _HTTP_VERBS,
        "HTTP",
        _HTTP_REPEAT,
        url_position=0,
        family="HTTP",
        library="requests, httpx, aiohttp",
        read=HTTP_READ,
    ),
    KeyableEffect(
        "{requests,httpx,aiohttp}.request",
        "HTTP",
        _HTTP_REPEAT,
        method_position=0,
        url_position=1,
        family="HTTP",
        library="requests, httpx, aiohttp",
        read=HTTP_READ,
    ),
    KeyableEffect(
        "{requests,httpx,aiohttp}.*().request",
        "HTTP",
        _HTTP_REPEAT,
        method_position=0,
        url_position=1,
        family="HTTP",
        library="requests, httpx, aiohttp",
        read=HTTP_READ,
    ),
    # requests-hardened: a Manager sends through HTTPSession, a requests.Session.
    KeyableEffect(
        "requests_hardened.*Manager().send_request",
        "HTTP",
        _HTTP_REPEAT,
        method_position=0,
        url_position=1,
        family="HTTP",
        library="requests-hardened",
        read=REQUESTS_HARDENED_READ,
    ),
    KeyableEffect(
        "requests_hardened.*().request",
        "HTTP",
        _HTTP_REPEAT,
        method_position=0,
        url_position=1,
        family="HTTP",
        library="requests-hardened",
        read=REQUESTS_HARDENED_READ,
    ),
    KeyableEffect(
        "requests_hardened.*()." + _HTTP_VERBS,
        "HTTP",
        _HTTP_REPEAT,
        url_position=0,
        family="HTTP",
        library="requests-hardened",
        read=REQUESTS_HARDENED_READ,
    ),
    KeyableEffect(
        "urllib3.request",
        "HTTP",
        _HTTP_REPEAT,
        method_position=0,
        url_position=1,
        family="HTTP",
        library="urllib3",
        read=URLLIB3_READ,
    ),
    KeyableEffect(
        "urllib3.*().{request,urlopen}",
        "HTTP",
        _HTTP_REPEAT,
        method_position=0,
        url_position=1,
        family="HTTP",
        library="urllib3",
        read=URLLIB3_READ,
    ),
    KeyableEffect(
        "*gateway*.{charge,refund,capture,payout,transfer}",
        "payment gateway",
        "moves the money twice",
        ignore_case=True,
        family="payments",
    ),
    # Alerting and analytics: the receiver drops an event whose id it has seen.
    KeyableEffect(
        "pdpyras.EventsAPISession().trigger",
        "PagerDuty",
        "pages the on-call engineer again",
        key_position=2,
        key_names=("dedup_key",),
        key_keyword="dedup_key",
        family="alerting and analytics",
        library="pdpyras",
        read="pdpyras 5.x, pdpyras.py (EventsAPISession.trigger(summary, source, "
        "dedup_key=None, ...))",
    ),
    KeyableEffect(
        "pypd.{Event,EventV2}.create",
        "PagerDuty",
        "pages the on-call engineer again",
        key_containers=("data",),
        key_names=("dedup_key", "incident_key"),
        family="alerting and analytics",
        library="pypd",
        read="pypd 1.1.0, pypd/models/event.py (Event.create(data=None, api_key=None, "
        "endpoint=None, add_headers=None, **kwargs); EventV2 inherits it; the key "
        "is data's dedup_key, incident_key in v1 events)",
    ),
    KeyableEffect(
        "posthog.{capture,Posthog().capture,Client().capture,client.Client().capture}",
        "PostHog",
        "records the event twice",
        key_names=("uuid",),
        family="alerting and analytics",
        library="posthog",
        read="posthog-python 7.42.0, posthog/client.py (capture(event, **kwargs), uuid among "
        "them; before 6.0 capture(distinct_id, event, properties, ..., uuid=None)); the event "
        "is deduplicated on its uuid",
    ),
    KeyableEffect(
        "{analytics,segment.analytics}.{track,Client().track,client.Client().track}",
        "Segment",
        "records the event twice",
        key_position=7,
        key_names=("message_id",),
        key_keyword="message_id",
        sdk_random_key=True,
        family="alerting and analytics",
        library="segment-analytics-python",
        read="segment-analytics-python 2.x, segment/analytics/client.py (Client.track("
        "user_id, event, properties, context, timestamp, anonymous_id, integrations, "
        "message_id); uuid4() when none is given)",
    ),
    # E-mail
    KeyableEffect(
        "resend.{Emails,Batch}.send",
        "Resend",
        "sends the e-mail again",
        family="e-mail",
        library="resend",
        read="resend-python 2.x, resend/emails/_emails.py and _batch.py (send(params, "
        "options: SendOptions = None); SendOptions.idempotency_key is sent as "
        "Idempotency-Key)",
    ),
    # Queues, streams and warehouses
    KeyableEffect(
        "google.cloud.bigquery.*().insert_rows_json",
        "BigQuery",
        "inserts the rows twice",
        key_position=2,
        key_names=("row_ids",),
        sdk_random_key=True,
        family="queues, streams and warehouses",
        library="google-cloud-bigquery",
        read=BIGQUERY_READ,
    ),
    KeyableEffect(
        "google.cloud.bigquery.*().insert_rows",
        "BigQuery",
        "inserts the rows twice",
        key_names=("row_ids",),
        sdk_random_key=True,
        family="queues, streams and warehouses",
        library="google-cloud-bigquery",
        read=BIGQUERY_READ,
    ),
    # Payments
    KeyableEffect(
        "gocardless_pro.Client().{payments,refunds,subscriptions,instalment_schedules}.create",
        "GoCardless",
        "collects or refunds the payment twice",
        sdk_random_key=True,
        family="payments",
        library="gocardless-pro",
        read="gocardless-pro-python 3.6.3, gocardless_pro/services/payments_service.py "
        "(create(params=None, headers=None); Idempotency-Key header, uuid4() when none is given)",
    ),
    KeyableEffect(
        "paypalserversdk.*().orders.{create_order,authorize_order,capture_order}",
        "PayPal",
        "creates or captures the order twice",
        family="payments",
        library="paypal-server-sdk",
        read="PayPal-Python-Server-SDK 1.x, paypalserversdk/controllers/orders_controller.py "
        "(create_order(options), capture_order(options): options' paypal_request_id is "
        "sent as PayPal-Request-Id)",
    ),
    # Mollie has taken Idempotency-Key since 3.2.0; without one the SDK sends
    # a uuid4 of its own, new on every run.
    KeyableEffect(
        "mollie.api.*Client().*.create",
        "Mollie",
        "creates the payment or refunds it twice",
        key_position=1,
        sdk_random_key=True,
        key_keyword="idempotency_key",
        family="payments",
        library="mollie-api-python",
        read="4.0.0, mollie/api/resources/base.py (ResourceCreateMixin.create(data=None, "
        "idempotency_key=\"\", **params); uuid4() when none is given), resources/refunds.py",
    ),
    # Mixpanel and Amplitude deduplicate events on an insert id the SDK makes
    # up (uuid4) when the caller passes none: a rerun's event is a new one.
    KeyableEffect(
        "mixpanel.*Mixpanel().{track,import_data}",
        "Mixpanel",
        "records the event twice",
        sdk_random_key=True,
        key_containers=("properties",),
        key_names=("$insert_id",),
        family="alerting and analytics",
        library="mixpanel",
        read="5.3.0, mixpanel/__init__.py (track(distinct_id, event_name, properties=None, "
        "meta=None), import_data(...); $insert_id = uuid.uuid4().hex unless properties has one)",
    ),
    KeyableEffect(
        "amplitude.*Amplitude().track",
        "Amplitude",
        "records the event twice",
        sdk_random_key=True,
        key_names=("insert_id",),
        payload_classes=("amplitude.*{BaseEvent,Event,EventOptions}",),
        family="alerting and analytics",
        library="amplitude-analytics",
        read="1.2.3, src/amplitude/client.py (track(event)), event.py (BaseEvent(..., insert_id=None)), "
        "plugin.py (ContextPlugin: insert_id = str(uuid.uuid4()) when unset)",
    ),
    # Opsgenie folds alerts with the same alias into one.
    KeyableEffect(
        "opsgenie_sdk.*AlertApi().create_alert",
        "Opsgenie",
        "opens the alert again",
        key_containers=("create_alert_payload",),
        key_names=("alias",),
        payload_classes=("opsgenie_sdk.*CreateAlertPayload",),
        family="alerting and analytics",
        library="opsgenie-sdk",
        read="2.1.5, opsgenie_sdk/api/alert/__init__.py (AlertApi.create_alert(create_alert_payload, "
        "**kwargs)), create_alert_payload.py (CreateAlertPayload(..., alias=None, ...))",
    ),
    KeyableEffect(
        "airflow.providers.opsgenie.*OpsgenieAlertHook().create_alert",
        "Opsgenie",
        "opens the alert again",
        key_containers=("payload",),
        key_names=("alias",),
        family="alerting and analytics",
        library="apache-airflow-providers-opsgenie",
        read="5.11.1, airflow/providers/opsgenie/hooks/opsgenie.py (OpsgenieAlertHook.create_alert("
        "payload: dict | None = None), "
        "passed on as CreateAlertPayload(**payload))",
    ),
)

NON_KEYABLE_EFFECTS: Tuple[NonKeyableEffect, ...] = (
    # Braintree's transaction API takes no idempotency key.
    NonKeyableEffect(
        "braintree.{Transaction,BraintreeGateway().transaction}.{sale,credit}",
        "Braintree charge",
        family="payments",
        library="braintree",
        read="braintree_python 4.45.0, braintree/transaction_gateway.py (sale(params), "
        "credit(params): no key), transaction.py (Transaction.sale(params=None))",
    ),
    # Streams keep every message produced: a Kafka message key and a Pub/Sub
    # ordering key choose a partition or an order, and neither drops a repeat.
    NonKeyableEffect(
        "confluent_kafka.*Producer().produce",
        "Kafka message",
        family="queues, streams and warehouses",
        library="confluent-kafka",
        read="confluent-kafka-python 2.15.0, src/confluent_kafka/src/Producer.c (produce(topic, "
        "[value], [key], [partition], [on_delivery], [timestamp], [headers]): no dedup id)",
    ),
    NonKeyableEffect(
        "google.cloud.pubsub*.PublisherClient().publish",
        "Pub/Sub message",
        family="queues, streams and warehouses",
        library="google-cloud-pubsub",
        read="python-pubsub 2.35.0, google/cloud/pubsub_v1/publisher/client.py (publish(topic, "
        "data, ordering_key=\"\", **attrs): no dedup id)",
    ),
    NonKeyableEffect(
        "django.core.mail.{send_mail,send_mass_mail,mail_admins,mail_managers}",
        "email",
        family="e-mail",
        library="Django",
        read="5.1: django/core/mail/__init__.py",
    ),
    # EmailMessage(), EmailMultiAlternatives(), get_connection() and a backend.
    NonKeyableEffect(
        "django.core.mail.*().{send,send_messages}",
        "email",
        family="e-mail",
        library="Django",
        read="5.1: django/core/mail/message.py, django/core/mail/backends/base.py",
    ),
    NonKeyableEffect(
        "smtplib.*().{sendmail,send_message}",
        "email",
        family="e-mail",
        library="Python standard library",
        read="3.12: Lib/smtplib.py",
    ),
    NonKeyableEffect(
        "flask_mail.*().{send,send_message}",
        "email",
        family="e-mail",
        library="Flask-Mail",
        read="0.10.0: flask_mail/__init__.py (Mail, Connection, Message)",
    ),
    # The v3 fluent form, client.mail.send.post(), is left out for now: the one
    # place the judged applications use it sends only after a claim made in a
    # project helper, which IDM013 does not see yet, so it added a false finding.
    NonKeyableEffect(
        "sendgrid.*().send",
        "email",
        family="e-mail",
        library="sendgrid",
        read="6.11: sendgrid/base_interface.py",
    ),
    NonKeyableEffect(
        "boto3.*().{send_email,send_raw_email,send_templated_email,"
        "send_bulk_templated_email,send_bulk_email}",
        "email",
        family="e-mail",
        library="boto3",
        read="1.35: botocore/data/ses/2010-12-01 and sesv2/2019-09-27 service-2.json",
    ),
    # SQS and SNS drop a repeat only on a FIFO queue or topic, and only when
    # the call passes a deduplication id (or the queue deduplicates on content).
    NonKeyableEffect(
        "boto3.*().{send_message,send_message_batch,send_messages}",
        "SQS message",
        family="queues, streams and warehouses",
        library="boto3",
        read="botocore 1.43, data/sqs/2012-11-05/service-2.json (SendMessage, SendMessageBatch: "
        "MessageDeduplicationId, FIFO queues only); boto3 resources-1.json (Queue.send_message, "
        "send_messages)",
        dedup_names=("MessageDeduplicationId",),
    ),
    NonKeyableEffect(
        "boto3.*().{publish,publish_batch}",
        "SNS message",
        family="queues, streams and warehouses",
        library="boto3",
        read="botocore 1.43, data/sns/2010-03-31/service-2.json (Publish, PublishBatch: "
        "MessageDeduplicationId, FIFO topics only); boto3 resources-1.json (Topic.publish)",
        dedup_names=("MessageDeduplicationId",),
    ),
    # Kinesis and Firehose keep every record put (ExplicitHashKey and
    # SequenceNumberForOrdering route and order, they do not deduplicate).
    # SageMaker Feature Store's put_record, which overwrites, shares the name.
    NonKeyableEffect(
        "boto3.*().{put_record,put_records,put_record_batch}",
        "stream record",
        family="queues, streams and warehouses",
        library="boto3",
        read="botocore 1.43, data/kinesis/2013-12-02 and firehose/2015-08-04 service-2.json "
        "(PutRecord, PutRecords, PutRecordBatch: no dedup id)",
    ),
    NonKeyableEffect(
        "kafka.*KafkaProducer().send",
        "Kafka message",
        family="queues, streams and warehouses",
        library="kafka-python",
        read="3.0.11, kafka/producer/kafka.py (send(topic, value=None, key=None, headers=None, "
        "partition=None, timestamp_ms=None); the idempotent producer drops only its own retries)",
    ),
    NonKeyableEffect(
        "aiokafka.*AIOKafkaProducer().{send,send_and_wait,send_batch}",
        "Kafka message",
        family="queues, streams and warehouses",
        library="aiokafka",
        read="0.14.0, aiokafka/producer/producer.py (send, send_and_wait(topic, value=None, key=None, "
        "partition=None, timestamp_ms=None, headers=None), send_batch(batch, topic, *, partition))",
    ),
    # Razorpay's SDK sends no key; a refund repeated is a second refund.
    NonKeyableEffect(
        "razorpay.*Client().{payment.refund,refund.create}",
        "Razorpay refund",
        family="payments",
        library="razorpay",
        read="2.0.0, razorpay/resources/payment.py (refund(payment_id, data={}, **kwargs)), "
        "resources/refund.py (create(data={}, **kwargs)): no key",
    ),
    NonKeyableEffect(
        "paddle.*PaddleClient().{create_one_off_charge,refund_product_payment}",
        "Paddle Classic charge or refund",
        family="payments",
        library="paddle-client",
        read="1.0.0, paddle/paddle.py (create_one_off_charge(subscription_id, amount, charge_name), "
        "refund_product_payment(order_id, amount=None, reason=None)): no key",
    ),
    # client.messages.create and client.api.account.messages.create alike.
    NonKeyableEffect(
        "twilio.*().{,*.}messages.create",
        "SMS",
        family="SMS, push and chat",
        library="twilio",
        read="9.3: twilio/rest/api/v2010/account/message/__init__.py (MessageList.create)",
    ),
    NonKeyableEffect(
        "{slack_sdk,slack}.*().{chat_postMessage,chat_postEphemeral,chat_scheduleMessage,"
        "chat_meMessage,files_upload,files_upload_v2}",
        "Slack message",
        family="SMS, push and chat",
        library="slack_sdk",
        read="3.33: slack_sdk/web/client.py (WebClient; AsyncWebClient alike)",
    ),
    NonKeyableEffect(
        "telegram.*().send_{message,photo,document,audio,video,video_note,voice,animation,"
        "sticker,location,venue,contact,poll,dice,media_group,invoice}",
        "Telegram message",
        family="SMS, push and chat",
        library="python-telegram-bot",
        read="21.6: telegram/_bot.py (Bot.send_*)",
    ),
    NonKeyableEffect(
        "firebase_admin.messaging.{send,send_all,send_each,send_multicast,"
        "send_each_for_multicast,send_each_async,send_each_for_multicast_async}",
        "push notification",
        family="SMS, push and chat",
        library="firebase-admin",
        read="6.5: firebase_admin/messaging.py",
    ),
    # notify() in 2.x; notify_single_device() and the *_data_message() calls in 1.x.
    NonKeyableEffect(
        "pyfcm.*().{notify*,async_notify*,*_data_message}",
        "push notification",
        family="SMS, push and chat",
        library="pyfcm",
        read="2.0.7 and 1.5.4: pyfcm/fcm.py, pyfcm/baseapi.py",
    ),
    NonKeyableEffect("{*.,}send_sms", "SMS", family="SMS, push and chat"),
    NonKeyableEffect(
        "{*.,}send_push{,_notification,_message}", "push notification", family="SMS, push and chat"
    ),
    # An AnymailMessage is a Django EmailMultiAlternatives.
    NonKeyableEffect(
        "anymail.*().send",
        "email",
        family="e-mail",
        library="django-anymail",
        read="13.0: anymail/message.py (AnymailMessage)",
    ),
    # An outbox: each call queues one more Email row, and the queue sends it.
    NonKeyableEffect(
        "post_office.mail.{send,send_many}",
        "email",
        family="e-mail",
        library="django-post-office",
        read="3.9: post_office/mail.py (send, send_many)",
    ),
    NonKeyableEffect(
        "fastapi_mail.*FastMail().send_message",
        "email",
        family="e-mail",
        library="fastapi-mail",
        read="1.4: fastapi_mail/fastmail.py (FastMail.send_message)",
    ),
    NonKeyableEffect(
        "postmarker.*().emails.{send,send_with_template,send_batch,send_template_batch,"
        "Email().send,TemplateEmail().send,EmailBatch().send}",
        "email",
        family="e-mail",
        library="postmarker",
        read="1.0: postmarker/models/emails.py, README.rst",
    ),
    NonKeyableEffect(
        "mailchimp_transactional.*Client().messages.{send,send_template,send_raw}",
        "email",
        family="e-mail",
        library="mailchimp-transactional",
        read="1.0.56: mailchimp_transactional/api/messages_api.py",
    ),
    NonKeyableEffect(
        "yagmail.*SMTP().send",
        "email",
        family="e-mail",
        library="yagmail",
        read="0.15.293: yagmail/sender.py (SMTP.send), README",
    ),
    NonKeyableEffect(
        "twilio.*().{,*.}calls.create",
        "phone call",
        family="SMS, push and chat",
        library="twilio",
        read="9.3: twilio/rest/api/v2010/account/call/__init__.py (CallList.create)",
    ),
    NonKeyableEffect(
        "twilio.*().*.verifications.create",
        "verification SMS",
        family="SMS, push and chat",
        library="twilio",
        read="9.3: twilio/rest/verify/v2/service/verification/__init__.py",
    ),
    # Vonage() in 4.x (sms.send, messages.send); Client() and Sms() in 3.x.
    NonKeyableEffect(
        "vonage.{Vonage,Client}().{sms.send,sms.send_message,messages.send}",
        "SMS",
        family="SMS, push and chat",
        library="vonage",
        read="4.1: vonage_sms/sms.py, vonage_messages/messages.py; 3.17: vonage/sms.py",
    ),
    NonKeyableEffect(
        "vonage.Sms().send_message",
        "SMS",
        family="SMS, push and chat",
        library="vonage",
        read="3.17: vonage/sms.py (Sms.send_message)",
    ),
    NonKeyableEffect(
        "messagebird.*Client().{message_create,voice_message_create,conversation_start,"
        "conversation_create_message}",
        "SMS",
        family="SMS, push and chat",
        library="messagebird",
        read="2.0: messagebird/client.py",
    ),
    NonKeyableEffect(
        "plivo.*RestClient().{messages,calls}.create",
        "SMS",
        family="SMS, push and chat",
        library="plivo",
        read="4.55: plivo/resources/messages.py, plivo/resources/calls.py",
    ),
    NonKeyableEffect(
        "onesignal.*DefaultApi().create_notification",
        "push notification",
        family="SMS, push and chat",
        library="onesignal-python-api",
        read="2.2: onesignal/api/default_api.py (DefaultApi.create_notification)",
    ),
    NonKeyableEffect(
        "onesignal_sdk.*Client().send_notification",
        "push notification",
        family="SMS, push and chat",
        library="onesignal-sdk",
        read="2.0: onesignal_sdk/client.py (Client.send_notification)",
    ),
    NonKeyableEffect(
        "exponent_server_sdk.*PushClient().{publish,publish_multiple}",
        "push notification",
        family="SMS, push and chat",
        library="exponent_server_sdk",
        read="2.1: exponent_server_sdk/__init__.py (PushClient.publish, publish_multiple)",
    ),
    NonKeyableEffect(
        "apns2.*APNsClient().{send_notification,send_notification_batch,"
        "send_notification_async}",
        "push notification",
        family="SMS, push and chat",
        library="apns2",
        read="0.7.2: apns2/client.py (APNsClient)",
    ),
    NonKeyableEffect(
        "aioapns.*APNs().send_notification",
        "push notification",
        family="SMS, push and chat",
        library="aioapns",
        read="3.3: aioapns/client.py (APNs.send_notification)",
    ),
    NonKeyableEffect(
        "pywebpush.{webpush,WebPusher().send}",
        "push notification",
        family="SMS, push and chat",
        library="pywebpush",
        read="2.0: pywebpush/__init__.py (webpush, WebPusher.send)",
    ),
    NonKeyableEffect(
        "slack_sdk.*WebhookClient().{send,send_dict}",
        "Slack message",
        family="SMS, push and chat",
        library="slack_sdk",
        read="3.33: slack_sdk/webhook/client.py, slack_sdk/webhook/async_client.py",
    ),
    NonKeyableEffect(
        "discord_webhook.*DiscordWebhook().execute",
        "Discord message",
        family="SMS, push and chat",
        library="discord-webhook",
        read="1.3: discord_webhook/webhook.py (DiscordWebhook.execute)",
    ),
    NonKeyableEffect(
        "discord.{Webhook,SyncWebhook}.{from_url,partial}().send",
        "Discord message",
        family="SMS, push and chat",
        library="discord.py",
        read="2.4: discord/webhook/async_.py, discord/webhook/sync.py (Webhook.send)",
    ),
    NonKeyableEffect(
        "pymsteams.{connectorcard,async_connectorcard}().send",
        "Teams message",
        family="SMS, push and chat",
        library="pymsteams",
        read="0.2.3: pymsteams/__init__.py (connectorcard.send)",
    ),
    NonKeyableEffect(
        "zenpy.*Zenpy().{tickets,requests}.create",
        "Zendesk ticket",
        family="tickets and code hosts",
        library="zenpy",
        read="2.0: zenpy/lib/api.py (TicketApi, RequestAPI: CRUDApi.create)",
    ),
    NonKeyableEffect(
        "jira.*JIRA().{create_issue,create_issues,add_comment,add_worklog,"
        "create_customer_request}",
        "Jira issue or comment",
        family="tickets and code hosts",
        library="jira",
        read="3.8: jira/client.py (JIRA.create_issue, add_comment)",
    ),
    # Opening a second pull request or release for the same branch or tag is
    # refused by GitHub, so only issues, comments and reviews repeat.
    NonKeyableEffect(
        "github.*Github().*.{create_issue,create_comment,create_issue_comment,create_review,"
        "create_review_comment}",
        "GitHub issue or comment",
        family="tickets and code hosts",
        library="PyGithub",
        read="2.5: github/Repository.py, github/Issue.py, github/PullRequest.py",
    ),
    NonKeyableEffect(
        "gitlab.*Gitlab().*.{issues,notes,discussions}.create",
        "GitLab issue or comment",
        family="tickets and code hosts",
        library="python-gitlab",
        read="4.13: gitlab/v4/objects/issues.py, gitlab/v4/objects/notes.py (CreateMixin.create)",
    ),
    # Contacts are unique by e-mail address, so only the records that repeat.
    NonKeyableEffect(
        "hubspot.{HubSpot,Client.create}().crm.{tickets,deals,objects.notes,objects.tasks,"
        "objects.emails,objects.calls,objects.meetings,objects.communications}"
        ".{basic_api,batch_api}.create",
        "HubSpot ticket, deal or note",
        family="tickets and code hosts",
        library="hubspot-api-client",
        read="11.1: hubspot/crm/tickets/api/basic_api.py (BasicApi.create), hubspot/discovery/crm",
    ),
    NonKeyableEffect(
        "intercom.*().{messages.create,conversations.reply}",
        "Intercom message",
        family="tickets and code hosts",
        library="python-intercom",
        read="3.1: README.rst (intercom.messages.create, intercom.conversations.reply)",
    ),
)

# --------------------------------------------------------------------------
# HTTP semantics

# Modules whose classes are mixed into a client's bases without giving it
# the methods that make effects (``Generic[T]``, ``ABC``, ``Protocol``).
MIXIN_MODULES = frozenset({"abc", "typing", "typing_extensions", "collections", "enum", "dataclasses"})

# What the built-in side effects are called by, for :func:`method_names`.
EFFECT_PATTERNS = tuple(e.pattern for e in KEYABLE_EFFECTS) + tuple(e.pattern for e in NON_KEYABLE_EFFECTS)


def _library_roots(patterns: Tuple[str, ...]) -> FrozenSet[str]:
    """The top-level modules ``patterns`` name (``zenpy`` for
    ``zenpy.*Zenpy().{tickets,requests}.create``; none for ``*gateway*``)."""
    roots: Set[str] = set()
    for pattern in patterns:
        # The first segment's alternatives say it: ``{slack_sdk,slack}.*()...``.
        segments = _brace_choices(pattern)
        first = segments[0] if segments else ()
        rest = segments[1][0] if len(segments) > 1 and len(segments[1]) == 1 else ""
        for choice in first:
            root = (choice if "." in choice or not rest else choice + rest).split(".", 1)[0]
            if root and not any(char in root for char in "*?[("):
                roots.add(root)
    return frozenset(roots)


# The libraries whose side effects the catalogue lists: API clients.
EFFECT_LIBRARY_ROOTS = _library_roots(EFFECT_PATTERNS)

# RFC 9110 section 9.2.2: PUT and DELETE are idempotent (a second request
# leaves the state the first one left), as are the safe methods; POST and
# PATCH are not, and they are the keyable HTTP effects.
KEYABLE_HTTP_METHODS = frozenset({"POST", "PATCH"})
IDEMPOTENT_HTTP_METHODS = frozenset({"PUT", "DELETE"})


@dataclass(frozen=True)
class NonIdempotentHttpApi:
    """An HTTP API whose PUT or DELETE is not idempotent, against RFC 9110.

    A call with one of ``methods`` to a URL whose literal text matches
    ``url`` (a case-insensitive glob; an expression inside the URL is
    ``{}`` in that text) is a keyable effect, reported with ``label`` and
    ``consequence``.  No API in the catalogue needs one yet.
    """

    url: str
    methods: Tuple[str, ...]
    label: str
    consequence: str


NON_IDEMPOTENT_HTTP_APIS: Tuple[NonIdempotentHttpApi, ...] = ()


@dataclass(frozen=True)
class HttpMessageApi:
    """A service whose HTTP API, called directly, sends a message that no
    key can dedupe: a POST to a URL whose literal text matches ``url`` (a
    case-insensitive glob; an expression inside the URL is ``{}``) is a
    non-keyable effect with ``label`` (IDM013), not an unkeyed call
    (IDM002).  ``read`` is the page the endpoint was read from."""

    url: str
    label: str
    read: str


HTTP_MESSAGE_APIS: Tuple[HttpMessageApi, ...] = (
    HttpMessageApi("https://slack.com/api/chat.{postMessage,postEphemeral,scheduleMessage,meMessage}*",
                   "Slack message", "api.slack.com/methods (chat.postMessage: no dedup parameter)"),
    HttpMessageApi("https://hooks.slack.com/*", "Slack message",
                   "api.slack.com/messaging/webhooks (incoming webhooks: no dedup)"),
    HttpMessageApi("https://{discord.com,discordapp.com}/api/webhooks/*", "Discord message",
                   "discord.com/developers/docs/resources/webhook (Execute Webhook)"),
    HttpMessageApi("https://api.telegram.org/bot*/send*", "Telegram message",
                   "core.telegram.org/bots/api (sendMessage and the other send methods)"),
    HttpMessageApi("https://*.webhook.office.com/*", "Microsoft Teams message",
                   "learn.microsoft.com, Teams incoming webhooks"),
    HttpMessageApi("https://api.twilio.com/*/Messages.json", "SMS",
                   "twilio.com/docs/messaging/api/message-resource (Create a Message)"),
    HttpMessageApi("https://api{,.eu}.mailgun.net/v3/*/messages*", "email",
                   "documentation.mailgun.com, Messages API (POST /v3/{domain}/messages)"),
    HttpMessageApi("https://api.sendgrid.com/v3/mail/send", "email",
                   "docs.sendgrid.com, Mail Send (POST /v3/mail/send)"),
    HttpMessageApi("https://api.postmarkapp.com/email*", "email",
                   "postmarkapp.com/developer/api/email-api (POST /email)"),
    HttpMessageApi("https://api.pushover.net/1/messages.json", "push notification",
                   "pushover.net/api (POST /1/messages.json)"),
    HttpMessageApi("https://api.helpscout.net/v2/conversations{,/*/reply}", "Help Scout conversation",
                   "developer.helpscout.com/mailbox-api/endpoints/conversations/create (Create Conversation: "
                   "no idempotency parameter; unless imported, outgoing emails and notifications are sent)"),
)

# Slack Web API methods that only read, called with a POST as Slack
# accepts: a repeat changes nothing (api.slack.com/methods).
HTTP_READ_URLS: Tuple[str, ...] = (
    "https://slack.com/api/users.{lookupByEmail,info,list,conversations,getPresence,profile.get}*",
    "https://slack.com/api/conversations.{list,info,history,members,replies}*",
    "https://slack.com/api/{auth.test,team.info,bots.info,emoji.list}*",
)


# A POST that moves a resource along a workflow to a state it names is no
# repeated effect either: a repeat is refused (the workflow does not offer the
# transition from the state it leads to) or lands in the same state.  Jira's
# REST API v2/v3 "Transition issue" (POST /rest/api/{2,3,latest}/issue/
# {issueIdOrKey}/transitions, body {"transition": {"id": ...}}); the jira
# SDK's ``transition_issue`` posts there.  Read: JiraPS 2.4.2,
# Invoke-JiraIssueTransition ("attempting to perform a transition that does
# not apply to the issue ... will result in an exception").
HTTP_TRANSITION_URLS: Tuple[str, ...] = (
    "*/rest/api/{2,3,latest}/issue/*/transitions",
    "*/rest/api/{2,3,latest}/issue/*/transitions?*",
)


def http_message_api(url: Optional[str]) -> Optional[HttpMessageApi]:
    """The service a POST to ``url`` (its literal text) sends a message through."""
    if url is None:
        return None
    return next((api for api in HTTP_MESSAGE_APIS if _compiled(api.url, True).matches(url)), None)


def is_read_url(url: str) -> bool:
    """Whether a POST to ``url`` is a call of an API method that only reads."""
    return any(_compiled(pattern, True).matches(url) for pattern in HTTP_READ_URLS)


def is_transition_url(url: str) -> bool:
    """Whether a POST to ``url`` moves a resource to the workflow state it names."""
    return any(_compiled(pattern, True).matches(url) for pattern in HTTP_TRANSITION_URLS)


# A POST that exchanges credentials for a token or a session is read-like: a
# repeat gets another token and changes nothing the task is responsible for.
# It is recognised by the last segments of the URL's path (query and host
# dropped, each segment compared without case, "-" or "_"), never by a
# substring: /oauth/token, /oauth2/v2.0/token, /auth/token, /token,
# /api/token/refresh/, /login/oauth/access_token, /login, /api/v1/auth/login,
# /users/sign_in are exchanges; /tokens, /tokens/revoke-all, /token/{id}/revoke,
# /login-attempts and https://token.example.com/charges are not.
TOKEN_EXCHANGE_PATH_ENDINGS: Tuple[Tuple[str, ...], ...] = (
    ("token",),
    ("token", "refresh"),
    ("oauth", "access_token"),
    ("oauth2", "access_token"),
    ("login",),
    ("sign_in",),
)

# A POST that only reads is not an effect either: a search API takes its query
# in the body because it does not fit in a URL (Elasticsearch and OpenSearch
# `_search` and `_msearch`, Vespa's /search/). Recognised as the exchanges
# are: /search, /index/_search, /_msearch; /search-history, /searches/save
# are not, and neither is a /count (a POST to one may well add to it).
# Prometheus's HTTP API (and Loki's, Mimir's and Thanos's, which copy it)
# takes a query's parameters "URL-encoded in the request body by using the
# POST method" (prometheus.io/docs/prometheus/latest/querying/api/):
# /api/v1/query, /api/v1/query_range, /api/v1/series and /api/v1/labels read.
QUERY_PATH_ENDINGS: Tuple[Tuple[str, ...], ...] = (
    ("search",),
    ("_msearch",),
    ("api", "v1", "query"),
    ("api", "v1", "query_range"),
    ("api", "v1", "series"),
    ("api", "v1", "labels"),
)

# Calls that join a base URL and a path: the path decides the shape.
URL_JOIN_CALLS: Tuple[str, ...] = ("urllib.parse.urljoin", "requests.compat.urljoin")
# HTTP clients made with a ``base_url`` that each request's relative URL is
# joined to, path to path (www.python-httpx.org/advanced/clients/, "Merging of
# configuration": ``Client(base_url="https://example.org/api")`` then
# ``client.get("/users")`` requests ``https://example.org/api/users``).
HTTP_BASE_URL_CLIENTS: FrozenSet[str] = frozenset({"httpx.Client", "httpx.AsyncClient"})


def url_path_segments(url: str) -> Tuple[str, ...]:
    """The normalised segments of a URL's path: ``"https://h/OAuth2/Token?x=1"``
    -> ``("oauth2", "token")``.  Without a scheme the text is all path."""
    url = url.split("?", 1)[0].split("#", 1)[0]
    scheme = url.find("://")
    if scheme >= 0:
        path_start = url.find("/", scheme + 3)
        url = url[path_start:] if path_start >= 0 else ""
    return tuple(
        normalise_key_spelling(segment) for segment in url.split("/") if segment
    )


def is_token_exchange(url: str) -> bool:
    """Whether a POST to ``url`` (its literal text) asks for a token or a session."""
    return _path_ends_in(url, _normalised(TOKEN_EXCHANGE_PATH_ENDINGS))


def is_query(url: str) -> bool:
    """Whether a POST to ``url`` (its literal text) is a search that only reads."""
    return _path_ends_in(url, _normalised(QUERY_PATH_ENDINGS))


def _path_ends_in(url: str, endings: Tuple[Tuple[str, ...], ...]) -> bool:
    segments = url_path_segments(url)
    return any(segments[-len(ending):] == ending for ending in endings if len(segments) >= len(ending))


@lru_cache(maxsize=2)
def _normalised(endings: Tuple[Tuple[str, ...], ...]) -> Tuple[Tuple[str, ...], ...]:
    return tuple(tuple(normalise_key_spelling(segment) for segment in ending) for ending in endings)


def non_idempotent_http_api(
    apis: Sequence[NonIdempotentHttpApi], method: str, url: Optional[str]
) -> Optional[NonIdempotentHttpApi]:
    """The entry that makes this PUT or DELETE an effect, if one does."""
    if url is None:
        return None
    for api in apis:
        if method in api.methods and _compiled(api.url, True).matches(url):
            return api
    return None


# --------------------------------------------------------------------------
# Keys


# Idempotency key spellings, compared after dropping "_" and "-" and case.
# The header an HTTP request carries its key in (IETF draft
# "The Idempotency-Key HTTP Header Field"; Stripe, Adyen, GoCardless and
# Mollie read it): IDM002's fix adds it.
IDEMPOTENCY_HEADER = "Idempotency-Key"

KEY_SPELLINGS = frozenset(
    {
        "idempotencykey",
        "idempotencekey",
        "xidempotencykey",
        "ckoidempotencykey",
        "paypalrequestid",
    }
)


def normalise_key_spelling(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


@lru_cache(maxsize=None)
def key_names_of(effect: KeyableEffect) -> FrozenSet[str]:
    """An entry's own key parameters, normalised as key spellings are."""
    return frozenset(normalise_key_spelling(name) for name in effect.key_names)


# --------------------------------------------------------------------------
# Nondeterminism (IDM001)

# Values new on every run: random ones, and readings of the clock.  A key
# from the clock may name a period the work belongs to (a daily digest), so
# only a random one is replaced by the task's arguments (IDM001's fix).
RANDOM_SOURCES: Tuple[str, ...] = (
    "uuid.{uuid1,uuid4}",
    "random.*",
    "secrets.*",
    "os.urandom",
)
CLOCK_SOURCES: Tuple[str, ...] = (
    "time.{time,time_ns,monotonic,monotonic_ns,perf_counter,perf_counter_ns}",
    "datetime.datetime.{now,utcnow,today}",
    "datetime.date.today",
    "django.utils.timezone.now",
)
NONDETERMINISTIC_SOURCES: Tuple[str, ...] = RANDOM_SOURCES + CLOCK_SOURCES

# Calls that carry nondeterminism from an argument to their result.
DERIVING_CALLS: Tuple[str, ...] = (
    "{str,int,float,repr,bytes,format,round,hex,abs,tuple,list}",
    "hashlib.*",
    "base64.*",
    "json.dumps",
)

# Keyword arguments that are idempotency, dedup or lock keys.
KEY_KEYWORDS = frozenset(
    {
        "dedupkey",
        "dedupekey",
        "deduplicationkey",
        "deduplicationid",
        "messagededuplicationid",
        "lockkey",
        "lockname",
        "uniquekey",
    }
) | KEY_SPELLINGS

# Headers that carry a delivery or event id, sent so that the receiver can
# deduplicate: keys for IDM001 (a fresh one per run defeats the receiver's
# dedup). The Standard Webhooks ``webhook-id``, and ``X-<Vendor>-<suffix>``
# for each suffix below (``X-GitHub-Delivery``, ``X-Acme-Event-Id``).
DELIVERY_ID_HEADERS = frozenset({"webhook-id"})
DELIVERY_ID_HEADER_SUFFIXES: Tuple[Tuple[str, ...], ...] = (
    ("delivery",),
    ("delivery", "id"),
    ("event", "id"),
    ("message", "id"),
    ("webhook", "id"),
)
# Vendor words that make such a header a request, trace or correlation id,
# which identifies one attempt and is never a key (``X-Request-Message-Id``).
TRACE_ID_HEADER_WORDS = frozenset(
    {"request", "trace", "traceparent", "tracestate", "correlation", "span", "b3"}
)

# Keyword arguments and dict keys whose mapping is sent as HTTP headers.
HEADER_CONTAINERS = frozenset({"headers", "extra_headers"})


def is_delivery_id_header(name: str) -> bool:
    """``webhook-id``, ``X-GitHub-Delivery``, ``X-Acme-Event-Id``; not
    ``X-Request-Id``, ``traceparent`` or ``X-Correlation-Id``."""
    parts = name.lower().replace("_", "-").split("-")
    if "-".join(parts) in DELIVERY_ID_HEADERS:
        return True
    if parts[0] != "x":
        return False
    for suffix in DELIVERY_ID_HEADER_SUFFIXES:
        vendor = parts[1 : len(parts) - len(suffix)]
        if (
            tuple(parts[-len(suffix):]) == suffix
            and vendor
            and all(vendor)
            and TRACE_ID_HEADER_WORDS.isdisjoint(vendor)
        ):
            return True
    return False


# ORM writes and lookups: a key keyword there is a model field. A key made
# once and stored (``get_or_create(defaults={"idempotency_key": uuid4()})``)
# is the correct pattern, not a key that changes on redelivery.
PERSISTENCE_METHODS = frozenset(
    {
        "create",
        "acreate",
        "get_or_create",
        "aget_or_create",
        "update_or_create",
        "aupdate_or_create",
        "bulk_create",
        "update",
        "aupdate",
        "save",
        "filter",
        "get",
        "exclude",
        "insert",
        "values",
    }
)

# A local variable named like this holds a key, whatever it is passed to.
KEY_VARIABLE_NAME = re.compile(
    r"_?(idem\w*|dedupe?\w*|deduplication\w*|lock)_?(key|name)\Z", re.IGNORECASE
)


# --------------------------------------------------------------------------
# Distributed locks (IDM004, and their keys for IDM001)


@dataclass(frozen=True)
class LockApi:
    """A call that takes a distributed lock.

    ``requires_flag`` names a keyword that must be truthy for the call to be a
    lock (redis ``set`` is a lock only with ``nx=True``).  ``ttl_keywords`` and
    ``ttl_position`` say where an expiry may be passed.  When
    ``default_expires`` is true, only an explicit ``None`` expiry is a lock
    without TTL (Django's ``cache.add`` falls back to the cache's timeout).
    """

    pattern: str
    label: str
    key_position: int
    key_keyword: str
    ttl_keywords: Tuple[str, ...]
    ttl_position: Optional[int] = None
    requires_flag: Optional[str] = None
    min_positional: int = 1
    default_expires: bool = False
    never_expires: bool = False
    # Generic method names (``lock``, ``add``) are locks only on a key-value
    # store: ``r.lock(name)``, ``cache.add(key, v)``, not ``account.lock(reason)``.
    store_receiver: bool = False
    # The value stored under the key is the holder's token, which a Lua
    # compare-and-delete can check (IDM005's fix): redis SET NX and SETNX.
    token_value: bool = False


LOCK_APIS: Tuple[LockApi, ...] = (
    # django-redis: ``cache.set(k, v, nx=True)`` falls back to the cache's timeout.
    LockApi(
        "django.core.cache.{cache,caches[]}.set",
        "cache SET NX",
        key_position=0,
        key_keyword="key",
        ttl_keywords=("timeout",),
        ttl_position=2,
        requires_flag="nx",
        min_positional=0,
        default_expires=True,
    ),
    LockApi(
        "*.set",
        "redis SET NX",
        key_position=0,
        key_keyword="name",
        ttl_keywords=("ex", "px", "exat", "pxat"),
        ttl_position=2,
        requires_flag="nx",
        min_positional=0,
        token_value=True,
    ),
    LockApi(
        "*.setnx",
        "redis SETNX",
        key_position=0,
        key_keyword="name",
        ttl_keywords=(),
        never_expires=True,
        min_positional=0,
        token_value=True,
    ),
    LockApi(
        "redis_lock.Lock",
        "python-redis-lock Lock",
        key_position=1,
        key_keyword="name",
        ttl_keywords=("expire",),
        ttl_position=2,
        min_positional=0,
    ),
    LockApi(
        "redis.*Lock",
        "redis-py Lock",
        key_position=1,
        key_keyword="name",
        ttl_keywords=("timeout",),
        ttl_position=2,
        min_positional=0,
    ),
    LockApi(
        "*.lock",
        "redis lock()",
        key_position=0,
        key_keyword="name",
        ttl_keywords=("timeout",),
        ttl_position=1,
        store_receiver=True,
    ),
    LockApi(
        "*.{add,aadd}",
        "cache.add",
        key_position=0,
        key_keyword="key",
        ttl_keywords=("timeout",),
        ttl_position=2,
        min_positional=2,
        default_expires=True,
        store_receiver=True,
    ),
)

# Redis clients whose deletes IDM005's fix turns into a compare-and-delete
# through ``eval(script, numkeys, *keys_and_args)`` (redis-py 5.2.1,
# redis/commands/core.py ScriptCommands.eval; the asyncio client alike;
# django-redis 5.4.0, django_redis/__init__.py get_redis_connection returns
# the raw redis-py client).  Pipelines are left out: their commands run later.
EVAL_CLIENT_DELETES: Tuple[str, ...] = (
    "redis.{Redis,StrictRedis,from_url,Redis.from_url,StrictRedis.from_url}().{delete,unlink}",
    "redis.asyncio.{Redis,StrictRedis,from_url,Redis.from_url,StrictRedis.from_url}().{delete,unlink}",
    "django_redis.get_redis_connection().{delete,unlink}",
)
# Deletes the key in ``KEYS[1]`` only while it holds the token in ``ARGV[1]``
# (the release script of redis-py's ``Lock`` does the same).
COMPARE_AND_DELETE_SCRIPT = (
    'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end'
)

# Receiver words that name a key-value store connection (for store_receiver).
STORE_RECEIVER_WORDS = frozenset({"conn", "connection", "client", "lock", "locks", "mutex"})

# Receivers whose locks live in one process and die with it.
LOCAL_LOCK_MODULES = frozenset(
    {
        "threading",
        "asyncio",
        "multiprocessing",
        "filelock",
        "fasteners",
        "portalocker",
        "fcntl",
        "trio",
        "anyio",
        "gevent",
    }
)


# --------------------------------------------------------------------------
# Done markers (IDM003)

DONE_STATES = frozenset(
    {
        "paid",
        "sent",
        "done",
        "completed",
        "complete",
        "processed",
        "charged",
        "captured",
        "refunded",
        "notified",
        "delivered",
        "published",
        "shipped",
        "fulfilled",
        "finished",
        "succeeded",
        "success",
        "successful",
        "emailed",
        "handled",
        "synced",
        "exported",
        "imported",
        "uploaded",
        "settled",
        "confirmed",
        "billed",
        "invoiced",
        "paid_out",
        "transferred",
        "cancelled",
        "canceled",
        "voided",
    }
)

# Words that turn a done state into its opposite: NOT_SENT, PAYMENT_FAILED.
NOT_DONE_WORDS = frozenset(
    {"not", "un", "pending", "failed", "failure", "error", "awaiting", "partially", "requested"}
)

# Attribute or column names that hold a status value.
STATUS_FIELDS = re.compile(r"(\w+_)?(status|state)\Z", re.IGNORECASE)

# Boolean or timestamp fields that say "done" when set.
DONE_FLAG_FIELDS = re.compile(
    r"(is_|has_been_|was_)?(\w+_)?("
    + "|".join(sorted(DONE_STATES))
    + r")(_at|_on|_flag)?\Z",
    re.IGNORECASE,
)

# Words (not substrings: "sentry" is not "sent") in a cache key that say
# "this work is done", and in a model or table name that say "dedup table".
DONE_KEY_WORDS = frozenset(
    {
        "done",
        "processed",
        "completed",
        "complete",
        "sent",
        "handled",
        "finished",
        "idempotency",
        "idempotent",
        "idempotence",
        "notified",
        "delivered",
        "charged",
        "paid",
        "dedup",
        "dedupe",
    }
)
DEDUP_TABLE_WORDS = frozenset(
    {
        "processed",
        "dedup",
        "dedupe",
        "deduplication",
        "idempotency",
        "idempotent",
        "handled",
        "seen",
        "completed",
        "sent",
        "done",
    }
)

WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def words(text: str) -> FrozenSet[str]:
    """Lower-case words of an identifier, key or table name (camelCase aware)."""
    return frozenset(word.lower() for word in WORD.findall(text))


def says_done(text: str) -> bool:
    return not words(text).isdisjoint(DONE_KEY_WORDS)


def names_dedup_table(name: str) -> bool:
    return not words(name).isdisjoint(DEDUP_TABLE_WORDS)


# ORM and SQL writes that persist a row or field.
INSERT_METHODS = frozenset({"create", "get_or_create", "bulk_create", "insert"})
SQL_EXECUTE_METHODS = frozenset({"execute", "executemany"})
SQL_INSERT = re.compile(r"\b(insert\s+into|update)\s+[\"`]?(\w+)", re.IGNORECASE)
# SQL that sets a done state: ``status = 'sent'``.
SQL_DONE_STATE = re.compile(r"(status|state)\s*=\s*'(" + "|".join(sorted(DONE_STATES)) + r")'", re.IGNORECASE)
# Django's ORM as call resolution reads it (idemlint.semantic.resolution): a model class's
# manager, the queryset methods that give another queryset, and those that
# give one instance of the model (``Order.objects.filter(...).first()``).
ORM_MANAGERS = frozenset({"objects"})
ORM_QUERYSET_METHODS = frozenset(
    {
        "all", "filter", "exclude", "select_for_update", "select_related", "prefetch_related",
        "order_by", "using", "only", "defer", "distinct", "annotate", "alias", "reverse",
    }
)
ORM_INSTANCE_METHODS = frozenset({"get", "first", "last", "latest", "earliest", "create"})
# What a bound Celery task's ``self`` has of its own (celery.app.task.Task,
# Celery 5.4, the Task API reference): calls on it run Celery, not the
# project; any other attribute may be a project base's method.
BOUND_TASK_ATTRIBUTES = frozenset(
    {
        "retry", "request", "update_state", "send_event", "replace", "apply_async", "delay",
        "signature", "s", "si", "subtask", "AsyncResult", "backend", "app", "name", "add_to_chord",
        "add_trail", "map", "starmap", "chunks", "max_retries", "default_retry_delay",
    }
)
# The annotation of "an instance of the class the method was called on"
# (PEP 673; typing since Python 3.11, typing_extensions before).
SELF_TYPES = frozenset({"typing.Self", "typing_extensions.Self"})
# Annotations whose members are the value's possible types (``Optional[X]``
# is ``Union[X, None]``): what a value of one of them is, None aside.
UNION_TYPES = frozenset({"typing.Optional", "typing.Union", "typing_extensions.Optional", "typing_extensions.Union"})
OPTIONAL_TYPES = frozenset({"typing.Optional", "typing_extensions.Optional"})
# Every public method of Django's QuerySet (which a model's manager also
# has), and each one's async twin where it has one: what a call spelled
# ``Model.objects.<method>(...)``, or on what such a call returned, runs
# in Django, not in the project (idemlint.semantic.reach).  Read from the
# QuerySet API reference of Django 5.1 (docs/ref/models/querysets.txt:
# "Methods that return new QuerySets", "Methods that do not return
# QuerySets").  A custom manager's own method is not here: it is project code.
_QUERYSET_RETURNING = (
    "filter", "exclude", "annotate", "alias", "order_by", "reverse", "distinct", "values",
    "values_list", "dates", "datetimes", "none", "all", "union", "intersection", "difference",
    "select_related", "prefetch_related", "extra", "defer", "only", "using", "select_for_update", "raw",
)
_NOT_QUERYSET_RETURNING = (
    "get", "create", "get_or_create", "update_or_create", "bulk_create", "bulk_update", "count",
    "in_bulk", "iterator", "latest", "earliest", "first", "last", "aggregate", "exists", "contains",
    "update", "delete", "explain",
)
DJANGO_QUERYSET_API = frozenset(
    (*_QUERYSET_RETURNING, *_NOT_QUERYSET_RETURNING, *(f"a{name}" for name in _NOT_QUERYSET_RETURNING))
)
# Shortcuts that fetch one instance of the model (or queryset) given first.
ORM_SHORTCUT_GETTERS = ("django.shortcuts.get_object_or_404",)
SAVE_METHODS = frozenset({"save", "asave", "commit", "flush", "update", "aupdate"})
# Django lookups that bound a range: a field read into a local and used as
# such a bound selects the work (a watermark).
RANGE_LOOKUPS = frozenset({"gt", "gte", "lt", "lte"})
# Query methods a selection of rows is written with (a state to select on,
# a range bound), and those that write a state of the selected rows.
# Query calls that filter rows (idemlint.semantic.queries): Django's by
# keyword, SQLAlchemy's ``filter_by`` by keyword and ``filter``/``where`` by
# column expressions; those that select the rows a loop goes over; and the
# session calls that run a statement built apart (``execute(stmt)``).
FILTERING_METHODS = frozenset({"filter", "exclude", "get", "aget", "filter_by", "where"})
EXPRESSION_FILTERING_METHODS = frozenset({"filter", "where"})
SELECTING_METHODS = frozenset({"filter", "filter_by", "where"})
STATEMENT_RUNNERS = frozenset({"execute", "scalars", "scalar", "stream", "stream_scalars", "exec"})
# Calls given a ``name=`` alone that look up no registered object: a row
# fetched by its name, a task sent or configured by its name
# (idemlint.semantic.registries).
NOT_NAMED_LOOKUPS = FILTERING_METHODS | frozenset(
    {"first", "create", "get_or_create", "update_or_create", "send_task", "signature", "apply_async", "delay"}
)
BOUNDING_METHODS = frozenset({"filter", "exclude"})
STATE_WRITE_METHODS = frozenset({"update", "aupdate"})
# Calls that make a collection of what they are given (``list(r.lrange(...))``).
COLLECTION_CONVERSIONS = frozenset({"list", "set", "sorted", "tuple"})

# What the evaluator of values (idemlint.semantic.values) knows of builtins
# and of library calls, read from the Python 3.13 library reference
# ("Built-in Functions", "Built-in Types").
# What calling each builtin returns: an object of this builtin type ("" for
# "some builtin object": ``len`` an int, ``sorted`` a list, ``enumerate``
# an iterator of tuples).  A builtin not here (``getattr``, ``next``,
# ``max``) may return anything it is given: its result is unknown.
BUILTIN_RESULTS: Dict[str, str] = {
    "str": "str", "repr": "str", "ascii": "str", "format": "str", "chr": "str", "hex": "str", "oct": "str",
    "bin": "str", "bytes": "bytes", "bytearray": "bytearray", "int": "int", "len": "int", "hash": "int",
    "ord": "int", "id": "int", "float": "float", "complex": "complex", "bool": "bool", "isinstance": "bool",
    "issubclass": "bool", "hasattr": "bool", "callable": "bool", "any": "bool", "all": "bool",
    "list": "list", "sorted": "list", "dir": "list", "dict": "dict", "vars": "dict", "globals": "dict",
    "locals": "dict", "set": "set", "frozenset": "frozenset", "tuple": "tuple", "range": "range",
    "enumerate": "", "zip": "", "reversed": "", "map": "", "filter": "", "iter": "", "divmod": "tuple",
    "round": "", "abs": "", "sum": "", "pow": "", "slice": "slice", "memoryview": "memoryview",
    "print": "NoneType", "setattr": "NoneType", "delattr": "NoneType", "open": "",
}
# Builtin types whose methods make only more of the same kind (a string's
# ``lower``, ``split``, ``encode``): no project object is inside them.
SCALAR_TYPES = frozenset({"str", "bytes", "bytearray", "int", "float", "complex", "bool", "NoneType"})
# A container's methods that make another container (not one of its elements).
CONTAINER_VIEWS = frozenset({"items", "keys", "values", "copy", "split", "splitlines", "index", "count"})
# Annotations that say a value is a builtin container or scalar
# (``typing.Dict[str, Any]``, ``collections.abc.Mapping``).
BUILTIN_ANNOTATIONS = frozenset(
    f"{module}.{name}"
    for module in ("typing", "typing_extensions", "collections.abc")
    for name in (
        "Dict", "List", "Set", "FrozenSet", "Tuple", "Mapping", "MutableMapping", "Sequence",
        "MutableSequence", "Iterable", "Iterator", "Collection", "AbstractSet", "MutableSet", "Text",
        "AnyStr", "DefaultDict", "OrderedDict", "Counter", "Deque",
    )
)
# Library calls that look a project's model class up in Django's app
# registry by its app's label and its name (idemlint.semantic.registries):
# ``apps.get_model("orders", "Order")`` or ``apps.get_model("orders.Order")``
# (Django 5.2 reference, "Applications": ``Apps.get_model``).
APP_MODEL_LOOKUPS = frozenset({"django.apps.apps.get_model"})
# Library calls that decode JSON: what they return, and everything inside
# it, is a dict, list, str, int, float, bool or None, never an object of the
# project or of another library.  Read from the Python 3.13 ``json`` module
# ("Decoding", its conversion table), simplejson 3.19's, orjson 3.10's
# ("deserializes JSON to dict, list, int, float, str, bool, and None") and
# ujson 5.10's documentation.
JSON_DECODERS = frozenset(
    {
        "json.loads", "json.load", "simplejson.loads", "simplejson.load", "orjson.loads",
        "ujson.loads", "ujson.load",
    }
)
# A builtin container's methods that return their second argument, the
# default, when the key is missing ("Built-in Types": dict.get, dict.pop,
# dict.setdefault).
METHODS_WITH_A_DEFAULT = frozenset({"get", "pop", "setdefault"})
# A builtin container's methods that put an object into it ("Built-in
# Types": list.append, list.extend, list.insert, dict.update,
# dict.setdefault, set.add): a decoded value they are called on may then
# hold any object.
CONTAINER_ADDS = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "__setitem__"})
# The kind the evaluator gives such a value (idemlint.semantic.values.Builtin).
JSON_VALUE = "json"
# Library calls that return what they are given (their last argument):
# ``typing.cast(T, x)`` is ``x``; ``copy.copy(x)`` a copy of it; a
# ``typing.NewType("Name", T)`` is made as a ``T`` is.
RETURNS_WHAT_IT_IS_GIVEN = frozenset(
    {"typing.cast", "typing_extensions.cast", "copy.copy", "copy.deepcopy", "typing.NewType", "typing_extensions.NewType"}
)
# Library calls that load code by a name or hand back a callable they were
# given: what they return may be the project's (a task looked up by its
# name, a plugin's entry point), so it is unknown.
LOADS_BY_NAME = frozenset(
    {
        "importlib.import_module", "django.utils.module_loading.import_string", "pydoc.locate",
        "django.apps.apps.get_app_config", "django.contrib.auth.get_user_model",
        "functools.partial", "functools.wraps", "operator.attrgetter",
        "operator.methodcaller", "werkzeug.utils.import_string", "celery.utils.imports.symbol_by_name",
        "kombu.utils.imports.symbol_by_name", "builtins.getattr", "builtins.next", "builtins.max", "builtins.min",
        "builtins.type", "builtins.super", "builtins.__import__", "builtins.eval", "builtins.compile",
    }
)

# Libraries whose ``update()`` on a query is a conditional UPDATE that can
# claim rows (Django's QuerySet.update, SQLAlchemy's Query.update and
# update(), peewee, Tortoise, SQLModel, mongoengine): an API client's
# ``update`` (zenpy's ``users.update(user)``, a library of
# EFFECT_LIBRARY_ROOTS not here) claims nothing.
QUERY_LIBRARIES = frozenset({"django", "sqlalchemy", "peewee", "tortoise", "sqlmodel", "mongoengine", "flask_sqlalchemy"})

# Calls that add an object to a list (the objects a bulk write takes).
LIST_ADDS = frozenset({"append", "extend", "add"})
# Writes of many objects at once, the fields named (Django's QuerySet.bulk_update(objs, fields)).
BULK_SAVE_METHODS = frozenset({"bulk_update", "abulk_update"})
CACHE_SET_METHODS = frozenset({"set", "aset", "hset", "sadd", "setex", "set_many"})

# States a done-check may test. A cancelled or deleted flag guards unrelated
# state: ``if appt.cancelled: return`` does not say the reminder was sent.
CHECKED_DONE_STATES = DONE_STATES - {"cancelled", "canceled", "voided"}

# Lookups of a cache/Redis key or of rows, as used in a done-check's test.
LOOKUP_METHODS = frozenset(
    {
        "get", "aget", "exists", "aexists", "sismember", "hexists", "hget",
        "getbit", "get_many", "count", "acount", "first", "afirst",
    }
)

# Calls that claim a unit of work atomically: a lock, a row lock, a unique
# insert that reports whether it created the row.
CLAIM_CALLS: Tuple[str, ...] = (
    "*.acquire",
    "*.select_for_update",
    "*.with_for_update",
    "*.{get_or_create,aget_or_create,update_or_create,aupdate_or_create}",
    "*.{try_lock,try_acquire}",
)
# SQLAlchemy's INSERT ... ON CONFLICT DO NOTHING (PostgreSQL and SQLite
# dialects): executed with its result read, an atomic unique-insert claim.
CONFLICT_SKIPPING_METHODS = frozenset({"on_conflict_do_nothing"})
SQL_CLAIM = re.compile(r"for\s+update|on\s+conflict|advisory_lock|insert\s+ignore", re.IGNORECASE)
# A conditional UPDATE (``UPDATE t SET status = 'sending' WHERE ... status =
# 'pending'``): these, each after the one before.  Looked for one after the
# other, not as one pattern: ``update.*set.*where.*status`` backtracks over
# every choice of the three gaps, n**4 on a script of many UPDATEs.
SQL_CONDITIONAL_UPDATE: Tuple["re.Pattern[str]", ...] = tuple(
    re.compile(part, re.IGNORECASE)
    for part in (r"\bupdate\b", r"\bset\b", r"\bwhere\b", r"\b(?:status|state)\b\s*(?:=|in\b|<>|!=)")
)
# Writes whose IntegrityError, when caught, makes them a unique-insert claim.
UNIQUE_INSERT_METHODS = INSERT_METHODS | {"add", "save", "execute", "commit", "flush"}
# Wrappers around SQL text: sqlalchemy.text("...").
SQL_TEXT_WRAPPERS: Tuple[str, ...] = ("sqlalchemy.text", "sqlalchemy.sql.text", "sqlalchemy.sql.expression.text")

# Exceptions a unique insert raises on a duplicate.
DUPLICATE_ERRORS = re.compile(r"(IntegrityError|UniqueViolation(Error)?|DuplicateKeyError)\Z")

# Transaction scopes (IDM003 treats marker and work inside one as atomic):
# Django's ``atomic``; SQLAlchemy's ``begin()``/``begin_nested()`` (sync and
# async); ``transaction()`` (psycopg, asyncpg, peewee, piccolo); ``atomic()``
# (peewee, Django's); the ``transaction`` package's thread-local manager and
# its managers (transaction.readthedocs.io, "Context manager support"); and
# Pyramid's ``request.tm``, the request's transaction manager
# (docs.pylonsproject.org/projects/pyramid_tm, "Transaction Usage").
TRANSACTION_CONTEXTS: Tuple[str, ...] = (
    "django.db.transaction.atomic",
    "django.db.transaction.atomic()",
    "*.begin()",
    "*.begin_nested()",
    "*.transaction()",
    "*.atomic()",
    "transaction.manager",
    "transaction.TransactionManager()",
    "transaction.ThreadTransactionManager()",
    "pyramid.request.Request().tm",
)

# A heuristic, not a source: the leading verbs of a project call's name that
# say it does the work a done-marker records (`charge_card`, `send_receipt`),
# asked only of a call the walk did not follow (one it followed is judged by
# what it reaches).
WORK_VERBS = frozenset(
    {
        "charge", "pay", "capture", "refund", "cancel", "void", "send", "notify",
        "email", "mail", "publish", "deliver", "ship", "transfer", "payout", "post",
        "upload", "sync", "export", "push", "dispatch", "fulfil", "fulfill",
        "process", "handle", "submit", "issue", "bill",
    }
)
# Methods that hand a task to its queue: `send_receipt.delay()` does what its
# receiver's name says.
DISPATCH_METHODS = frozenset({"delay", "apply_async", "kiq", "send", "send_with_options"})

# Calls that are neither the work a marker records nor a side effect.
BOOKKEEPING_CALLS: Tuple[str, ...] = (
    "logging.*",
    "*logger.*",
    "*log.{debug,info,warning,warn,error,exception,critical}",
    "{print,len,str,int,float,bool,dict,list,set,tuple,isinstance,getattr,"
    "setattr,hasattr,sorted,min,max,sum,range,enumerate,zip,repr,super,type}",
    "*.objects.{get,filter,exclude,select_for_update,all,only,values,"
    "values_list,first,last,count,exists,get_or_create,update_or_create,order_by}",
    "{*.,}{release,unlock}{,_lock,_locks}",
    "*.register_script()",
    "*.{release,acquire,extend,eval,evalsha,raise_for_status,json,read,wait,"
    "get,filter,exclude,select_for_update,refresh_from_db,save,update,"
    "delete,commit,flush,rollback,add,query,all,first,one,scalar,"
    "scalars,count,exists,format,join,strip,lower,upper,encode,decode,"
    "items,keys,values,append,extend,pop,copy,isoformat,strftime,"
    "set,incr,expire,hset,hget,sadd,close,info,debug,warning,error,exception}",
    "django.utils.timezone.now",
    "time.*",
    "datetime.*",
    "uuid.*",
    "transaction.*",
    "django.db.transaction.*",
)


# --------------------------------------------------------------------------
# Vocabulary of locks, key-value stores and done-checks (IDM005, IDM007,
# IDM012, IDM013)

# Words of a receiver that make ``.get(key)`` a key-value store lookup.
KEY_STORE_WORDS = frozenset(
    {"redis", "cache", "caches", "memcache", "memcached", "valkey", "keydb", "kv", "aioredis"}
)

# Claims that only exclude others while held.
HELD_LOCK_METHODS = frozenset(
    {"acquire", "select_for_update", "with_for_update", "try_lock", "try_acquire"}
)

UPSERT_METHODS = frozenset(
    {"get_or_create", "aget_or_create", "update_or_create", "aupdate_or_create"}
)

# Enqueueing a task named like a sender (``send_push_reminder.delay(...)``)
# schedules work; the task that runs it is analysed on its own.
ENQUEUE_CALL_METHODS = frozenset(
    {"delay", "apply_async", "kiq", "send_with_options", "enqueue", "s", "si", "signature"}
)

# Redis reads of the items a collection holds, and the calls that empty it:
# a read tested and then, in the same function, the key deleted is a list
# of pending work drained once handled (a done-check).
PENDING_LIST_READS = frozenset({"lrange", "smembers", "hgetall", "hkeys", "zrange", "zrangebyscore"})
LIST_DRAINS = frozenset({"delete", "unlink", "ltrim"})

# Words of a helper that recalls a failure (``get_config_failure()``): what
# it returns says an earlier attempt failed, never that the work was done.
FAILURE_WORDS = frozenset({"failure", "failures", "failed", "error", "errors"})

# States that say work is under way (a claim taken before the work, which
# IDM003 allows): moving a row into one is no done marker.
IN_PROGRESS_STATE_WORDS = frozenset(
    {"processing", "sending", "running", "started", "claimed", "locked", "progress", "working"}
)

# Status values of rows whose work is still to do.
UNDONE_STATE_WORDS = frozenset(
    {"pending", "queued", "due", "new", "unsent", "scheduled", "waiting", "todo",
     "outstanding", "unprocessed", "unnotified", "undelivered"}
)

LOCK_OBJECT_APIS = frozenset({"redis_lock.Lock", "redis.*Lock", "*.lock"})

LOCK_KEY_WORDS = frozenset(
    {"lock", "locks", "mutex", "claim", "claimed", "guard", "running", "busy",
     "inflight", "semaphore", "singleton", "exclusive", "lease"}
)

LOCK_TOKEN_WORDS = frozenset(
    {"token", "owner", "worker", "holder", "lock", "id", "ident", "pid", "host",
     "hostname", "uuid", "uuid1", "uuid4", "hex", "request", "job", "task",
     "node", "nonce", "oid"}
)

# Lock objects whose ``acquire()`` can be told not to wait: redis-py's Lock
# (``r.lock(...)``), python-redis-lock, pottery's Redlock, sherlock.
DISTRIBUTED_LOCK_OBJECTS: Tuple[str, ...] = (
    "redis_lock.Lock()",
    "redis.*",
    "*.lock()",
    "pottery.*",
    "sherlock.*",
    "aioredlock.*",
)

# ``cache.add(k, v, timeout)`` is a lock only on a cache; ``tar.add(path,
# arcname)`` is not.
CACHE_RECEIVER_WORDS = frozenset({"cache", "caches", "memcache", "memcached", "mc", "redis"})

CACHE_MODULES = frozenset(
    {"django", "pymemcache", "memcache", "pylibmc", "bmemcached", "aiomcache",
     "aiocache", "flask_caching", "cachelib", "werkzeug", "diskcache", "redis"}
)

# Words of a key's name that say it is a lock (IDM005): a ``singleton`` key
# is the one a run-once job takes so that a second copy does not start.
LOCK_NAME_WORDS = frozenset({"lock", "locks", "mutex", "singleton"})

# Commands that remove a key whatever it holds.
KEY_DELETE_METHODS = frozenset(
    {"delete", "adelete", "unlink", "getdel", "delete_many", "adelete_many"}
)

# python-redis-lock's "forcibly deletes the lock" calls.
FORCED_LOCK_RESETS: Tuple[str, ...] = ("redis_lock.Lock().reset", "redis_lock.reset_all")

# Receivers whose ``delete``/``unlink`` is a file or an HTTP request, not a key.
NOT_KEY_STORE_MODULES = frozenset(
    {"os", "pathlib", "shutil", "tempfile", "requests", "httpx", "aiohttp", "urllib3", "boto3"}
)


# --------------------------------------------------------------------------
# Task detection (see idemlint.tasks)

TASK_DECORATORS = frozenset(
    {
        "celery.shared_task",
        "celery.task",
        "celery.decorators.task",
        "celery.decorators.periodic_task",
        "celery.task.task",
        "celery.task.periodic_task",
        "celery.task.base.periodic_task",
        "dramatiq.actor",
        "huey.contrib.djhuey.task",
        "huey.contrib.djhuey.periodic_task",
        "huey.contrib.djhuey.db_task",
        "huey.contrib.djhuey.db_periodic_task",
        "rq.decorators.job",
        "rq.job",
        "django_rq.job",
        "django_rq.decorators.job",
    }
)

# ``@<app>.task``, ``@huey.periodic_task(...)``, ``@broker.task``.
TASK_DECORATOR_METHODS = frozenset(
    {"task", "periodic_task", "db_task", "db_periodic_task"}
)

# Decorator names distinctive enough to trust when imported from a module we
# do not know (a project's own re-export) or when not imported at all.
TASK_DECORATOR_NAMES = frozenset(
    {"shared_task", "periodic_task", "db_task", "db_periodic_task"}
)

# ``@task`` with no import in sight (a star import) is Celery's.
UNIMPORTED_TASK_DECORATOR_NAMES = TASK_DECORATOR_NAMES | {"task"}

# Libraries whose ``task`` is not a durable background task.
NON_QUEUE_MODULES = frozenset(
    {
        "invoke",
        "fabric",
        "prefect",
        "airflow",
        "luigi",
        "pytest",
        "nox",
        "doit",
        "dagster",
        "asyncio",
        "trio",
        "anyio",
    }
)

CELERY_TASK_BASES = frozenset(
    {
        "celery.Task",
        "celery.app.task.Task",
        "celery.task.Task",
        "celery.task.base.Task",
    }
)

# RQ: ``queue.enqueue(func, ...)`` and friends; value = position of the function.
ENQUEUE_METHODS = {"enqueue": 0, "enqueue_call": 0, "enqueue_in": 1, "enqueue_at": 1}
# rq-scheduler's ``scheduler.schedule(time, func)`` / ``scheduler.cron(spec, func)``.
SCHEDULER_METHODS = frozenset({"schedule", "cron"})
# Text that any of those calls (or ``Job.create``, or Celery's
# ``send_task``) contains: only a module with it has its function bodies
# searched for them.
HANDING_TEXT = ("enqueue", "Job.create", "cheduler", "send_task")

# ``app.send_task("pkg.tasks.sync")``: a task run by its dotted name.
SEND_BY_NAME_METHODS = frozenset({"send_task"})

CELERY_APP_CLASSES = frozenset({"celery.Celery", "celery.app.Celery", "celery.app.base.Celery"})

# Celery ``Task`` attributes that are task options: a class attribute of a
# task's class (``base=``, the app's ``Task``, a class-based task) sets them
# for every task of the class, unless the decorator sets them itself.
TASK_CLASS_OPTIONS = frozenset(
    {
        "acks_late", "reject_on_worker_lost", "acks_on_failure_or_timeout",
        "autoretry_for", "dont_autoretry_for", "max_retries", "retry_backoff",
        "retry_backoff_max", "retry_jitter", "retry_kwargs", "default_retry_delay",
        "time_limit", "soft_time_limit", "rate_limit", "expires", "ignore_result",
        "track_started", "typing", "throws", "priority", "serializer",
    }
)

ARQ_WRAPPERS = frozenset({"arq.func", "arq.worker.func", "arq.cron", "arq.cron.cron"})
ARQ_SETTINGS_LISTS = frozenset({"functions", "cron_jobs"})


# --------------------------------------------------------------------------
# Matching

T = TypeVar("T", KeyableEffect, NonKeyableEffect, LockApi)


def first_match(entries: Sequence[T], name: Optional[str]) -> Optional[T]:
    """The first catalogue entry whose pattern matches a resolved name."""
    found = all_matches(entries, name)
    return found[0] if found else None


def all_matches(entries: Sequence[T], name: Optional[str]) -> Tuple[T, ...]:
    """Every catalogue entry whose pattern matches a resolved name, in order.

    The same few hundred names are looked up tens of thousands of times in a
    large project, so each table remembers its answers.
    """
    if not name:
        return ()
    known = _known(entries, lambda entry: (entry.pattern, getattr(entry, "ignore_case", False)))
    if name not in known.answers:
        known.answers[name] = tuple(entries[number] for number in known.index.matching(name))
    return known.answers[name]  # type: ignore[no-any-return]


def matches_any(patterns: Sequence[str], name: Optional[str]) -> bool:
    if not name:
        return False
    known = _known(patterns, lambda pattern: (pattern, False))
    if name not in known.answers:
        known.answers[name] = bool(known.index.matching(name))
    return known.answers[name]  # type: ignore[no-any-return]


@dataclass(frozen=True)
class _TailIndex:
    """A table's globs by the last dotted part of the names they can match.

    A name ends with a glob's last literal part; when that part holds a
    dot, the name's last dotted part is the part's, so only the globs
    filed under the name's last part (and those that cannot be filed: a
    trailing star, no dot in the last part, case ignored) are tried, in
    table order.  Most tables are thirty to fifty globs, most filed.
    """

    globs: Tuple[Glob, ...]
    by_tail: Dict[str, Tuple[int, ...]]
    unfiled: Tuple[int, ...]

    def matching(self, name: str) -> List[int]:
        """The numbers of the globs that match ``name``, in table order."""
        tried = self.by_tail.get(name.rpartition(".")[2], ())
        if self.unfiled:
            tried = tuple(sorted({*tried, *self.unfiled}))
        return [number for number in tried if self.globs[number].matches(name)]


def _tail_index(globs: Sequence[Glob]) -> _TailIndex:
    by_tail: Dict[str, List[int]] = {}
    unfiled: List[int] = []
    for number, glob in enumerate(globs):
        tails = _tails(glob)
        if tails is None:
            unfiled.append(number)
        for tail in tails or ():
            by_tail.setdefault(tail, []).append(number)
    return _TailIndex(tuple(globs), {tail: tuple(numbers) for tail, numbers in by_tail.items()}, tuple(unfiled))


def _tails(glob: Glob) -> Optional[Set[str]]:
    """The last dotted parts of every name ``glob`` matches, or None when
    its literal parts do not tell."""
    if glob.ignore_case or any("." not in last for _, last, _, _ in glob.wild):
        return None
    return {text.rpartition(".")[2] for text in glob.exact} | {
        last.rpartition(".")[2] for _, last, _, _ in glob.wild
    }


@dataclass(frozen=True)
class _Known:
    """A table's index and the answers it gave, by name."""

    table: Sequence[Any]  # held, so that its id stays unique
    index: _TailIndex
    answers: Dict[str, Any]


# id(table) -> what is known of it.
_KNOWN: Dict[int, _Known] = {}


def _known(table: Sequence[Any], pattern_of: Callable[[Any], Tuple[str, bool]]) -> _Known:
    held = _KNOWN.get(id(table))
    if held is None or held.table is not table:
        if len(_KNOWN) >= 256:  # tables of many configurations in one process (tests)
            _KNOWN.clear()
        globs = [_compiled(*pattern_of(entry)) for entry in table]
        held = _KNOWN[id(table)] = _Known(table, _tail_index(globs), {})
    return held


@lru_cache(maxsize=None)
def _compiled(pattern: str, ignore_case: bool) -> Glob:
    return compile_glob(pattern, ignore_case=ignore_case)


# --------------------------------------------------------------------------
# Lock expiry units and task time limits (IDM006)

# Celery's worker pool setting (new, Django namespace, pre-4.0 names) and the
# pools that run tasks in the worker process itself: ``reject_on_worker_lost``
# governs a prefork child that dies mid-task; with these a dead worker never
# acks, and the broker redelivers (Celery's configuration guide,
# ``worker_pool``; ``task_reject_on_worker_lost``).
WORKER_POOL_SETTINGS = frozenset({"worker_pool", "CELERY_WORKER_POOL", "CELERYD_POOL"})
IN_PROCESS_POOLS = frozenset({"threads", "solo", "gevent", "eventlet"})

# What Celery runs on a schedule (IDM009: the next run redoes what a run lost
# with its worker did).  Celery's "Periodic Tasks" guide: a beat entry is a
# mapping with a ``"task"`` name and a ``"schedule"`` (``beat_schedule``,
# ``CELERY_BEAT_SCHEDULE``); ``app.add_periodic_task(schedule, sig)`` takes
# the signature second or as ``sig=`` (a framework directive of that name,
# such as a Pyramid ``config.add_periodic_task``, is read the same way); a
# periodic task decorator (``periodic_task(run_every=...)``) is its own
# schedule.  Beat finds a task by the name it is registered under: its
# ``name=``, else the dotted path of the module that defines it.
BEAT_ENTRY_KEYS = ("task", "schedule")
BEAT_SCHEDULE_SETTING = "beat_schedule"
# A flag that says a row was given up rather than its work done.
GIVEN_UP_WORDS = frozenset({"expired", "cancelled", "canceled", "voided", "deleted", "archived", "failed",
                            "rejected", "disabled", "abandoned"})
SCHEDULING_METHODS = frozenset({"add_periodic_task"})
SCHEDULED_SIGNATURE = (1, "sig")

# Reads of an environment variable: a setting read with a default
# (``os.environ.get(K, "300")``, ``os.getenv(K) or 300``) is taken at its
# default, what a deployment that sets nothing runs with.
ENVIRONMENT_READS = frozenset({"os.environ.get", "os.getenv"})

# A thread started to keep a lock alive while the work runs: its target is
# handed the key (``Thread(target=heartbeat, args=(stop, key))``) and sets it
# again, or pushes its expiry back, with one of these methods.
THREAD_STARTERS = frozenset({"threading.Thread", "threading.Timer"})
KEY_REFRESH_METHODS = frozenset({"set", "expire", "pexpire", "touch", "extend", "setex", "psetex"})

# Seconds per unit of each TTL keyword of LOCK_APIS. A TTL passed at an API's
# ``ttl_position`` has the unit of its first ``ttl_keywords`` entry (redis
# ``set(k, v, ex)``, ``cache.add(k, v, timeout)``). A ``timedelta`` is a
# duration whatever the keyword (redis-py converts it for ``px`` too).
LOCK_TTL_SECONDS_PER_UNIT = {"ex": 1.0, "px": 0.001, "timeout": 1.0, "expire": 1.0}

# Expiries that are points in time (unix seconds / milliseconds), not durations.
ABSOLUTE_LOCK_TTL_KEYWORDS = frozenset({"exat", "pxat"})

# Keywords that keep a lock alive while its holder runs.
LOCK_AUTO_RENEWAL_KEYWORDS = frozenset({"auto_renewal"})

# Methods of a lock object that push its expiry back, and commands that reset
# the TTL of a SET NX key.
LOCK_RENEWAL_METHODS = frozenset({"extend", "reacquire", "renew"})
KEY_EXPIRE_METHODS = frozenset({"expire", "pexpire"})

# A task's own run-time limit, by framework: option (decorator/registration
# keyword, or class attribute of a class-based Celery task) -> seconds per
# unit. Worker-wide defaults (Celery's task_time_limit, Dramatiq's 10 minutes,
# RQ's 180 s) are not the task's own and are not assumed.
TASK_TIME_LIMITS = {
    "celery": {"time_limit": 1.0, "soft_time_limit": 1.0},
    "custom": {"time_limit": 1.0, "soft_time_limit": 1.0},
    "dramatiq": {"time_limit": 0.001},
    "rq": {"timeout": 1.0, "job_timeout": 1.0},
    "arq": {"timeout": 1.0},
    "taskiq": {"timeout": 1.0},
}


# --------------------------------------------------------------------------
# Enqueueing a task (IDM008)


@dataclass(frozen=True)
class EnqueueCall:
    """A call that runs a task again, and where it takes the task's arguments.

    ``spread`` calls take the task's arguments as their own positional and
    keyword arguments (``delay(a, b=1)``), after ``skip`` leading positional
    ones (RQ's function, arq's function name) and except ``options``.  The
    others take them as ``args=`` / ``kwargs=`` (or at ``args_position`` /
    ``kwargs_position``).  ``function_position`` is set when the task is
    named by an argument (``queue.enqueue(f, ...)``) instead of the receiver.
    ``option_prefix`` marks keyword options by a prefix (arq's ``_defer_by``).
    """

    method: str
    spread: bool
    args_position: Optional[int] = None
    kwargs_position: Optional[int] = None
    function_position: Optional[int] = None
    function_keyword: Optional[str] = None
    options: FrozenSet[str] = frozenset()
    option_prefix: Optional[str] = None
    by_name: bool = False


_RQ_ENQUEUE_OPTIONS = frozenset(
    {
        "timeout", "job_timeout", "result_ttl", "ttl", "failure_ttl", "description",
        "depends_on", "job_id", "at_front", "meta", "retry", "on_success",
        "on_failure", "on_stopped", "pipeline", "group_id", "queue", "connection",
    }
)

# Calls on the task itself (``charge.delay``, ``self.retry``, ``actor.send``).
TASK_ENQUEUE_CALLS: Tuple[EnqueueCall, ...] = (
    EnqueueCall("retry", spread=False, args_position=0, kwargs_position=1),
    EnqueueCall("apply_async", spread=False, args_position=0, kwargs_position=1),
    EnqueueCall("delay", spread=True),
    EnqueueCall("send", spread=True),
    EnqueueCall("send_with_options", spread=False),
    EnqueueCall("kiq", spread=True),
    EnqueueCall("schedule", spread=False, args_position=0, kwargs_position=1),
)

# The methods of a task object that enqueue it or run it inline (Celery,
# Dramatiq, taskiq, RQ's ``@job``): what is enqueued is the receiver.
TASK_OBJECT_METHODS = frozenset({"delay", "apply_async", "send", "send_with_options", "kiq", "run"})
# Class decorators that declare the interfaces a class implements: an
# object looked up by the interface (``request.find_service(IMailer)``) is
# one of those classes.  Source: zope.interface, "Declaring implemented
# interfaces" (zopeinterface.readthedocs.io/en/latest/README.html).
IMPLEMENTS_DECORATORS: Tuple[str, ...] = ("zope.interface.implementer", "zope.interface.declarations.implementer")
# Library calls given a class that return something else than an instance
# of it: a query over a model (SQLAlchemy's ``session.query(Order)``,
# ``select(Order)``), a container or a partial made with it as a factory
# (``defaultdict(Order)``, ``partial(Order)``), a mock or an adapter of it.
# Any other library call given one project class, whose result is used as
# an instance of it, is a lookup (``find_service(IMailer)``).
BUILT_FROM_A_CLASS: Tuple[str, ...] = (
    "*.query", "*.select", "*.aliased", "sqlalchemy.*", "collections.*", "functools.*",
    "unittest.mock.*", "mock.*", "typing.*", "dataclasses.*", "copy.*", "inspect.*",
    "pydantic.*", "marshmallow.*", "django.apps.*", "*.register", "*.connect",
)

# The base of an interface: its methods are declarations, run by the
# classes that implement it.
INTERFACE_BASES: Tuple[str, ...] = ("zope.interface.Interface", "zope.interface.interface.Interface")

# Celery signatures built from the task, ``t.s(x).apply_async()``, and the
# calls that enqueue them.  Source: Celery's "Canvas: Designing Work-flows"
# (docs.celeryq.dev/en/stable/userguide/canvas.html).
SIGNATURE_METHODS = frozenset({"s", "si", "signature", "map", "starmap", "chunks"})
SIGNATURE_RUNNERS = frozenset({"apply_async", "delay"})
# A signature's methods that give the signature back (``sig.set(countdown=5)``)
# or a copy of it.
SIGNATURE_KEEPING_METHODS = frozenset({"set", "clone", "set_immutable", "freeze"})
# Celery's canvas and signature constructors: each holds the tasks its
# arguments hold (``group(t.s(x) for x in xs)``), or the task named by its
# first argument (``signature("pkg.tasks.send")``).
CANVAS_CALLS: Tuple[str, ...] = (
    "celery.group", "celery.chain", "celery.chord", "celery.chunks", "celery.signature",
    "celery.subtask", "celery.canvas.*", "celery.Celery().signature", "celery.current_app.signature",
)

# RQ's delay() takes job options next to the function's keyword arguments.
TASK_ENQUEUE_OPTIONS = {"rq": _RQ_ENQUEUE_OPTIONS}

# Calls that name the task in an argument (RQ queues, arq's pool).
QUEUE_ENQUEUE_CALLS: Tuple[EnqueueCall, ...] = (
    EnqueueCall("enqueue", spread=True, function_position=0, function_keyword="f",
                options=_RQ_ENQUEUE_OPTIONS),
    EnqueueCall("enqueue_call", spread=False, function_position=0,
                function_keyword="func", args_position=1, kwargs_position=2,
                options=_RQ_ENQUEUE_OPTIONS),
    EnqueueCall("enqueue_in", spread=True, function_position=1, options=_RQ_ENQUEUE_OPTIONS),
    EnqueueCall("enqueue_at", spread=True, function_position=1, options=_RQ_ENQUEUE_OPTIONS),
    EnqueueCall("enqueue_job", spread=True, function_position=0, function_keyword="function",
                option_prefix="_", by_name=True),
)

# Calls that run a callable once the database transaction commits: a task
# class whose ``apply_async`` hands the enqueue to one enqueues after the
# commit, outside any transaction of the caller.
COMMIT_HOOKS: Tuple[str, ...] = ("django.db.transaction.on_commit",)

# Whether the code runs inside an atomic block of Django's default
# database, as a helper that defers its work to the commit only when it
# does asks it: the branch it takes is decided by the default database's
# ``atomic()`` blocks the trace has opened around it (another database's,
# or SQLAlchemy's, leave the flag False).  ``get_connection()`` counts only
# without arguments (one names a database).
ATOMIC_BLOCK_FLAGS: Tuple[str, ...] = (
    "django.db.connection.in_atomic_block",
    "django.db.transaction.get_connection().in_atomic_block",
)
# The blocks that set it: ``atomic`` (as a decorator or a context) with no
# database named (its first argument, ``using``).
DEFAULT_ATOMIC_BLOCKS: Tuple[str, ...] = ("django.db.transaction.atomic", "django.db.transaction.atomic()")

# Every method name a call that enqueues a task may end in.
ENQUEUEING_METHODS = TASK_OBJECT_METHODS | {entry.method for entry in QUEUE_ENQUEUE_CALLS if not entry.by_name}

# Frameworks where calling the task function itself enqueues it.
CALL_ENQUEUES = frozenset({"huey"})

# Frameworks whose task functions receive a context first, not an argument.
CONTEXT_FIRST_FRAMEWORKS = frozenset({"arq"})

# Conversions that keep a task argument's value (``int(order_id)``).
VALUE_PRESERVING_CALLS = frozenset(
    {"int", "str", "float", "tuple", "list", "dict", "uuid.UUID", "decimal.Decimal"}
)
