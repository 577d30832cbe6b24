import abc
from typing import Generic, TypeVar

import httpx
import requests
import stripe

from partner.compat import Session

T = TypeVar("T")


class BaseSession(requests.Session):
    def __init__(self, base_url):
        super().__init__()
        self.base_url = base_url


class PartnerSession(BaseSession):
    def request(self, method, url, *args, **kwargs):
        kwargs.setdefault("timeout", 10)
        return super().request(method, self.base_url + url, *args, **kwargs)


class KeyedSession(requests.Session):
    def post(self, url, key, **kwargs):
        return super().post(url, headers={"Idempotency-Key": key}, **kwargs)


class Inventory(httpx.Client):
    def reserve(self, sku):
        return self.post("https://stock.example/reservations", json={"sku": sku})  # expect: IDM002

    def level(self, sku):
        return self.get(f"https://stock.example/levels/{sku}")


session = BaseSession("https://partner.example")


class AuditedSession(requests.Session):
    def post(self, url, **kwargs):
        print("POST", url)
        return super().post(url, **kwargs)  # expect: IDM002


class TypedSession(abc.ABC, Generic[T], requests.Session):
    pass


class CompatSession(Session):
    pass


class LegacySession(requests.Session):
    def post(self, url, **kwargs):
        return super(LegacySession, self).post(url, **kwargs)  # expect: IDM002


class Payments(stripe.StripeClient):
    def __init__(self):
        super().__init__("sk_test")


class LocalRefunds:
    def create(self, **kwargs):
        return kwargs


class Books(stripe.StripeClient):
    @property
    def refunds(self):
        return LocalRefunds()


payments = Payments()
books = Books("sk_test")
