"""Tasks that call methods on module-level instances of other modules."""

from celery import shared_task

from shop import clients, default_client
from shop.clients import archive, client


@shared_task
def push_order(order_id):
    client.send({"order": order_id})


@shared_task
def push_through_module(order_id):
    clients.client.send({"order": order_id})


@shared_task
def push_through_package(order_id):
    default_client.send({"order": order_id})


@shared_task
def archive_order(order_id):
    archive.send({"order": order_id})


@shared_task
def archive_shadowed(order_id, client):
    # A parameter hides the module-level instance of the same name.
    client.send({"order": order_id})
