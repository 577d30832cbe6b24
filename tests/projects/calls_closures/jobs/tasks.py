"""Tasks whose effects happen in functions nested in them."""

import requests
from celery import shared_task
from django.core.mail import send_mail

from jobs.api import Webhooks
from jobs.retrying import retried


@shared_task
def mail_summary(address):
    def send(text):
        send_mail("Summary", text, None, [address])  # expect: IDM013

    send("All done")


@shared_task
def post_with_retries(event_id):
    @retried(times=3)
    def post():
        requests.post("https://hooks.example/events", json={"event": event_id})  # expect: IDM002

    post()


@shared_task
def deliver_through_closure(event_id):
    hooks = Webhooks()

    def deliver():
        hooks.deliver(event_id)

    if event_id:
        deliver()


@shared_task
def post_keyed(event_id):
    def post(key):
        requests.post("https://hooks.example/keyed", json={}, headers={"Idempotency-Key": key})

    post(f"event-{event_id}")


@shared_task
def never_calls_it(event_id):
    def post():
        requests.post("https://hooks.example/unused", json={"event": event_id})

    return event_id
