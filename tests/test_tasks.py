"""Task detection: which functions are analysed as task entry points."""

from __future__ import annotations

import textwrap
from typing import List

import libcst as cst
import pytest

from idemlint.tasks import build_index, find_tasks, task_decorators


def task_names(source: str, extra: tuple = ()) -> List[str]:
    index = build_index(cst.parse_module(textwrap.dedent(source)))
    return [task.name for task in find_tasks(index, task_decorators(index, extra))]


@pytest.mark.parametrize(
    "source, expected",
    [
        ("from celery import shared_task\n@shared_task\ndef a(): pass\n", ["a"]),
        ("from celery import shared_task as st\n@st(bind=True)\ndef a(self): pass\n", ["a"]),
        ("from proj.celery import app\n@app.task\ndef a(): pass\n", ["a"]),
        ("from celery import Celery\ncelery_app = Celery()\n@celery_app.task(acks_late=True)\ndef a(): pass\n", ["a"]),
        ("from celery.decorators import periodic_task\n@periodic_task(run_every=60)\ndef a(): pass\n", ["a"]),
        ("from celery.decorators import *\n@task\ndef a(): pass\n", ["a"]),
        ("from proj.celery import app\ndef a(): pass\nsend = app.task(a)\n", ["a"]),
        ("from proj.celery import app\ndef a(): pass\nsend = app.task(bind=True)(a)\n", ["a"]),
        ("import celery\nclass Send(celery.Task):\n    def run(self, x): pass\n", ["Send"]),
        ("from celery import Task\nclass Base(Task):\n    abstract = True\nclass Send(Base):\n    def run(self): pass\n", ["Send"]),
        ("import dramatiq\n@dramatiq.actor\ndef a(): pass\n", ["a"]),
        ("from dramatiq import actor\n@actor(max_retries=3)\ndef a(): pass\n", ["a"]),
        ("from huey import RedisHuey\nhuey = RedisHuey()\n@huey.task()\ndef a(): pass\n@huey.periodic_task(crontab())\ndef b(): pass\n", ["a", "b"]),
        ("from huey.contrib.djhuey import db_task, db_periodic_task\n@db_task()\ndef a(): pass\n@db_periodic_task(crontab())\ndef b(): pass\n", ["a", "b"]),
        ("from rq.decorators import job\n@job('default')\ndef a(): pass\n", ["a"]),
        ("from rq import Queue\nq = Queue()\ndef a(): pass\ndef b(): pass\nq.enqueue(a, 1)\nq.enqueue_call(func=b)\n", ["a", "b"]),
        ("from arq import func\nasync def a(ctx): pass\nasync def b(ctx): pass\nclass WorkerSettings:\n    functions = [a, func(b, timeout=5)]\n", ["a", "b"]),
        ("from taskiq_redis import ListQueueBroker\nbroker = ListQueueBroker('redis://')\n@broker.task\nasync def a(): pass\n@broker.task(task_name='x')\nasync def b(): pass\n", ["a", "b"]),
        ("from sentry.tasks.base import instrumented_task\n@instrumented_task(name='x')\ndef a(): pass\n", []),
        # a project's own wrapper of a task decorator is one too
        ("from celery import shared_task\ndef mytask(**kw):\n    return shared_task(**kw)\n@mytask(queue='q')\ndef a(): pass\n", ["a"]),
        ("from proj.celery import app\ndef job(fn):\n    return app.task(bind=True)(fn)\n@job\ndef a(self): pass\n", ["a"]),
    ],
)
def test_detected_tasks(source: str, expected: List[str]) -> None:
    assert task_names(source) == expected


def test_configured_decorator_makes_a_task() -> None:
    source = "from sentry.tasks.base import instrumented_task\n@instrumented_task(name='x')\ndef a(): pass\n"
    assert task_names(source, ("instrumented_task",)) == ["a"]
    assert task_names(source, ("sentry.tasks.base.instrumented_task",)) == ["a"]


@pytest.mark.parametrize(
    "source",
    [
        "from invoke import task\n@task\ndef deploy(c): pass\n",
        "from prefect import task\n@task\ndef etl(): pass\n",
        "import asyncio\nclass Worker(asyncio.Task):\n    def run(self): pass\n",
        "from myapp.jobs import job\n@job\ndef a(): pass\n",
        "def helper(): pass\nclass Q:\n    def enqueue(self, x): pass\n",
        "from celery import shared_task\ndef plain(): pass\n",
        # a module's own `task` that wraps nothing is not Celery's
        "def task(fn):\n    return fn\n@task\ndef a(): pass\n",
    ],
)
def test_not_a_task(source: str) -> None:
    assert task_names(source) == []


def test_bound_task_arguments_exclude_self() -> None:
    source = "from celery import shared_task\n@shared_task(bind=True)\ndef a(self, order_id, *, key): pass\n"
    index = build_index(cst.parse_module(source))
    (task,) = find_tasks(index)
    assert task.bound and task.arguments == ("order_id", "key")
