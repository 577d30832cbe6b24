from celery import shared_task

from orders.billing import charge, receipt


@shared_task
def zulu_charge(order_id, address):
    charge(order_id, 100)
    receipt(order_id, address)
