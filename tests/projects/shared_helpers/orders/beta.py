from celery import shared_task

from orders import billing


@shared_task
def able_charge(order_id, address):
    billing.receipt(order_id, address)
    billing.charge(order_id, 200)
