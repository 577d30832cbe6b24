import requests
from celery import shared_task

from proj import NotATask, RetryingTask, SafeTask, app
from proj.celery import other


@app.task(base=RetryingTask)
def sync(order_id):
    requests.post("https://partner.example/sync", json={"order": order_id})  # expect: IDM002


@app.task(base=RetryingTask, max_retries=1, acks_late=False)
def override(order_id):
    requests.post("https://partner.example/override", json={"order": order_id})  # expect: IDM002


@app.task(base=NotATask)
def plain(order_id):
    requests.post("https://partner.example/plain", json={"order": order_id})  # expect: IDM002


@app.task
def default(order_id):
    requests.post("https://partner.example/default", json={"order": order_id})  # expect: IDM002


@other.task
def on_other(order_id):
    requests.post("https://partner.example/other", json={"order": order_id})  # expect: IDM002


@shared_task
def shared(order_id):
    requests.post("https://partner.example/shared", json={"order": order_id})  # expect: IDM002


@app.task(base=SafeTask, acks_late=True)
def safe_sync(order_id):
    requests.post("https://partner.example/safe", json={"order": order_id})  # expect: IDM002


class Export(RetryingTask):
    soft_time_limit = 20

    def run(self, export_id):
        requests.post("https://partner.example/export", json={"export": export_id})  # expect: IDM002
