"""The byte prefilter: which files are parsed at all."""

from __future__ import annotations

import pytest

from idemlint.engine import could_hold_tasks
from idemlint.settings import Settings

PASSES = [
    "from celery import shared_task\n\n@shared_task\ndef f(): pass\n",
    "@app.task(bind=True)\ndef f(self): pass\n",
    "class Charge(Task):\n    def run(self): pass\n",
    "import dramatiq\n\n@dramatiq.actor\ndef f(): pass\n",
    "from rq import job\n\n@job('default')\ndef f(): pass\n",
    "queue.enqueue(send, 1)\n",
    "import arq\n",
    "from arq.connections import RedisSettings\n",
    "functions = [arq.func(download, timeout=60)]\n",
    "class WorkerSettings:\n    functions = [f]\n",
    "CELERY_TASK_ACKS_LATE = True\n",
]
SKIPPED = [
    "x = 1\n",
    "def task_list(): return []\n",  # a word, not a task shape
    "model = 'sentry.OrganizationOnboardingTask'\n",  # Task without a word boundary
    "import tarq\n",
    "LANGUAGES = [('ar', 'Arabic'), ('arq', 'Algerian Arabic')]\n",  # a language code, quoted
    'code = "arq"\n',
]


@pytest.mark.parametrize("source", PASSES)
def test_task_shapes_pass(source: str) -> None:
    assert could_hold_tasks(source)
    assert could_hold_tasks(source.encode())


@pytest.mark.parametrize("source", SKIPPED)
def test_other_files_are_skipped(source: str) -> None:
    assert not could_hold_tasks(source)
    assert not could_hold_tasks(source.encode())


def test_configured_decorators_pass() -> None:
    source = "from sentry.tasks.base import instrumented_task\n\n@instrumented_task(name='x')\ndef f(): pass\n"
    settings = Settings(task_decorators=("sentry.tasks.base.instrumented_task",))
    assert could_hold_tasks(source.encode(), settings)
