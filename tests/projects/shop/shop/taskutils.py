"""The project's own task decorator: a wrapper of Celery's, no configuration needed."""

from celery import shared_task


def background(**options):
    options.setdefault("acks_late", True)
    options.setdefault("reject_on_worker_lost", True)
    return shared_task(**options)
