"""The project's own ways into a transaction, and look-alikes that are not."""

import functools
import logging
import time
from contextlib import contextmanager

from celery import Task
from django.db import transaction

logger = logging.getLogger(__name__)


@contextmanager
def unit_of_work():
    with transaction.atomic():
        yield


@contextmanager
def audited_unit_of_work(label):
    logger.info("start %s", label)
    with unit_of_work():
        yield
    logger.info("done %s", label)


@contextmanager
def timed(label):
    started = time.monotonic()
    yield
    logger.info("%s took %s", label, time.monotonic() - started)


def in_transaction(func):
    @functools.wraps(func)
    def inner(*args, **kwargs):
        with transaction.atomic():
            return func(*args, **kwargs)

    return inner


def recorded(func):
    @functools.wraps(func)
    def inner(*args, **kwargs):
        result = func(*args, **kwargs)
        with transaction.atomic():
            logger.info("recorded %s", func.__name__)
        return result

    return inner


def logged(func):
    @functools.wraps(func)
    def inner(*args, **kwargs):
        logger.info("calling %s", func.__name__)
        return func(*args, **kwargs)

    return inner


class AtomicTask(Task):
    def __call__(self, *args, **kwargs):
        with transaction.atomic():
            return super().__call__(*args, **kwargs)


class LoggedTask(Task):
    def __call__(self, *args, **kwargs):
        logger.info("running %s", self.name)
        return super().__call__(*args, **kwargs)
