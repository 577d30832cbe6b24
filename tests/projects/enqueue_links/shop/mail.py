"""The mailer tasks, registered under their dotted names or a name of their own."""

import requests
from celery import shared_task
from django.core.mail import send_mail

from shop.models import Order
from shop.names import TaskNames


@shared_task
def send_receipt(order_id):
    send_mail("Receipt", "Thanks", None, [f"{order_id}@example.com"])  # expect: IDM013


@shared_task(name="mail.send_notice")
def send_notice(user_id):
    send_mail("Notice", "Hello", None, [f"{user_id}@example.com"])  # expect: IDM013


@shared_task(name=TaskNames.SEND_ALERT)
def send_alert(user_id):
    send_mail("Alert", "Look", None, [f"{user_id}@example.com"])  # expect: IDM013


@shared_task(name=TaskNames.LOOKUP)
def lookup(order_id):
    return requests.get(f"https://orders.example/{order_id}").json()


@shared_task
def send_receipt_once(order_id):
    order = Order.objects.get(pk=order_id)
    if order.receipt_sent:
        return
    send_mail("Receipt", "Thanks", None, [order.email])  # expect: IDM007
    order.receipt_sent = True
    order.save()
