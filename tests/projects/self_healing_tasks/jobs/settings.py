from celery.schedules import crontab

from jobs.beat import NIGHTLY_ONLY, PERIODIC_TASKS

DEBUG = False

CELERY_BEAT_SCHEDULE = dict(PERIODIC_TASKS)
CELERY_BEAT_SCHEDULE["weekly-report"] = {"task": "reports.weekly", "schedule": crontab(day_of_week=1)}
CELERY_BEAT_SCHEDULE.update({
    "expire-invoices": dict(task="jobs.twins.expire_invoices", schedule=crontab(minute=0)),
    "resweep-orders": {"task": "jobs.twins.resweep_orders", "schedule": 300.0},
    "confirm-shipments": {"task": "jobs.twins.confirm_shipments", "schedule": 300.0},
    "refund-sweep": {"task": "jobs.twins.refund_sweep", "schedule": 300.0},
    "render-thumbnails": {"task": "jobs.files.render_missing_thumbnails", "schedule": 60.0},
    "charge-invoices": {"task": "jobs.twins.charge_invoice", "schedule": 3600.0},
})
if not DEBUG:
    CELERY_BEAT_SCHEDULE |= NIGHTLY_ONLY
