"""Payment clients and the factories that build them."""

import functools

import requests


class PaymentClient:
    def __init__(self, token):
        self.token = token

    def charge(self, order_id, amount):
        requests.post("https://pay.example/charges", json={"order": order_id, "amount": amount})  # expect: IDM002

    def refund(self, order_id):
        requests.post("https://pay.example/refunds", json={"order": order_id})  # expect: IDM002

    def capture(self, order_id):
        requests.post("https://pay.example/captures", json={"order": order_id})


class DryRunClient:
    def charge(self, order_id, amount):
        return {"order": order_id, "amount": amount}

    def refund(self, order_id):
        return {"order": order_id}


@functools.lru_cache(maxsize=None)
def get_client() -> PaymentClient:
    return _build()


def make_client(token):
    if token:
        return PaymentClient(token)
    return PaymentClient("default")


def dry_run_client():
    return DryRunClient()


def maybe_client(token):
    if token:
        return PaymentClient(token)
    return None


def _build():
    return PaymentClient("secret")
