from typing import Optional, Union

from celery import shared_task
from django.apps import apps

ORDERS = "orders"


@shared_task
def by_label_and_name(order_id):
    Order = apps.get_model("orders", "Order")
    Order.objects.get(pk=order_id).notify()


@shared_task
def by_a_dotted_name(invoice_id):
    apps.get_model("billing.Invoice").objects.get(pk=invoice_id).send()


@shared_task
def by_keywords_and_a_custom_label(ticket_id):
    model = apps.get_model(app_label="renamed", model_name="Ticket")
    model.objects.get(pk=ticket_id).open()


@shared_task
def through_the_manager_the_model_sets(email):
    apps.get_model("billing", "Receipt").objects.issue(email)


@shared_task
def by_a_name_no_class_can_have(order_id):
    apps.get_model("orders", "order-item").objects.get(pk=order_id).notify()


@shared_task
def by_a_constant_label(order_id):
    apps.get_model(ORDERS, "Order").objects.get(pk=order_id).notify()


@shared_task
def from_a_label_two_apps_have(note_id):
    apps.get_model("notes", "Note").objects.get(pk=note_id).post()


@shared_task
def by_the_package_name_of_a_relabelled_app(ticket_id):
    apps.get_model("custom", "Ticket").objects.get(pk=ticket_id).open()


@shared_task
def by_a_name_not_spelled_out(order_id, model_name):
    apps.get_model("orders", model_name).objects.get(pk=order_id).notify()


def notify_order(order: "orders.Order"):
    order.notify()


def send_invoice(invoice: Optional["billing.Invoice"]):
    invoice.send()


def open_ticket(ticket: Union["renamed.Ticket", None]):
    ticket.open()


def notify_elsewhere(order: "shipping.Order"):
    order.notify()


@shared_task
def through_string_annotations(payload):
    notify_order(payload)
    send_invoice(payload)
    open_ticket(payload)


@shared_task
def through_a_label_no_app_has(payload):
    notify_elsewhere(payload)
