from celery import shared_task

from partners.client import push


@shared_task
def export_order(order_id):
    push(order_id)
    push(order_id)
