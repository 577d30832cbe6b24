import functools
from functools import partial

from celery import Celery
from rq.decorators import job as rq_job

app = Celery("jobs")


class RecordingJob(rq_job):
    """The project's job decorator: counts what it enqueues."""

    queue_class = None


job = partial(RecordingJob, connection=None, failure_ttl=60)
background = functools.partial(app.task, bind=True)
memo = partial(functools.lru_cache, maxsize=1)
