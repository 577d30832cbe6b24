"""The project's webhook client."""

import requests


class Webhooks:
    def deliver(self, event_id):
        requests.post("https://hooks.example/deliveries", json={"event": event_id})  # expect: IDM002
