"""An alias whose other side is a library function: the call is still a
call of its own (the flag before it is a marker), and the project side is
walked."""

from celery import shared_task
from vendor.sms import send_sms

from notify.channels import log
from notify.models import Order


@shared_task
def text_receipt(order_id, urgent):
    order = Order.objects.get(pk=order_id)
    if order.sent:
        return
    order.sent = True  # expect: IDM003
    order.save()
    notify = send_sms if urgent else log
    notify(order.email, "sent")
