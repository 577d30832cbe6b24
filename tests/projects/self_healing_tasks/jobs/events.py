from celery import group, shared_task

from jobs.models import Event

retrying = shared_task(
    acks_late=True,
    autoretry_for=(Exception,),
)

partly_swept = shared_task(
    acks_late=True,  # expect: IDM009
    autoretry_for=(Exception,),
)


@retrying
def process_signup(event_id):
    try:
        event = Event.objects.get(id=event_id, status=Event.PENDING)
    except Event.DoesNotExist:
        return
    event.status = Event.DONE
    event.save()


@retrying()
def process_cancel(event_id):
    event = Event.objects.filter(id=event_id, status=Event.PENDING).first()
    if event is None:
        return
    event.status = Event.DONE
    event.save()


@partly_swept
def process_refund(event_id):
    event = Event.objects.get(id=event_id, status=Event.PENDING)
    event.status = Event.DONE
    event.save()


@partly_swept
def notify_partner(event_id):
    return event_id


@shared_task(acks_late=True)  # expect: IDM009
def audit_event(event_id):
    event = Event.objects.get(id=event_id)
    return event.kind


@shared_task(acks_late=True)  # expect: IDM009
def archive_event(event_id):
    event = Event.objects.get(id=event_id, status=Event.PENDING)
    event.delete()


@shared_task
def resweep():
    pending = Event.objects.filter(status=Event.PENDING)
    for event in pending:
        if event.kind == "signup":
            process_signup.delay(event.id)
        elif event.kind == "cancel":
            process_cancel.apply_async((event.id,))
        else:
            process_refund.delay(event.id)
        audit_event.delay(event.id)


def archive_pending_on_request():
    for event in Event.objects.filter(status=Event.PENDING):
        archive_event.delay(event.id)


@shared_task(acks_late=True)
def close_pending(event_id):
    event = Event.objects.get(id=event_id, status=Event.PENDING)
    event.status = Event.DONE
    event.save()


@shared_task(acks_late=True)
def expire_pending(event_id):
    event = Event.objects.get(id=event_id, status=Event.PENDING)
    event.status = Event.DONE
    event.save()


@shared_task(acks_late=True)  # expect: IDM009
def remind_pending(event_id):
    event = Event.objects.get(id=event_id, status=Event.PENDING)
    return event.kind


@shared_task
def close_sweep():
    group(close_pending.s(event.id) for event in Event.objects.filter(status=Event.PENDING)).delay()
    ids = [event.id for event in Event.objects.filter(status=Event.PENDING)]
    for event_id in ids:
        expire_pending.delay(event_id)
    # Built, never sent over the pending rows: no sweep of ``remind_pending``.
    reminders = [event.id for event in Event.objects.filter(status=Event.DONE)]
    for event_id in reminders:
        remind_pending.delay(event_id)
