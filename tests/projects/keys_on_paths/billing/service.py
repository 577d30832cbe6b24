"""Charges whose key is set on one path only, handed to the wrapper."""

from typing import Optional

import requests
import stripe

from billing.gateway import create_transfer, gateway
from billing.gateway import reverse as gateway_reverse
from billing.gateway import transfer as gateway_transfer
from billing.keys import order_key, sync_key


class Mode:
    SYNC = "sync"
    BACKGROUND = "background"


async def charge(order, mode=Mode.BACKGROUND):
    idempotency_key: Optional[str] = None
    if mode == Mode.SYNC:
        idempotency_key = f"charge:{order.id}"
    await gateway.create_payment_intent(amount=order.amount, confirm=True, idempotency_key=idempotency_key)


def pay_out(order, sync=False):
    key = None
    if sync:
        key = f"payout:{order.id}"
    options = {"idempotency_key": key, "amount": order.amount}
    stripe.Payout.create(**options)  # expect: IDM002


def pay_out_keyed(order, sync=False):
    options = {"idempotency_key": f"payout:{order.id}"}
    gateway.create_payout(order.amount, **options)


def transfer(order, sync=False):
    key = sync_key(order, sync)
    create_transfer(amount=order.amount, destination=order.account, idempotency_key=key)


def refund(order, sync=False):
    if sync:
        key = f"refund:{order.id}"
    else:
        key = order_key(order)
    gateway.create_refund(charge=order.charge_id, idempotency_key=key)


def refund_given(order, key):
    gateway.create_refund(charge=order.charge_id, idempotency_key=key)


def settle(order):
    gateway_transfer(order.account, order.amount, idempotency_key=f"settle:{order.id}")
    gateway_reverse(order.transfer_id, f"reverse:{order.id}")


def unsettle(order):
    gateway_reverse(order.transfer_id)


async def charge_keyed(order):
    await gateway.create_payment_intent(amount=order.amount, confirm=True, idempotency_key=f"charge:{order.id}")


def pay_out_then_forget(order):
    # The key is a string when each call runs; the name is cleared after.
    key = f"payout:{order.id}"
    stripe.Payout.create(amount=order.amount, **{"idempotency_key": key})
    options = {"idempotency_key": key}
    stripe.Payout.create(amount=order.amount, **options)
    create_transfer(amount=order.amount, destination=order.account, idempotency_key=key)
    key = None
    return key


def reverse_stored(order):
    # What the stored key holds is not known: the benefit of the doubt.
    gateway_reverse(order.transfer_id, idempotency_key=order.reversal_key)


def notify_partner(order, sync=False):
    key = None
    if sync:
        key = f"notify:{order.id}"
    requests.post("https://partner.example/v1/orders", json={"order": order.id}, headers={"Idempotency-Key": key})  # expect: IDM002
