"""A definitions table beside a loop over prepared copies of it: the copies
are not followed, the table beside the loop that schedules is."""

from datetime import datetime

from rq_scheduler import Scheduler

from jobs import work

scheduler = Scheduler()


def periodic_definitions():
    return ({"func": work.periodic, "interval": 300},)


def prep(job):
    return dict(job, result_ttl=600)


def install(jobs):
    prepared = [prep(job) for job in jobs]
    for job in prepared:
        scheduler.schedule(datetime.utcnow(), **job)
