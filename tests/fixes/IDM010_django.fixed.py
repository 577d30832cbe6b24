"""IDM010's fix: the call handed to Django's transaction.on_commit."""

import requests
from celery import shared_task
from django.core.mail import send_mail
from django.db import transaction

from shop.models import Order


@shared_task
def confirm(order_id):
    with transaction.atomic():
        order = Order.objects.select_for_update().get(pk=order_id)
        order.status = "confirmed"
        order.save()
        transaction.on_commit(lambda: send_mail("Confirmed", "Your order", "shop@example.com", [order.email]))


@shared_task
@transaction.atomic
def confirm_decorated(order_id):
    order = Order.objects.get(pk=order_id)
    transaction.on_commit(lambda: send_mail("Confirmed", "Your order", "shop@example.com", [order.email]))


# No fix in a loop: each lambda would see the last order id.
@shared_task
def confirm_all(order_ids):
    with transaction.atomic():
        for order_id in order_ids:
            send_mail("Confirmed", "Your order", "shop@example.com", [order_id])


# No fix where the call's result is read inside the transaction.
@shared_task
def confirm_and_read(order_id):
    with transaction.atomic():
        response = requests.post("https://x.example/orders", json={"id": order_id})
        Order.objects.filter(pk=order_id).update(remote=response.json()["id"])


# No fix where work follows the call in the transaction: the deferred call
# would read what that work changed (here, the e-mail address).
@shared_task
def confirm_then_clear(order_id):
    with transaction.atomic():
        order = Order.objects.select_for_update().get(pk=order_id)
        send_mail("Confirmed", "Your order", "shop@example.com", [order.email])
        order.email = ""
        order.save()
