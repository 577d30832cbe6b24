import requests
from celery import shared_task


@shared_task
def refund(order_id):
    requests.post("https://pay.example/refunds", json={"order": order_id})  # per-file-ignores
