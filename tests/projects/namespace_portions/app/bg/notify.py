import requests


def ping(order_id):
    requests.post("https://hooks.example/paid", json={"order": order_id})  # expect: IDM002
