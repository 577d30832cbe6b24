"""Each task sends through one conditionally bound backend; the last three are safe."""

import os

from celery import shared_task

from notify import backends
from notify.backends import attempted, chained, first_branch, keyed, last_branch, rebound, unless
from notify.clients import Quiet, Sms

if os.environ.get("LOCAL_SMS"):
    local = Sms()
else:
    local = Quiet()


@shared_task
def alert_first_branch(alert_id):
    first_branch.send(alert_id)


@shared_task
def alert_last_branch(alert_id):
    last_branch.send(alert_id)


@shared_task
def alert_chained(alert_id):
    chained.send(alert_id)


@shared_task
def alert_attempted(alert_id):
    attempted.send(alert_id)


@shared_task
def alert_unless(alert_id):
    unless.send(alert_id)


@shared_task
def alert_through_the_module(alert_id):
    backends.first_branch.send(alert_id)


@shared_task
def alert_local(alert_id):
    local.send(alert_id)


@shared_task
def alert_keyed(alert_id):
    keyed.send(alert_id)


@shared_task
def alert_rebound(alert_id):
    rebound.send(alert_id)


@shared_task
def alert_each_given(alert_id, given):
    return [first_branch.send(alert_id) for first_branch in given]
