"""rq-scheduler fed dicts: in place, through a local, through the wrapper."""

from datetime import datetime

from redis import Redis
from rq import Queue
from rq_scheduler import Scheduler

from jobs import work
from jobs.registry import registry

queue = Queue(connection=Redis())
scheduler = Scheduler(queue=queue)

scheduler.schedule(scheduled_time=datetime.utcnow(), **{"func": work.direct, "interval": 60})


def schedule(kwargs):
    scheduler.schedule(scheduled_time=datetime.utcnow(), id=str(kwargs), **kwargs)


def local():
    job = {"func": work.local_dict, "interval": 60}
    scheduler.schedule(datetime.utcnow(), **job)


def via_wrapper():
    schedule({"func": work.through_wrapper, "timeout": 600})


def definitions():
    return [
        {"func": work.defined_first, "interval": 30},
        {"func": work.defined_second, "timeout": 600},
    ]


def schedule_all():
    for job in definitions():
        schedule(job)


def now():
    queue.enqueue(**{"f": work.by_f})
    queue.enqueue_call(**{"func": work.called, "args": (1,)})


def not_tasks():
    scheduler.schedule(datetime.utcnow(), **{"interval": 60})
    scheduler.schedule(datetime.utcnow(), **{"func": "jobs.work.by_string"})
    registry.add(**{"func": work.not_queued})
