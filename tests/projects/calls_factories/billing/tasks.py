"""Tasks that call methods on what factories return."""

from celery import shared_task

from billing import clients, services
from billing.clients import dry_run_client, get_client, make_client


@shared_task
def charge_order(order_id):
    get_client().charge(order_id, 100)


@shared_task
def charge_with_token(order_id, token):
    client = make_client(token)
    client.refund(order_id)


@shared_task
def rehearse_charge(order_id):
    dry_run_client().refund(order_id)


@shared_task
def charge_maybe(order_id, token):
    clients.maybe_client(token).capture(order_id)


@shared_task
def pay_seller(account, amount):
    services.pay_out(account, amount)


@shared_task
def pay_seller_somewhere(flag, account, amount):
    services.pay_out_somewhere(flag, account, amount)
