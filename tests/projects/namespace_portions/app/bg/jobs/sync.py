from celery import shared_task

from app.bg import helpers


@shared_task
def refund_order(order_id):
    helpers.refund(order_id)
