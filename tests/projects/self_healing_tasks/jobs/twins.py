"""Late acks on tasks something looks as if it runs again, but does not."""

from datetime import timedelta

import requests
from celery import shared_task

from jobs.models import Event, Invoice, Order, Shipment

retrying = shared_task(
    acks_late=True,  # expect: IDM009
    autoretry_for=(Exception,),
)


@retrying
def refund_swept(event_id):
    event = Event.objects.get(id=event_id, status=Event.PENDING)
    event.status = Event.DONE
    event.save()


def _charge(order_id):
    return order_id


charge = retrying(_charge)


@shared_task(acks_late=True)  # expect: IDM009
def sync_account(account_id):
    return account_id


def register_partner(account_id):
    # A payload with "task" and "schedule" keys, sent to a partner: no beat entry.
    requests.post("https://partner.example/jobs", json={"task": "jobs.twins.sync_account", "schedule": "daily"})


@shared_task(acks_late=True, run_every=timedelta(hours=1))  # expect: IDM009
def hourly_without_a_beat():
    return "Celery 4 and later ignore run_every on a plain task"


@shared_task(name="billing.charge_invoice", acks_late=True)  # expect: IDM009
def charge_invoice(invoice_id):
    return invoice_id


@shared_task(acks_late=True)  # expect: IDM009
def send_invoice(invoice_id):
    invoice = Invoice.objects.get(id=invoice_id, status=Invoice.PENDING)
    return invoice


@shared_task
def expire_invoices():
    for invoice in Invoice.objects.filter(status=Invoice.PENDING):
        invoice.status = Invoice.EXPIRED
        invoice.save()


@shared_task(acks_late=True)  # expect: IDM009
def ship_order(order_id):
    order = Order.objects.get(id=order_id)
    if order.status != "pending":
        return
    order.status = "shipped"
    order.save()


@shared_task(acks_late=True)  # expect: IDM009
def pack_order(order_id):
    order = Order.objects.get(id=order_id, status=Order.QUEUED)
    order.status = "running"
    order.save()
    order.status = Order.PACKED
    order.save()


@shared_task
def resweep_orders():
    for order in Order.objects.filter(status="failed"):
        ship_order.delay(order.id)
    for order in Order.objects.filter(status=Order.QUEUED):
        pack_order.delay(order.id)


@shared_task(acks_late=True)  # expect: IDM009
def confirm_order(order_id):
    order = Order.objects.get(id=order_id)
    shipment = Shipment.objects.filter(order_id=order_id).first()
    if order.status == Order.QUEUED and shipment is not None:
        order.status = Order.CONFIRMED
        order.save()


@shared_task
def confirm_shipments():
    for shipment in Shipment.objects.filter(status=Order.QUEUED):
        shipment.status = Order.CONFIRMED
        shipment.save()


@shared_task
def refund_sweep():
    for event in list(Event.objects.filter(status=Event.PENDING)):
        refund_swept.delay(event.id)
