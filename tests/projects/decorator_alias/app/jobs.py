import requests
from invoke import task as invoke_task

from app import project_task as pt
from app import task
from app.util import cached


@pt
def notify(order_id):
    requests.post("https://partner.example/orders", json={"order": order_id})  # expect: IDM002


@task(bind=True)
def push(self, order_id):
    requests.post("https://partner.example/push", json={"order": order_id})  # expect: IDM002


@invoke_task
def deploy(c):
    requests.post("https://deploy.example/hook")


@cached
def lookup(order_id):
    requests.post("https://partner.example/lookup", json={"order": order_id})
