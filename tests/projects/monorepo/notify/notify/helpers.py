import requests


def ping_partner(order_id):
    requests.post("https://partner.example/pings", json={"order": order_id})  # expect: IDM002
