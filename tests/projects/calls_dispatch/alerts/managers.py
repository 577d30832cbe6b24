"""Notification managers and the factories that pick one."""

import importlib

import requests

from django.conf import settings
from django.core.mail import send_mail
from logging import Handler


class EmailManager:
    def notify(self, address, text):
        send_mail("Alert", text, None, [address])  # expect: IDM013


class QuietManager:
    def notify(self, address, text):
        return (address, text)


def get_manager():
    default = EmailManager
    manager_class = default
    if isinstance(getattr(settings, "ALERT_MANAGER", None), str):
        module_name, _, class_name = settings.ALERT_MANAGER.rpartition(".")
        manager_class = getattr(importlib.import_module(module_name), class_name)
    return manager_class()


def get_either(quiet):
    manager_class = EmailManager
    if quiet:
        manager_class = QuietManager
    return manager_class()


def get_or_handler(plain):
    manager_class = EmailManager
    if plain:
        manager_class = Handler
    return manager_class()


class SmsManager:
    def notify(self, number, text):
        requests.post("https://sms.example/messages", json={"to": number, "text": text})  # expect: IDM002


class Dispatcher:
    def manager(self, kind):
        if kind == "mail":
            return EmailManager()
        if kind in ("sms", "text"):
            return SmsManager()
        return QuietManager()

    def send_sms(self, number, text):
        self.manager("sms").notify(number, text)

    def send_quietly(self, address, text):
        self.manager("log").notify(address, text)

    def send_any(self, kind, address, text):
        self.manager(kind).notify(address, text)


def manager_for(kind):
    if kind != "mail":
        return QuietManager()
    return EmailManager()


class PagerManager(QuietManager):
    def page(self, number, text):
        requests.post("https://pager.example/pages", json={"to": number, "text": text})  # expect: IDM002


class Channels:
    # Annotated with the base class: the branch the argument picks says which subclass runs.
    def channel(self, kind) -> QuietManager:
        if kind == "pager":
            return PagerManager()
        return QuietManager()
