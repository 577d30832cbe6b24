from celery import shared_task
from django.core.mail import send_mail

from digest.locks import acquire_lock, r, release_lock


@shared_task
def send_digest(receiver_id):
    lock_id = f"send_digest_{receiver_id}"
    try:
        if acquire_lock(lock_id=lock_id):
            send_mail("Digest", "body", None, [receiver_id])  # expect: IDM013
            release_lock(lock_id=lock_id)
            return
    except Exception:
        release_lock(lock_id=lock_id)


@shared_task
def send_reminder(receiver_id):
    with r.lock(f"reminder:{receiver_id}", timeout=60):
        send_mail("Reminder", "body", None, [receiver_id])  # expect: IDM013


@shared_task
def send_summary(receiver_id):
    lock = r.lock(f"summary:{receiver_id}", timeout=60)
    if lock.acquire(blocking=False):
        try:
            send_mail("Summary", "body", None, [receiver_id])  # expect: IDM013
        finally:
            lock.release()


@shared_task
def send_welcome(receiver_id):
    # A claim kept for a day: a redelivery within it finds the key and stops.
    if acquire_lock(f"welcome_sent_{receiver_id}", 86400):
        send_mail("Welcome", "body", None, [receiver_id])


@shared_task
def send_invoice(receiver_id):
    # The claim is given back only when the send failed.
    claim = f"invoice_sent_{receiver_id}"
    if not r.set(claim, 1, nx=True, ex=86400):
        return
    try:
        send_mail("Invoice", "body", None, [receiver_id])
    except Exception:
        r.delete(claim)
        raise


@shared_task
def send_notice(receiver_id, notice):
    # A lock around a done-check that the send's own mark answers.
    with r.lock(f"notice:{receiver_id}", timeout=60):
        if notice.sent_at is not None:
            return
        send_mail("Notice", "body", None, [receiver_id])
        notice.sent_at = 1
        notice.save(update_fields=["sent_at"])


@shared_task
def send_all_digests(receiver_ids):
    # The digest task sends under a lock it lets go: no check of its own.
    for receiver_id in receiver_ids:
        send_digest.delay(receiver_id)  # expect: IDM013


@shared_task
def send_all_welcomes(receiver_ids):
    # The welcome task claims its send for a day.
    for receiver_id in receiver_ids:
        send_welcome.delay(receiver_id)


@shared_task
def send_statement(receiver_id):
    # Under the lock, a claim kept for a day: a redelivery stops at it.
    with r.lock(f"statement:{receiver_id}", timeout=60):
        if not r.set(f"statement_sent_{receiver_id}", 1, nx=True, ex=86400):
            return
        send_mail("Statement", "body", None, [receiver_id])


@shared_task
def send_or_clear(receiver_id, kind):
    # The key is deleted on the other branch, never after the send.
    if not r.set(f"sent:{kind}:{receiver_id}", 1, nx=True, ex=86400):
        return
    if kind == "mail":
        send_mail("Notice", "body", None, [receiver_id])
    else:
        r.delete(f"sent:{kind}:{receiver_id}")  # expect: IDM005


@shared_task
def send_all_summaries(receiver_ids):
    # The enqueue itself runs under a lock let go after it.
    with r.lock("summaries", timeout=60):
        for receiver_id in receiver_ids:
            send_summary.delay(receiver_id)  # expect: IDM013
