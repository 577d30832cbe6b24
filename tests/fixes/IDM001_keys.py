"""IDM001's fix: a random key replaced by the arguments that identify the work."""

import hashlib
import os
import secrets
import uuid
from datetime import date

import redis
import stripe
from celery import shared_task

r = redis.Redis()


@shared_task
def charge_order(order_id, amount):
    key = str(uuid.uuid4())  # one per run
    stripe.Charge.create(amount=amount, currency="eur", idempotency_key=key)


@shared_task(bind=True)
def capture_payment(self, payment_id):
    stripe.PaymentIntent.capture(payment_id, idempotency_key=uuid.uuid4().hex)


@shared_task
def sync_account(account_id):
    if r.set(f"lock:sync:{uuid.uuid4()}", "1", nx=True, ex=600):
        do_sync(account_id)


@shared_task
def refund(refund_id):
    stripe.Refund.create(charge="ch_1", idempotency_key="refund-" + str(uuid.uuid4()))


@shared_task
def send_invoice(invoice_id, *, customer_pk):
    stripe.Invoice.create(customer="c", idempotency_key="invoice-{}".format(secrets.token_hex(8)))


@shared_task
def ship(order_id, line_id):
    stripe.Transfer.create(amount=1, destination="acct", idempotency_key=os.urandom(8).hex())


# No fix: a key from the clock may name the period the work belongs to.
@shared_task
def daily_report(account_id):
    stripe.Invoice.create(customer="c", idempotency_key=f"report-{date.today()}")


# No fix: the key already names the work; the random part was added on purpose.
@shared_task
def charge_again(order_id):
    stripe.Charge.create(amount=1, currency="eur", idempotency_key=f"charge-{order_id}-{uuid.uuid4()}")


# No fix: no argument says which work this is.
@shared_task
def nightly():
    stripe.Payout.create(amount=1, currency="eur", idempotency_key=str(uuid.uuid4()))


@shared_task
def notify(email, body):
    stripe.Charge.create(amount=1, currency="eur", idempotency_key=str(uuid.uuid4()))


# No fix in a helper: its callers may do other work.
def pay(amount):
    stripe.Charge.create(amount=amount, currency="eur", idempotency_key=str(uuid.uuid4()))


@shared_task
def through_a_helper(order_id):
    pay(10)


# No fix: the random value is hashed, not spelled.
@shared_task
def hashed(order_id):
    stripe.Charge.create(amount=1, currency="eur", idempotency_key=hashlib.sha256(uuid.uuid4().bytes).hexdigest())


# No fix: the key is assigned on two paths.
@shared_task
def two_paths(order_id, retry):
    if retry:
        key = str(uuid.uuid4())
    else:
        key = str(uuid.uuid4())
    stripe.Charge.create(amount=1, currency="eur", idempotency_key=key)


def do_sync(account_id):
    return account_id


# No fix in a loop: every pass would get the same key.
@shared_task
def charge_each(batch_id, amounts):
    for amount in amounts:
        key = str(uuid.uuid4())
        stripe.Charge.create(amount=amount, currency="eur", idempotency_key=key)


# No fix: the value is a lock's token too, which must stay the holder's own.
@shared_task
def token_and_key(order_id):
    token = str(uuid.uuid4())
    if r.set(f"lock:{order_id}", token, nx=True, ex=60):
        stripe.Charge.create(amount=1, currency="eur", idempotency_key=token)


# No fix: an f-string inside an f-string's quotes needs Python 3.12.
@shared_task
def nested(order_id):
    stripe.Charge.create(amount=1, currency="eur", idempotency_key=f"{'k-' + str(uuid.uuid4())}")


# No fix: bytes are no text to put an f-string beside.
@shared_task
def as_bytes(order_id):
    r.set(b"lock:" + os.urandom(8), "1", nx=True, ex=60)
