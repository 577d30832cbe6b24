"""Steps picked by name: one marks an order sent, another sends the e-mail."""

from django.core.mail import send_mail

from notify.models import Order


def mark_sent(order):
    order.sent = True
    order.save()


def email(order):
    send_mail("Receipt", "Thanks", None, [order.email])  # expect: IDM007


STEPS = {"mark": mark_sent, "mail": email}


def run_step(kind, order_id):
    order = Order.objects.get(pk=order_id)
    if order.sent:
        return
    STEPS[kind](order)
