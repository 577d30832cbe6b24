"""Delivery channels, and the tables that pick one."""

import requests
from django.core.mail import send_mail


def by_mail(address, text):
    send_mail("Alert", text, None, [address])  # expect: IDM013


def by_webhook(address, text):
    requests.post("https://hooks.example/alerts", json={"to": address, "text": text})  # expect: IDM002


def page(address, text):
    requests.post("https://pager.example/pages", json={"to": address, "text": text})  # expect: IDM002


def log(address, text):
    return f"{address}: {text}"


def archive(address, text):
    requests.post("https://archive.example/entries", json={"to": address})  # expect: IDM002


def filled_later(address, text):
    requests.post("https://late.example/entries", json={"to": address})


CHANNELS = {"mail": by_mail, "hook": by_webhook}
QUIET = {"log": log}
FILLED_AT_RUN_TIME = {}


def register(kind):
    def add(function):
        FILLED_AT_RUN_TIME[kind] = function
        return function
    return add


register("late")(filled_later)


class MailAlert:
    def __init__(self, address):
        self.address = address

    def send(self, text):
        send_mail("Alert", text, None, [self.address])


ALERT_CLASSES = (MailAlert,)
