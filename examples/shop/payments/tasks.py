"""Stripe tasks: charges, surcharges, refunds and incoming webhook events.

Stripe deduplicates any POST that carries the same ``idempotency_key``
for 24 hours, so a redelivered task is harmless exactly when it sends the
key it sent the first time. Tasks marked BUG are deliberately wrong; see
examples/README.md.
"""
import uuid
from decimal import Decimal

import stripe
from django.conf import settings
from django.db import transaction

from orders.models import Order, Payment, ProcessedWebhook, Refund
from shop.celery import app

stripe.api_key = settings.STRIPE_SECRET_KEY

STRIPE_RETRYABLE = (stripe.error.APIConnectionError, stripe.error.RateLimitError)


@app.task(autoretry_for=STRIPE_RETRYABLE, retry_backoff=True, max_retries=5)
def charge_shipping_surcharge(order_id, amount_cents, reason):
    """Charge the saved card for extra shipping (oversize parcel, islands)."""
    order = Order.objects.get(pk=order_id)
    # BUG (IDM002): no idempotency_key. APIConnectionError is raised when the
    # response is lost, not only when the request is; autoretry_for then
    # creates (and confirms) a second PaymentIntent for the same surcharge.
    intent = stripe.PaymentIntent.create(
        amount=amount_cents,
        currency=order.currency.lower(),
        customer=order.stripe_customer_id,
        payment_method=order.stripe_payment_method_id,
        off_session=True,
        confirm=True,
        description=f"Shipping surcharge for order #{order.pk}: {reason}",
        metadata={"order_id": order.pk, "kind": "surcharge"},
    )
    Payment.objects.create(
        order=order,
        provider="stripe",
        kind="surcharge",
        amount=Decimal(amount_cents) / 100,
        currency=order.currency,
        status="succeeded",
        external_id=intent.id,
    )


@app.task(autoretry_for=STRIPE_RETRYABLE, retry_backoff=True, max_retries=5)
def refund_partial(payment_id, amount_cents, reason):
    """Refund part of a payment (missing item, goodwill credit from support)."""
    payment = Payment.objects.get(pk=payment_id)
    # BUG (IDM001): the key is random per run, so it deduplicates nothing. A
    # retried or redelivered task sends a new key, Stripe sees a new request
    # and refunds the amount a second time (partial refunds stack until the
    # payment is exhausted). Fix: let the support view create the key once and
    # pass it in (idempotency_key=...), or derive it from a persisted request id.
    idempotency_key = f"refund-{payment.pk}-{uuid.uuid4()}"
    refund = stripe.Refund.create(
        payment_intent=payment.external_id,
        amount=amount_cents,
        metadata={"reason": reason},
        idempotency_key=idempotency_key,
    )
    payment.refund_id = refund.id
    payment.save(update_fields=["refund_id"])


@app.task(autoretry_for=STRIPE_RETRYABLE, retry_backoff=True, max_retries=5)
def charge_order_card(order_id):
    """Charge the order total to the customer's saved card.

    CORRECT: the idempotency key is a pure function of the task argument,
    so every run for this order sends the same key and Stripe returns the
    original PaymentIntent instead of charging again. The order is marked
    paid only after Stripe answered.
    """
    order = Order.objects.get(pk=order_id)
    intent = stripe.PaymentIntent.create(
        amount=order.total_cents,
        currency=order.currency.lower(),
        customer=order.stripe_customer_id,
        payment_method=order.stripe_payment_method_id,
        off_session=True,
        confirm=True,
        metadata={"order_id": order_id},
        idempotency_key=f"charge-order-{order_id}",
    )
    Payment.objects.update_or_create(
        order=order,
        provider="stripe",
        kind="order",
        defaults={
            "amount": order.total,
            "currency": order.currency,
            "status": "succeeded",
            "external_id": intent.id,
        },
    )
    order.status = "paid"
    order.save(update_fields=["status", "updated_at"])


@app.task(autoretry_for=STRIPE_RETRYABLE, retry_backoff=True, max_retries=5)
def refund_order(order_id):
    """Refund the Stripe payment of an order (customer cancelled in time).

    CORRECT: pending first, then the effect, then done. The Refund row is
    claimed with get_or_create (one per payment, unique) in state "pending";
    a finished refund short-circuits; the Stripe call carries a key derived
    from the payment id; "succeeded" is written only after Stripe answered.
    A crash anywhere leaves "pending", and the rerun repeats the same keyed
    call, which Stripe answers with the first refund.
    """
    payment = Payment.objects.get(order_id=order_id, provider="stripe", kind="order")
    refund, created = Refund.objects.get_or_create(
        payment=payment,
        defaults={"amount": payment.amount, "status": "pending"},
    )
    if not created and refund.status == "succeeded":
        return refund.stripe_refund_id
    stripe_refund = stripe.Refund.create(
        payment_intent=payment.external_id,
        amount=int(refund.amount * 100),
        idempotency_key=f"refund-payment-{payment.pk}",
    )
    refund.stripe_refund_id = stripe_refund.id
    refund.status = "succeeded"
    refund.save(update_fields=["stripe_refund_id", "status"])
    Order.objects.filter(pk=order_id).update(status="refunded")
    return stripe_refund.id


@app.task
def apply_stripe_event(event_id, event_type, payment_intent_id):
    """Apply a verified Stripe webhook event to our own tables.

    CORRECT: the ProcessedWebhook insert (unique event_id) and the updates it
    records commit in one transaction, and the work is database-only, so
    the row can never claim work that did not happen.
    """
    with transaction.atomic():
        _, created = ProcessedWebhook.objects.get_or_create(
            event_id=event_id, defaults={"event_type": event_type}
        )
        if not created:
            return "duplicate"
        if event_type == "payment_intent.succeeded":
            Payment.objects.filter(external_id=payment_intent_id).update(status="succeeded")
            Order.objects.filter(payments__external_id=payment_intent_id).update(status="paid")
        elif event_type == "payment_intent.payment_failed":
            Payment.objects.filter(external_id=payment_intent_id).update(status="failed")
    return "applied"
