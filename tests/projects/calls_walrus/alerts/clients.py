from typing import Optional

import requests


class Notifier:
    def send(self, alert_id):
        requests.post("https://push.example/notify", json={"alert": alert_id})  # expect: IDM002


class Pager:
    def page(self, alert_id):
        requests.post("https://pager.example/page", json={"alert": alert_id})  # expect: IDM002


def make_pager():
    return Pager()


def typed_pager() -> Optional[Pager]:
    return _PAGERS.get("default")


_PAGERS: dict = {}
