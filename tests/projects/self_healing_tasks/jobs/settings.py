from celery.schedules import crontab

CELERY_BEAT_SCHEDULE = {
    "weekly-report": {"task": "reports.weekly", "schedule": crontab(day_of_week=1)},
    "resweep-events": {"task": "jobs.events.resweep", "schedule": 600.0},
    "reconcile-files": {"schedule": crontab(minute="*/15"), "task": "jobs.files.reconcile"},
    "purge-unscanned": {"task": "jobs.files.purge_unscanned", "schedule": 3600.0},
}
