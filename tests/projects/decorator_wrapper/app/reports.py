"""Decorated only by a project decorator that wraps no task decorator: not even read twice."""

import requests

from core import timed


@timed
def weekly(order_id):
    requests.post("https://partner.example/weekly", json={"order": order_id})
