from celery import shared_task

from utils import refund


@shared_task
def refund_order(order_id):
    refund(order_id)
