import requests
from celery import shared_task
from django.core.mail import send_mail

from notify.helpers import ping_partner


@shared_task
def charge(order_id):
    requests.post("https://pay.example/charges", json={"order": order_id})  # expect: IDM002
    send_mail("Receipt", "Paid", "shop@example.com", ["customer@example.com"])  # IDM013 is ignored here
    ping_partner(order_id)
