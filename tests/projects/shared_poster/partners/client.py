import requests


def push(order_id):
    payload = {"id": order_id}
    return _send("https://partner.example/orders", payload)


def _send(url, payload):
    return requests.post(url, json=payload)  # expect: IDM002


def push_keyed(order_id):
    headers = {"Idempotency-Key": f"push-{order_id}"}
    return requests.post("https://partner.example/orders", json={"id": order_id}, headers=headers)
