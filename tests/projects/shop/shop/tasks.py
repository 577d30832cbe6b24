"""Celery tasks that reach their side effects through other project modules."""

import requests
from celery import shared_task

from shop import capture_payment, emails
from shop.billing import refund
from shop.clients import Zendesk
from shop.models import Order
from shop.partners import PartnerApi
from shop.taskutils import background


@shared_task
def charge_order(order_id):
    order = Order.objects.get(pk=order_id)
    capture_payment(order)


@shared_task
def refund_order(order_id):
    refund(Order.objects.get(pk=order_id))


@shared_task
def send_receipt(order_id):
    emails.send_receipt(Order.objects.get(pk=order_id))


@shared_task
def open_ticket(order_id):
    Zendesk().create_ticket(subject=f"Order {order_id} failed")


@background(queue="webhooks")
def notify_partner(order_id):
    requests.post("https://partner.example/orders", json={"order": order_id})  # expect: IDM002


@shared_task
def push_to_partner(order_id):
    api = PartnerApi(token="secret")
    api.push_order(order_id)
    api.fetch_order(order_id)
