from celery.schedules import crontab

PERIODIC_TASKS = {
    "resweep-events": {"task": "jobs.events.resweep", "schedule": 600.0},
    "close-sweep": {"task": "jobs.events.close_sweep", "schedule": 900.0},
    "reconcile-files": {"schedule": crontab(minute="*/15"), "task": "jobs.files.reconcile"},
}

NIGHTLY_ONLY = {
    "purge-unscanned": {"task": "jobs.files.purge_unscanned", "schedule": 3600.0},
}
