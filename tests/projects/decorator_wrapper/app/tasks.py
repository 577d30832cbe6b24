import requests

from core import actor as background_actor
from core import instrumented
from core import timed as timed_call


@background_actor(queue_name="orders")
def export_order(order_id):
    requests.post("https://partner.example/orders", json={"order": order_id})  # expect: IDM002


@instrumented(name="app.sync")
def sync(order_id):
    requests.post("https://partner.example/sync", json={"order": order_id})  # expect: IDM002


@timed_call
def report(order_id):
    requests.post("https://partner.example/report", json={"order": order_id})
