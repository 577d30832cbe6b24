"""A project wrapper around the Stripe SDK that hands every option on."""

from typing import Optional, TypedDict

import stripe
from typing_extensions import Unpack


class IntentParams(TypedDict, total=False):
    amount: int
    confirm: bool
    idempotency_key: str


class Gateway:
    async def create_payment_intent(self, **params: Unpack[IntentParams]) -> stripe.PaymentIntent:
        return await stripe.PaymentIntent.create_async(**params)  # expect: IDM002

    def create_refund(self, **options):
        return stripe.Refund.create(**options)

    def create_payout(self, amount, **options):
        options["amount"] = amount
        return stripe.Payout.create(**options)


gateway = Gateway()


def create_transfer(**kwargs):
    return stripe.Transfer.create(**kwargs)  # expect: IDM002


def transfer(destination: str, amount: int, *, idempotency_key: Optional[str] = None) -> stripe.Transfer:
    params: IntentParams = {"amount": amount, "idempotency_key": idempotency_key}
    return stripe.Transfer.create(destination=destination, **params)


def reverse(transfer_id: str, idempotency_key: Optional[str] = None) -> stripe.Reversal:
    return stripe.Transfer.create_reversal(transfer_id, idempotency_key=idempotency_key)  # expect: IDM002
