import requests
from django.core.mail import send_mail

from svc.registry import registry

SLACK_SERVICE = "slack.poster"


class Notifier:
    def __init__(self, context, request):
        self.request = request

    def notify(self, address):
        send_mail("Notice", "body", None, [address])  # expect: IDM013


class SlackPoster:
    def __init__(self, channel):
        self.channel = channel

    @classmethod
    def create_service(cls, context, request):
        return cls(request.registry.settings["slack.channel"])

    def post(self, text):
        requests.post("https://hooks.slack.com/services/T0/B0/X", json={"text": text})  # expect: IDM013


class Mailer:
    def send(self, address):
        send_mail("Mailed", "body", None, [address])  # expect: IDM013


class QuietMailer:
    def send(self, address):
        return address


class LoudMailer:
    def send(self, address):
        send_mail("Loud", "body", None, [address])


registry.register(Mailer(), name="mailer")
registry.register(QuietMailer(), name="either")
registry.register(LoudMailer(), name="either")


def includeme(config):
    config.register_service_factory(Notifier, name="notifier")
    config.register_service_factory(SlackPoster.create_service, name=SLACK_SERVICE)
