"""Project bases: what the subclasses in other modules inherit."""

import requests
from celery import Task
from django.core.mail import send_mail


class BaseClient:
    url = "https://hooks.example/events"

    def post_event(self, payload):
        requests.post(self.url, json=payload)  # expect: IDM002

    def post_keyed(self, payload, key):
        requests.post(self.url, json=payload, headers={"Idempotency-Key": key})

    def publish(self, payload):
        self.deliver(payload)

    def deliver(self, payload):
        return payload


class AlertingTask(Task):
    def alert(self, report_id):
        send_mail("Report failed", f"Report {report_id}", None, ["ops@example.com"])  # expect: IDM013
