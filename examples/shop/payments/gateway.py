"""Thin client for the legacy card gateway used for invoice and card orders.

Not task code: it only builds the HTTP request. Whether a charge is
idempotent depends on the caller passing ``idempotency_key``.
"""
from dataclasses import dataclass
from decimal import Decimal
from typing import Optional

import requests
from django.conf import settings


class GatewayError(Exception):
    pass


class GatewayTimeout(GatewayError):
    pass


@dataclass
class ChargeResult:
    id: str
    status: str


class PaymentGateway:
    def __init__(self, base_url: str, api_key: str, timeout: float = 15.0):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.session = requests.Session()

    def _post(self, path: str, payload: dict, idempotency_key: Optional[str]) -> dict:
        headers = {"Authorization": f"Bearer {self.api_key}"}
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        try:
            response = self.session.post(
                f"{self.base_url}{path}", json=payload, headers=headers, timeout=self.timeout
            )
        except requests.Timeout as exc:
            raise GatewayTimeout(path) from exc
        if response.status_code >= 400:
            raise GatewayError(response.text)
        return response.json()

    def charge(
        self,
        amount: Decimal,
        currency: str,
        card_token: Optional[str] = None,
        customer_ref: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> ChargeResult:
        data = self._post(
            "/charges",
            {
                "amount": str(amount),
                "currency": currency,
                "card_token": card_token,
                "customer_ref": customer_ref,
            },
            idempotency_key,
        )
        return ChargeResult(id=data["id"], status=data["status"])

    def refund(self, charge_id: str, amount: Decimal, idempotency_key: Optional[str] = None) -> ChargeResult:
        data = self._post(f"/charges/{charge_id}/refunds", {"amount": str(amount)}, idempotency_key)
        return ChargeResult(id=data["id"], status=data["status"])


payment_gateway = PaymentGateway(settings.PAYMENT_GATEWAY_URL, settings.PAYMENT_GATEWAY_API_KEY)
