"""Only the project's own decorator marks these tasks: no other task-shaped text."""

import requests

from core import instrumented
from core import timed


@instrumented(name="app.export")
def export(order_id):
    requests.post("https://partner.example/export", json={"order": order_id})  # expect: IDM002


@timed
def audit(order_id):
    requests.post("https://partner.example/audit", json={"order": order_id})
