"""A partner API client built on a requests session."""

import uuid

import requests

TOKEN_PATH = "/oauth/token"


class PartnerClient:
    def __init__(self, base_url):
        self.base_url = base_url
        self.session = requests.Session()

    def authenticate(self, client_id, secret):
        response = self.session.post(
            self.base_url + TOKEN_PATH,
            data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
        )
        self.session.headers["Authorization"] = "Bearer " + response.json()["access_token"]

    def replace_listing(self, sku, listing):
        self.session.put(f"{self.base_url}/listings/{sku}", json=listing)

    def withdraw_listing(self, sku):
        self.session.delete(f"{self.base_url}/listings/{sku}")

    def create_order(self, payload):
        return self.session.post(f"{self.base_url}/orders", json=payload)  # expect: IDM002

    def revoke_tokens(self):
        self.session.post(f"{self.base_url}/tokens/revoke-all")  # expect: IDM002

    def notify(self, event_pk, payload):
        headers = {"Content-Type": "application/json"}
        headers["X-Partner-Delivery"] = str(uuid.uuid4())  # expect: IDM001
        headers["X-Request-Id"] = str(uuid.uuid4())
        headers["Idempotency-Key"] = f"event-{event_pk}"
        self.session.post(f"{self.base_url}/events", json=payload, headers=headers)
