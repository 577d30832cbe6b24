"""IDM002's fix: a key naming the task's unit of work, passed as the SDK takes one."""

import requests
import stripe
from celery import shared_task
from yookassa import Payment


@shared_task
def charge_order(order_id, amount):
    stripe.Charge.create(amount=amount, currency="eur")


@shared_task(bind=True)
def capture(self, payment_id):
    stripe.PaymentIntent.capture(
        payment_id,
        amount_to_capture=100,
    )


@shared_task
def pay(order_id):
    Payment.create({"amount": {"value": "1.00", "currency": "RUB"}}, None)


@shared_task
def notify_partner(order_id, event_id):
    requests.post("https://partner.example.com/orders", json={"id": order_id})


@shared_task
def notify_with_headers(order_id):
    requests.post(
        "https://partner.example.com/orders",
        json={"id": order_id},
        headers={"Authorization": "Bearer x"},
    )


@shared_task
def notify_with_no_headers(order_id):
    requests.post("https://partner.example.com/orders", headers={})


# No fix: the headers are a variable.
@shared_task
def notify_with_a_variable(order_id, headers):
    requests.post("https://partner.example.com/orders", headers=headers)


# No fix: no argument says which work this is.
@shared_task
def nightly_payout():
    stripe.Payout.create(amount=1, currency="eur")


# No fix in a helper: its callers may do other work.
def charge(amount):
    stripe.Charge.create(amount=amount, currency="eur")


@shared_task
def through_a_helper(order_id):
    charge(10)


# No fix: the catalogue names no keyword for it (StripeClient takes the key in its options).
@shared_task
def through_the_client(order_id):
    client = stripe.StripeClient("sk")
    client.v1.charges.create({"amount": 1})


# Two calls of one task: each key names its operation.
@shared_task
def charge_then_refund(order_id):
    stripe.Charge.create(amount=1, currency="eur")
    stripe.Refund.create(charge="ch_1")


# No fix: two requests of one task would share one key.
@shared_task
def notify_twice(order_id):
    requests.post("https://a.example.com/orders", json={"id": order_id})
    requests.post("https://b.example.com/orders", json={"id": order_id})


# No fix in a loop: every pass would send the same key.
@shared_task
def charge_each(batch_id, amounts):
    for amount in amounts:
        stripe.Charge.create(amount=amount, currency="eur")


# No fix after a bare generator: the keyword would make the call invalid.
@shared_task
def charge_generated(order_id, amounts):
    stripe.Charge.create(x for x in amounts)


# No fix: an argument that defaults to None would give every call without it one key.
@shared_task
def charge_optional(*, invoice_id=None):
    stripe.Charge.create(amount=1, currency="eur")
