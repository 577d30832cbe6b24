"""Tasks that pick what they run from tables and aliases."""

from celery import shared_task

from notify import channels
from notify.channels import ALERT_CLASSES, CHANNELS, FILLED_AT_RUN_TIME, QUIET, archive, log, page
from notify.steps import run_step


@shared_task
def alert(kind, address, text):
    CHANNELS[kind](address, text)


@shared_task
def alert_by_get(kind, address, text):
    handler = CHANNELS.get(kind, archive)
    if handler is not None:
        handler(address, text)


@shared_task
def alert_locally(kind, address, text):
    handlers = {"page": page, "log": log}
    handlers[kind](address, text)


@shared_task
def alert_if_urgent(urgent, address, text):
    send = page if urgent else log
    send(address, text)


@shared_task
def note(kind, address, text):
    QUIET[kind](address, text)


@shared_task
def late(kind, address, text):
    FILLED_AT_RUN_TIME[kind](address, text)


@shared_task
def alert_through_a_class(number, address, text):
    ALERT_CLASSES[number](address)


@shared_task
def step(kind, order_id):
    run_step(kind, order_id)


@shared_task
def module_attribute(kind, address, text):
    channels.CHANNELS[kind](address, text)
