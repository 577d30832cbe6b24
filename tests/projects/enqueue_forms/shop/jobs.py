"""The project's own wrapper of RQ's enqueue, and a function that only logs."""

import logging

from redis import Redis
from rq import Queue

queue = Queue(connection=Redis())


def run_later(fn, *args, **kwargs):
    return queue.enqueue(fn, *args, **kwargs)


def log(fn):
    logging.info("would run %s", fn)
