"""Outbound notifications to the fulfilment partner's webhook.

The partner deduplicates deliveries by the ``Idempotency-Key`` header
(their docs: "same key within 7 days -> 200 with the first response").
Without the header, every redelivery is a new event on their side.
Tasks marked BUG are deliberately wrong; see examples/README.md.
"""
import requests
from celery import shared_task
from django.conf import settings
from django.db import transaction

from orders.models import Order

PARTNER_TIMEOUT = 10  # seconds


def _partner_auth_header():
    return {"Authorization": f"Bearer {settings.PARTNER_API_TOKEN}"}


@shared_task(bind=True, max_retries=8)
def notify_partner_order_shipped(self, order_id):
    """Tell the partner an order left the warehouse (they email the customer)."""
    order = Order.objects.get(pk=order_id)
    payload = {
        "event": "order.shipped",
        "order_id": order.pk,
        "tracking_number": order.tracking_number,
        "customer_email": order.customer_email,
    }
    try:
        # BUG (IDM002): POST without an Idempotency-Key header. A timeout
        # after the partner processed the request triggers self.retry(), and
        # a worker crash before the ack redelivers the task: either way the
        # partner records a second shipment and the customer gets two emails.
        # Fix: headers={..., "Idempotency-Key": f"order-shipped-{order.pk}"}.
        response = requests.post(
            settings.PARTNER_WEBHOOK_URL,
            json=payload,
            headers={"Authorization": f"Bearer {settings.PARTNER_API_TOKEN}"},
            timeout=PARTNER_TIMEOUT,
        )
        response.raise_for_status()
    except requests.RequestException as exc:
        raise self.retry(exc=exc, countdown=60)


@shared_task(bind=True, max_retries=8)
def notify_partner_order_paid(self, order_id, idempotency_key):
    """Tell the partner an order is paid so they can start picking.

    CORRECT: the key is created once by the caller, at the moment the order
    became paid (see ``schedule_partner_paid_notification``), and travels in
    the task arguments. Retries and redeliveries send the same key, and
    self.retry() passes the original arguments through unchanged.
    """
    order = Order.objects.get(pk=order_id)
    headers = _partner_auth_header()
    try:
        response = requests.post(
            settings.PARTNER_WEBHOOK_URL,
            json={"event": "order.paid", "order_id": order.pk, "total": str(order.total)},
            headers={**headers, "Idempotency-Key": idempotency_key},
            timeout=PARTNER_TIMEOUT,
        )
        response.raise_for_status()
    except requests.RequestException as exc:
        raise self.retry(exc=exc, countdown=60)


def schedule_partner_paid_notification(order):
    """Called by the order "paid" signal handler (not a task).

    The key is chosen here, where the business decision is made: an order
    becomes paid once, so the order id identifies the event. The task is
    enqueued only after the surrounding transaction commits.
    """
    key = f"order-paid-{order.pk}"
    transaction.on_commit(lambda: notify_partner_order_paid.delay(order.pk, key))
