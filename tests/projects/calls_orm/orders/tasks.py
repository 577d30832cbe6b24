"""Tasks that call methods on the orders they fetch."""

from celery import shared_task
from django.db import transaction
from django.shortcuts import get_object_or_404

from orders import models
from orders.models import Order


@shared_task
def receipt(order_id):
    order = Order.objects.get(pk=order_id)
    order.send_receipt()


@shared_task
def remind(email):
    models.Order.objects.filter(email=email).first().send_reminder()


@shared_task
def invoice(order_id):
    order = Order.objects.filter(pk=order_id).last()
    order.send_invoice()


@shared_task
def audit(order_id):
    with transaction.atomic():
        order = Order.objects.select_for_update().get(pk=order_id)
    order.publish_audit()


@shared_task
def confirm(order_id):
    order = get_object_or_404(Order.objects.filter(email__isnull=False), pk=order_id)
    order.send_confirmation()


@shared_task
def describe(order_id):
    order = get_object_or_404(Order, pk=order_id)
    return order.summary()


@shared_task
def count(email):
    return Order.objects.filter(email=email).count()


@shared_task
def survey(emails):
    for order in Order.objects.filter(email__in=emails):
        order.send_survey()


@shared_task
def apologise(emails):
    late = models.Order.objects.filter(email__in=emails).select_related()
    for order in late[:50]:
        order.send_apology()


@shared_task
def digest(emails):
    for line in Order.objects.filter(email__in=emails).values("email"):
        line.send_digest_line()
