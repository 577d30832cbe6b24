"""Payment helpers: no tasks here, but tasks call them."""

import stripe


def capture(order):
    stripe.PaymentIntent.capture(order.intent_id)  # expect: IDM002


def refund(order):
    _refund_once(order, attempts=3)


def _refund_once(order, attempts):
    if attempts and order.refundable:
        stripe.Refund.create(payment_intent=order.intent_id, idempotency_key=f"refund-{order.pk}")
        return _refund_once(order, attempts - 1)
    return None


def charge_from_admin(order):
    # Called from the admin only, never from a task: not reported.
    stripe.PaymentIntent.create(amount=order.total, currency="eur")
