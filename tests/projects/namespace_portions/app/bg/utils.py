import stripe


def describe(order_id):
    stripe.PaymentIntent.create(amount=1, currency="eur")
