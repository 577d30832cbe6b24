import stripe


def refund(order_id):
    stripe.Refund.create(payment_intent=f"pi_{order_id}", idempotency_key=f"refund-{order_id}")
