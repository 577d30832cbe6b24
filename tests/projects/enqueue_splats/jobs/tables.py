"""Job definitions tables; a loop here only describes them (no queue)."""

import logging

from jobs import work


def nightly_definitions():
    jobs = [{"func": work.nightly, "interval": 86400}]
    jobs.append({"func": work.appended})
    return jobs


def unscheduled_definitions():
    return [{"func": work.unscheduled}]


def describe(job):
    logging.info("job %s", job)


def describe_all(jobs):
    for job in jobs:
        describe(job)
    describe({"func": work.described})
