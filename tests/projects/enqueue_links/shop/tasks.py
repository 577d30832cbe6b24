"""Tasks that hand their e-mail to the mailer, each in another spelling."""

from celery import chain, chord, current_app, group, shared_task, signature

from shop import mail
from shop.celery import app
from shop.mail import lookup, send_alert, send_notice, send_receipt, send_receipt_once
from shop.names import RECEIPT_TASK, Queued, TaskNames
from shop.queueing import later, later_by_name


@shared_task
def by_dotted_name(order_id):
    app.send_task("shop.mail.send_receipt", args=[order_id])  # expect: IDM013


@shared_task
def by_registered_name(user_id):
    current_app.send_task("mail.send_notice", args=[user_id])  # expect: IDM013


@shared_task
def by_class_constant(user_id):
    app.send_task(TaskNames.SEND_ALERT, kwargs={"user_id": user_id})  # expect: IDM013


@shared_task
def by_enum_value(user_id):
    app.send_task(Queued.NOTICE.value, args=[user_id])  # expect: IDM013


@shared_task
def by_imported_constant(order_id):
    app.send_task(RECEIPT_TASK, args=[order_id])  # expect: IDM013


@shared_task
def by_name_on_either_branch(user_id, urgent):
    if urgent:
        name = TaskNames.SEND_ALERT
    else:
        name = "mail.send_notice"
    app.send_task(name, args=[user_id])  # expect: IDM013


@shared_task
def by_signature_name(order_id):
    signature("shop.mail.send_receipt", args=(order_id,)).delay()  # expect: IDM013


@shared_task
def by_app_signature(user_id):
    app.signature(TaskNames.SEND_ALERT, args=(user_id,)).apply_async()  # expect: IDM013


@shared_task
def fan_out_group(order_ids):
    group(send_receipt.s(order_id) for order_id in order_ids).apply_async()  # expect: IDM013


@shared_task
def in_a_chain(order_id):
    chain(lookup.s(order_id), send_notice.si(order_id)).delay()  # expect: IDM013


@shared_task
def as_a_chord_body(order_ids, user_id):
    chord([lookup.s(order_id) for order_id in order_ids])(send_alert.si(user_id))  # expect: IDM013


@shared_task
def piped(order_id):
    (lookup.s(order_id) | mail.send_receipt.si(order_id)).delay()  # expect: IDM013


@shared_task
def kept_then_sent(order_id):
    receipt = send_receipt.s(order_id)
    receipt.set(countdown=5)
    receipt.apply_async()  # expect: IDM013


@shared_task
def kept_as_a_walrus(order_id):
    if (receipt := send_receipt.si(order_id)) is not None:
        receipt.delay()  # expect: IDM013


@shared_task
def through_a_wrapper(order_id):
    later(send_receipt, order_id)


@shared_task
def reads_by_name_through_a_wrapper(order_id):
    later_by_name("mail.lookup", order_id)


@shared_task
def by_name_through_a_wrapper(user_id):
    later_by_name("mail.send_alert", user_id)


# Safe twins.


@shared_task
def sends_a_reader_by_name(order_id):
    app.send_task(TaskNames.LOOKUP, args=[order_id])


@shared_task
def sends_a_name_nobody_registered(user_id):
    app.send_task(Queued.NOBODY.value, args=[user_id])


@shared_task
def sends_a_name_it_was_given(name, user_id):
    app.send_task(name, args=[user_id])


@shared_task
def groups_readers(order_ids):
    group(lookup.s(order_id) for order_id in order_ids).apply_async()


@shared_task
def sends_a_mailer_that_checks(order_id):
    app.send_task("shop.mail.send_receipt_once", args=[order_id])
    chain(lookup.s(order_id), send_receipt_once.si(order_id)).delay()
