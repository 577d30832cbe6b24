import requests


def go(order_id):
    requests.post("https://erp.example/go", json={"order": order_id})  # expect: IDM002
