import requests


def capture(order_id):
    requests.post("https://pay.example/capture", json={"order": order_id})  # expect: IDM002


class Refunds:
    @staticmethod
    def refund(order_id):
        requests.post("https://pay.example/refund", json={"order": order_id})  # expect: IDM002


def cleanup():
    requests.post("https://pay.example/cleanup")  # expect: IDM002


def rebuild(order_id):
    requests.post("https://pay.example/rebuild", json={"order": order_id})  # expect: IDM002


def notify(order_id):
    requests.post("https://pay.example/notify", json={"order": order_id})  # expect: IDM002


def audit(order_id):
    requests.post("https://pay.example/audit", json={"order": order_id})


def settle(order_id):
    requests.post("https://pay.example/settle", json={"order": order_id})  # expect: IDM002
