"""Tasks that call library objects built in other modules."""

from celery import shared_task
from flask_mail import Message

from app import default_mail, extensions
from app.clients import either_connection, slack, slack_or_hook, tracker_connection
from app.extensions import cache, mail, outbox


@shared_task
def send_welcome(address):
    mail.send(Message("Welcome", recipients=[address]))  # expect: IDM013


@shared_task
def send_through_package(address):
    default_mail.send(Message("Welcome", recipients=[address]))  # expect: IDM013


@shared_task
def send_through_module(address):
    extensions.mail.send(Message("Welcome", recipients=[address]))  # expect: IDM013


@shared_task
def claim_import(import_id):
    if cache.setnx(f"import:{import_id}", 1):  # expect: IDM004
        return import_id
    return None


@shared_task
def announce(channel, text):
    slack().chat_postMessage(channel=channel, text=text)  # expect: IDM013


@shared_task
def announce_somewhere(hook, text):
    slack_or_hook(hook).chat_postMessage(channel="#general", text=text)


@shared_task
def queue_locally(message):
    outbox.send(message)


@shared_task
def send_with_given(mail, address):
    # A parameter hides the module-level instance of the same name.
    mail.send(Message("Welcome", recipients=[address]))


class Announcer:
    def __init__(self):
        self.client = slack()

    def announce(self, channel, text):
        self.client.chat_postMessage(channel=channel, text=text)  # expect: IDM013


@shared_task
def announce_through_a_service(channel, text):
    Announcer().announce(channel, text)


@shared_task
def open_ticket(project, summary):
    tracker = tracker_connection(project)
    tracker.create_issue(project="OPS", summary=summary, issuetype={"name": "Task"})  # expect: IDM013


@shared_task
def open_ticket_somewhere(plain, summary):
    either_connection(plain).create_issue(project="OPS", summary=summary)


@shared_task
def comment_on_ticket(project, key, text):
    own_tracker(project).add_comment(key, text)  # expect: IDM013


def own_tracker(project):
    return tracker_connection(project)
