import functools
import time

import dramatiq
from celery import shared_task


def actor(fn=None, **options):
    options.setdefault("max_retries", 3)

    def decorate(function):
        return dramatiq.actor(function, **options)

    return decorate(fn) if fn is not None else decorate


class instrumented:
    def __init__(self, **options):
        self.options = options

    def __call__(self, function):
        return shared_task(**self.options)(function)


def timed(function):
    @functools.wraps(function)
    def timed_call(*args, **kwargs):
        start = time.monotonic()
        try:
            return function(*args, **kwargs)
        finally:
            print(time.monotonic() - start)

    return timed_call
