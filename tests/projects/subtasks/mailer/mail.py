"""Mailer tasks: each sends what it is given."""

import requests
from celery import shared_task
from django.core.cache import cache
from django.core.mail import send_mail

from mailer.base import AfterCommitTask


@shared_task
def send_email(address, subject, body):
    send_mail(subject, body, None, [address])  # expect: IDM013


@shared_task
def send_once(address, subject, body, key):
    if cache.get(f"sent:{key}"):
        return
    send_mail(subject, body, None, [address])  # expect: IDM007
    cache.set(f"sent:{key}", True)


@shared_task
def post_webhook(url, payload):
    requests.post(url, json=payload)  # expect: IDM002


@shared_task
def fan_out(addresses, subject, body):
    for address in addresses:
        send_email.delay(address, subject, body)  # expect: IDM013


@shared_task
def look_up(url):
    return requests.get(url).json()


@shared_task
def ping(count):
    if count:
        pong.delay(count - 1)


@shared_task
def pong(count):
    ping.delay(count)


@shared_task(base=AfterCommitTask)
def send_after_commit(address, subject):
    send_mail(subject, "", None, [address])  # expect: IDM013
