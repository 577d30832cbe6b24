import requests
from celery import shared_task

from shop.models import Order
from shop.notify import email_receipt


@shared_task
def archive(order_id):
    return order_id


@shared_task(bind=True, max_retries=3)
def settle(self, order_id, gateway):
    orders = Order.objects.filter(pk=order_id).exclude(paid=True)  # reach: library library
    if not orders.exists():  # reach: library
        return
    count = len(Order.objects.overdue())  # reach: library unresolved
    requests.post("https://pay.example/charges", json={"order": order_id, "n": count})  # reach: library  # effect: keyable HTTP
    gateway.refresh(order_id)  # reach: unresolved
    email_receipt(order_id)  # reach: followed
    archive.delay(order_id)  # reach: enqueued
    audit(order_id)  # reach: unresolved
    self.note_progress(order_id)  # reach: unresolved
    label = ", ".join([str(order_id)])  # reach: library library
    if gateway.failed:
        raise self.retry(countdown=60)  # reach: library
