"""A partner API client that keeps its HTTP session on the instance."""

import requests


class PartnerApi:
    def __init__(self, token):
        self.session = requests.Session()
        self.token = token

    def push_order(self, order_id):
        self.session.post("https://partner.example/orders", json={"id": order_id})  # expect: IDM002

    def fetch_order(self, order_id):
        return self.session.get(f"https://partner.example/orders/{order_id}")
