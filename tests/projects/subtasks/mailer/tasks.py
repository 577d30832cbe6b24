"""Tasks that hand their e-mail to the mailer tasks."""

from celery import shared_task
from django.db import transaction
from redis import Redis
from rq import Queue

from mailer import mail
from mailer.jobs import deliver_digest
from mailer.mail import look_up, post_webhook, send_after_commit, send_email, send_once
from mailer.models import Order, User

queue = Queue(connection=Redis())


@shared_task
def invite_users(addresses):
    for address in addresses:
        send_email.delay(address, "Invitation", "Join us")  # expect: IDM013


@shared_task
def remind(address):
    send_email.s(address, "Reminder", "Still there?").apply_async(countdown=60)  # expect: IDM013


@shared_task
def start_campaign(addresses):
    mail.fan_out.delay(addresses, "News", "What is new")  # expect: IDM013


@shared_task
def queue_digests(addresses):
    for address in addresses:
        queue.enqueue(deliver_digest, address, ["a", "b"])  # expect: IDM013


@shared_task
def welcome(user_id):
    user = User.objects.get(pk=user_id)
    if user.welcome_sent:
        return
    send_email.delay(user.email, "Welcome", "Hello")  # expect: IDM007
    user.welcome_sent = True
    user.save()


@shared_task
def notify_partner(order_id):
    order = Order.objects.get(pk=order_id)
    if order.partner_notified:
        return
    post_webhook.delay(order.partner_url, {"order": order_id})  # expect: IDM007
    order.partner_notified = True
    order.save()


@shared_task
def close_account(user_id):
    with transaction.atomic():
        User.objects.filter(pk=user_id).update(active=False)
        send_email.delay(f"{user_id}@example.com", "Goodbye", "Closed")  # expect: IDM010, IDM013


@shared_task
def close_account_later(user_id):
    with transaction.atomic():
        User.objects.filter(pk=user_id).update(active=False)
        # The task's class enqueues it after the commit: not inside the transaction.
        send_after_commit.delay(f"{user_id}@example.com", "Goodbye")  # expect: IDM013


# Safe twins.


@shared_task
def remind_once(address, key):
    send_once.delay(address, "Reminder", "Still there?", key)


@shared_task
def welcome_claimed(user_id):
    claimed = User.objects.filter(pk=user_id, welcome_state="pending").update(welcome_state="sending")
    if not claimed:
        return
    send_email.delay(f"{user_id}@example.com", "Welcome", "Hello")


@shared_task
def close_account_on_commit(user_id):
    with transaction.atomic():
        User.objects.filter(pk=user_id).update(active=False)
        transaction.on_commit(lambda: send_email.delay(f"{user_id}@example.com", "Goodbye", "Closed"))


@shared_task
def refresh(url):
    look_up.delay(url)


@shared_task
def partner_update(order_id):
    post_webhook.delay(f"https://partner.example/orders/{order_id}", {"order": order_id})
