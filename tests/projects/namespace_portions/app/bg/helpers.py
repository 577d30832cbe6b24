import stripe


def pay(order_id):
    stripe.PaymentIntent.create(amount=100, currency="eur")  # expect: IDM002


def refund(order_id):
    stripe.Refund.create(payment_intent=order_id)  # expect: IDM002
