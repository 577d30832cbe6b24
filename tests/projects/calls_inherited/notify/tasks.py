"""Tasks that run inherited methods."""

from celery import shared_task

from notify.base import AlertingTask
from notify.clients import EventClient, QuietClient


@shared_task
def push_event(event_id):
    EventClient().post_event({"id": event_id})


@shared_task
def push_keyed_event(event_id):
    client = EventClient()
    client.post_keyed({"id": event_id}, f"event-{event_id}")


@shared_task
def publish_event(event_id):
    EventClient().publish({"id": event_id})


@shared_task
def publish_quietly(event_id):
    QuietClient().publish({"id": event_id})


class DailyReport(AlertingTask):
    def run(self, report_id):
        self.alert(report_id)
