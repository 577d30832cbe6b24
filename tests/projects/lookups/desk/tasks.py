from celery import shared_task
from pyramid.request import Request

from desk import interfaces as faces
from desk.container import container
from desk.interfaces import IAudit, IMailer
from desk.notifiers import Notifier
from desk.registry import get_registry


def current_request() -> Request:
    raise NotImplementedError


@shared_task
def chained(recipient):
    current_request().find_service(IMailer).send(recipient, "Hi")


@shared_task
def through_a_local(recipient):
    request = current_request()
    mailer = request.find_service(IMailer, context=None)
    mailer.send(recipient, "Hi")


@shared_task
def through_a_walrus(recipient):
    if (mailer := current_request().find_service(IMailer)) is not None:
        mailer.send(recipient, "Hi")


@shared_task
def through_a_module_alias(recipient):
    current_request().find_service(faces.IMailer).send(recipient, "Hi")


@shared_task
def from_an_untyped_registry(recipient):
    registry = get_registry()
    registry.getUtility(IMailer).send(recipient, "Hi")


@shared_task
def from_the_project_container(user_id):
    container.get(Notifier).notify(user_id)


# Twins: nothing found.


@shared_task
def a_member_the_interface_does_not_define(recipient):
    current_request().find_service(IMailer).describe(recipient)


@shared_task
def an_implementation_that_only_logs(event):
    current_request().find_service(IAudit).record(event)
