import requests
from django.core.mail import send_mail
from myproject.instrumentation import instrumented_task


@instrumented_task(queue="mail")
def notify(order_id):
    requests.post("https://partner.example/orders", json={"order": order_id})  # expect: IDM002
    send_mail("Shipped", "On its way", "shop@example.com", ["customer@example.com"])  # expect: IDM013
