from celery import shared_task

import utils
from app.bg.helpers import pay
from .notify import ping


@shared_task
def charge(order_id):
    pay(order_id)
    ping(order_id)
    utils.describe(order_id)
