"""Tasks that reach their effects through picked classes and inline runs."""

import os

from celery import shared_task
from slack_sdk import WebClient

from alerts.coordination import Coordination
from alerts.managers import Channels, Dispatcher, get_either, get_manager, get_or_handler, manager_for


@shared_task
def alert(address, text):
    get_manager().notify(address, text)


@shared_task
def alert_either(address, text, quiet):
    get_either(quiet).notify(address, text)


@shared_task
def alert_or_log(address, text, plain):
    get_or_handler(plain).notify(address, text)


@shared_task
def finish_batch(batch_id):
    Coordination.report(batch_id)


@shared_task
def post_to_slack(channel, text):
    WebClient(token=os.environ["SLACK_TOKEN"]).chat_postMessage(channel=channel, text=text)  # expect: IDM013


@shared_task(bind=True)
def post_bound(self, channel, text):
    return (self.request.id, channel, text)


@shared_task
def post_digest(channel, lines):
    post_to_slack.run(channel, "\n".join(lines))
    post_bound.run(channel, "digest")


@shared_task
def text_customer(number, text):
    Dispatcher().send_sms(number, text)


@shared_task
def log_customer(address, text):
    Dispatcher().send_quietly(address, text)
    Dispatcher().send_any("sms", address, text)
    manager_for("log").notify(address, text)


@shared_task
def mail_customer(address, text):
    manager_for("mail").notify(address, text)


@shared_task
def page_customer(number, text):
    Channels().channel("pager").page(number, text)
