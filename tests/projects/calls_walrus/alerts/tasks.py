"""Each task binds what it calls with ``:=``; the last one is keyed."""

from celery import shared_task

from alerts.clients import Notifier, make_pager, typed_pager
from alerts.senders import HANDLERS, KEYED_HANDLERS


@shared_task
def alert_from_table(kind, alert_id):
    if handler := HANDLERS.get(kind):
        handler(alert_id)


@shared_task
def alert_through_instance(alert_id):
    if (notifier := Notifier()) is not None:
        notifier.send(alert_id)


@shared_task
def page_through_factory(alert_id):
    if pager := make_pager():
        pager.page(alert_id)


@shared_task
def page_through_annotated_factory(alert_id):
    if (pager := typed_pager()) is not None:
        pager.page(alert_id)


@shared_task
def page_in_a_loop(alert_ids):
    while alert_ids and (pager := make_pager()):
        pager.page(alert_ids.pop())


@shared_task
def alert_from_keyed_table(kind, alert_id):
    if handler := KEYED_HANDLERS.get(kind):
        handler(alert_id)
