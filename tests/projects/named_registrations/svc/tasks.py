from celery import shared_task

from svc.notify import SLACK_SERVICE
from svc.registry import registry


@shared_task
def mail_through_ses(request, address, raw):
    session = request.find_service(name="aws.session")
    client = session.client("ses")
    client.send_raw_email(Source="noreply@example.com", Destinations=[address], RawMessage={"Data": raw})  # expect: IDM013


@shared_task
def notify_user(request, address):
    request.find_service(name="notifier").notify(address)


@shared_task
def post_to_slack(request, text):
    poster = request.find_service(name=SLACK_SERVICE)
    poster.post(text)


@shared_task
def mail_from_the_registry(address):
    registry.lookup(name="mailer").send(address)


@shared_task
def mail_either(address):
    registry.lookup(name="either").send(address)


@shared_task
def mail_unregistered(request, address):
    request.find_service(name="nothing.here").send(address)


@shared_task
def push_rows(request, rows):
    client = request.find_service(name="gcloud.bigquery")
    client.insert_rows_json(table="downloads", json_rows=rows)  # expect: IDM002


@shared_task
def deliver_default(address):
    from svc.backends import email_backends

    email_backends.lookup(name="default").deliver(address)


@shared_task
def text_default(address):
    from svc.backends import sms_backends

    sms_backends.lookup(name="default").deliver(address)


@shared_task
def fetch_channel(team, text):
    team.channels.get(name="slack").post(text)


@shared_task
def mail_debug(request, address):
    request.find_service(name="debug.mailer").send(address)


@shared_task
def mail_local(request, address):
    request.find_service(name="local.mailer").send(address)


@shared_task
def mail_request_method(request, address):
    request.find_service(name="request.mailer").send(address)


@shared_task
def mail_from_a_factory_object(request, address):
    request.find_service(name="factory.mailer").send(address)
