"""Static helpers called through their class."""

import requests


class Coordination:
    @staticmethod
    def report(batch_id):
        requests.post("https://tracker.example/batches", json={"id": batch_id})  # expect: IDM002
