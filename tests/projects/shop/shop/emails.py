"""Email helpers."""

from django.core.mail import send_mail


def send_receipt(order):
    send_mail("Your receipt", f"Order {order.pk}", None, [order.email])  # expect: IDM013
