import peewee
import requests
import transaction
from celery import shared_task
from django.core.mail import send_mail
from pyramid.request import Request

from shop import db
from shop.db import AtomicTask, LoggedTask, audited_unit_of_work, in_transaction, logged, recorded, timed, unit_of_work

ledger = peewee.PostgresqlDatabase("ledger")


@shared_task
def in_a_unit_of_work(address):
    with unit_of_work():
        send_mail("Hi", "", None, [address])  # expect: IDM010, IDM013


@shared_task
def in_a_wrapped_unit_of_work(address):
    with db.audited_unit_of_work("welcome"):
        send_mail("Hi", "", None, [address])  # expect: IDM010, IDM013


@in_transaction
def notify(address):
    send_mail("Hi", "", None, [address])  # expect: IDM010, IDM013


@shared_task
def through_a_decorated_helper(address):
    notify(address)


@shared_task(base=AtomicTask)
def in_an_atomic_task(address):
    send_mail("Hi", "", None, [address])  # expect: IDM010, IDM013


class WelcomeTask(AtomicTask):
    def run(self, address):
        send_mail("Hi", "", None, [address])  # expect: IDM010, IDM013


@shared_task
def in_the_transaction_package(order_id):
    with transaction.manager:
        requests.post("https://partner.example/orders", json={"id": order_id})  # expect: IDM002, IDM010


@shared_task
def in_the_request_transaction(request: Request, order_id):
    manager = request.tm
    with manager:
        requests.post("https://partner.example/orders", json={"id": order_id})  # expect: IDM002, IDM010


@shared_task
def in_an_orm_atomic_block(order_id):
    with ledger.atomic():
        requests.post("https://partner.example/orders", json={"id": order_id})  # expect: IDM002, IDM010


# Safe twins: the effect is not inside a transaction (its own finding stays).


@shared_task
def after_the_unit_of_work(address):
    with audited_unit_of_work("welcome"):
        pass
    send_mail("Hi", "", None, [address])  # expect: IDM013


@shared_task
def in_a_timer(address):
    with timed("welcome"):
        send_mail("Hi", "", None, [address])  # expect: IDM013


@logged
def notify_logged(address):
    send_mail("Hi", "", None, [address])  # expect: IDM013


@shared_task
def through_a_logged_helper(address):
    notify_logged(address)


@shared_task(base=LoggedTask)
def in_a_logged_task(address):
    send_mail("Hi", "", None, [address])  # expect: IDM013


@recorded
def notify_recorded(address):
    send_mail("Hi", "", None, [address])  # expect: IDM013


@shared_task
def through_a_helper_recorded_afterwards(address):
    notify_recorded(address)
