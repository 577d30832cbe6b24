import requests

from proj import Base, app
from proj.models import Model


class Sync(Base):
    def run(self, order_id):
        requests.post("https://partner.example/sync", json={"order": order_id})  # expect: IDM002


class Registered:
    def run(self, order_id):
        requests.post("https://partner.example/registered", json={"order": order_id})  # expect: IDM002


class Order(Model):
    def run(self, order_id):
        requests.post("https://partner.example/order", json={"order": order_id})


class Plain:
    def run(self, order_id):
        requests.post("https://partner.example/plain", json={"order": order_id})


app.register_task(Registered())
