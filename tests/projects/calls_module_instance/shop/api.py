"""The project's HTTP client and a look-alike that sends nothing."""

import requests


class ApiClient:
    def __init__(self, base_url):
        self.base_url = base_url

    def send(self, payload):
        requests.post(f"{self.base_url}/orders", json=payload)  # expect: IDM002


class Archive:
    def send(self, payload):
        return dict(payload)
