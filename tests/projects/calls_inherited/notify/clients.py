"""Subclasses of the project bases, one module away from them."""

from django.core.mail import send_mail

from notify.base import BaseClient


class EventClient(BaseClient):
    def deliver(self, payload):
        send_mail("Event", str(payload), None, ["ops@example.com"])  # expect: IDM013


class QuietClient(BaseClient):
    pass
