from celery import shared_task
from celery.task import periodic_task
from datetime import timedelta


@shared_task(acks_late=True)
def refresh_rates():
    return "rates"


@shared_task(acks_late=True)
def purge_expired():
    return "purged"


@periodic_task(run_every=timedelta(hours=1), acks_late=True)
def hourly_totals():
    return "totals"


@shared_task(acks_late=True)  # expect: IDM009
def convert_rates(amount):
    return amount
