"""A project HTTP client whose methods tasks call on an instance."""

import requests


class Zendesk:
    base_url = "https://example.zendesk.com/api/v2"

    def create_ticket(self, subject):
        requests.post(f"{self.base_url}/tickets", json={"subject": subject})  # expect: IDM002
