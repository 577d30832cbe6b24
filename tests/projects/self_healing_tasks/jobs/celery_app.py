from celery import Celery
from celery.schedules import crontab

from jobs.rates import purge_expired, refresh_rates

app = Celery("jobs")

app.conf.beat_schedule = {
    "nightly-report": {
        "task": "jobs.reports.nightly_report",
        "schedule": crontab(hour=2, minute=0),
    },
}


@app.on_after_configure.connect
def setup_periodic_tasks(sender, **kwargs):
    sender.add_periodic_task(300.0, refresh_rates.s(), name="refresh rates")
    sender.add_periodic_task(crontab(minute=0), sig=purge_expired.si())
