from celery.schedules import crontab

from jobs.celery_app import app


@app.task(acks_late=True)
def recount():
    return "counted"


def includeme(config):
    config.add_periodic_task(crontab(minute="*/5"), recount)
