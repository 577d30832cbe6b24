"""Tasks that reach their effects through instances in attributes and locals."""

import requests
from celery import shared_task

from alerts.service import AlertService, SwitchingService


class Pager:
    def __init__(self, team):
        self.team = team

    def page(self, text):
        requests.post("https://pager.example/pages", json={"team": self.team, "text": text})  # expect: IDM002


class Silent:
    def page(self, text):
        return text


@shared_task
def alert_ops(text):
    service = AlertService("ops@example.com")
    service.connect()
    service.alert(text)


@shared_task
def record_alert(text):
    AlertService("ops@example.com").record(text)


@shared_task
def alert_somewhere(address, text):
    SwitchingService().alert(address, text)


@shared_task
def page_team(text):
    pager = Pager("ops")
    pager.page(text)


@shared_task
def page_nobody(text):
    pager = Silent()
    pager.page(text)
