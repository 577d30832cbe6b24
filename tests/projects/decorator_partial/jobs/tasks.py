import requests

from jobs import background, job, memo


@job("default", timeout=300)
def refresh(order_id):
    requests.post("https://partner.example/refresh", json={"order": order_id})  # expect: IDM002


@background(queue="sync")
def push(self, order_id):
    requests.post("https://partner.example/push", json={"order": order_id})  # expect: IDM002


@memo
def rate(order_id):
    requests.post("https://partner.example/rate", json={"order": order_id})
