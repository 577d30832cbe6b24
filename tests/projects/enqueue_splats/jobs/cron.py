"""A table of another module, splatted in a loop; the wrapper of another module."""

from rq_scheduler import Scheduler

from jobs import work
from jobs.schedule import schedule
from jobs.tables import nightly_definitions

scheduler = Scheduler()


def install():
    for job in nightly_definitions():
        scheduler.cron("0 3 * * *", **job)
    schedule({"func": work.cross_wrapper})
