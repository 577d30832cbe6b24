import stripe
from django.core.mail import send_mail


def charge(order_id, amount):
    stripe.PaymentIntent.create(amount=amount, currency="eur")  # expect: IDM002


def receipt(order_id, address):
    send_mail("Receipt", f"Order {order_id}", "shop@example.com", [address])  # expect: IDM013
