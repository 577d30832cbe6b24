from celery import shared_task

from tool import go


@shared_task
def run(order_id):
    go(order_id)
