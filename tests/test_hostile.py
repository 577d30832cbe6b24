"""Input that crashes libcst's native parser must become a one-line E999.

Run in a subprocess: a regression here is a segmentation fault, which would
take the test runner down with it.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

TASK_HEADER = "from celery import shared_task\n\n@shared_task\ndef f():\n    x = "


@pytest.mark.parametrize(
    "body, message",
    [
        ("(" * 3000 + "1" + ")" * 3000, "too many nested parentheses"),
        (" + ".join(["a"] * 20000), "nested too deeply"),
    ],
    ids=["3000-nested-parentheses", "20000-term-expression"],
)
def test_deeply_nested_file_is_reported_not_crashed(
    tmp_path: pathlib.Path, body: str, message: str
) -> None:
    hostile = tmp_path / "hostile.py"
    hostile.write_text(TASK_HEADER + body + "\n")
    buggy = tmp_path / "buggy.py"
    buggy.write_text(
        "import requests\nfrom celery import shared_task\n\n"
        "@shared_task\ndef notify(order_id):\n"
        "    requests.post('https://partner.example/orders', json={'id': order_id})\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "idemlint", "check", str(hostile), str(buggy)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert any(line.startswith(f"{hostile}:") and "E999" in line and message in line for line in lines)
    assert any(line.startswith(f"{buggy}:6:5: IDM002") for line in lines)


VALID_BUT_AWKWARD = {
    "parameter-reassigned-from-itself": (
        "from celery import shared_task\nfrom django.core.cache import cache\n\n"
        "@shared_task\ndef t(key):\n    key = key + ':lock'\n    if cache.add(key, '1', 10):\n        pass\n"
    ),
    "cyclic-class-bases": (
        "from celery import Task\n\nclass A(B):\n    pass\n\nclass B(A):\n    def run(self):\n        pass\n"
    ),
    "infinite-time-limit": (
        "import redis\nfrom celery import shared_task\nr = redis.Redis()\n\n"
        "@shared_task(time_limit=1e309)\ndef t(x):\n    if not r.set('lock:x', '1', nx=True, ex=10 ** 400):\n        return\n"
    ),
    "invalid-escape-in-a-key": (
        "import redis\nfrom celery import shared_task\nr = redis.Redis()\n\n"
        "@shared_task\ndef t():\n    if r.set('lock:\\d+', '1', nx=True, ex=10):\n        pass\n"
    ),
    "hex-index": (
        "from celery import shared_task\n\n@shared_task(bind=True)\ndef t(self, order_id):\n"
        "    raise self.retry(args=(self.request.args[0x0],))\n"
    ),
    "1500-term-expression": (
        "import requests\nfrom celery import shared_task\n\n@shared_task\ndef t(a):\n"
        "    x = " + " + ".join(["a"] * 1500) + "\n"
    ),
}


@pytest.mark.parametrize("source", VALID_BUT_AWKWARD.values(), ids=VALID_BUT_AWKWARD.keys())
def test_valid_python_never_becomes_a_problem(source: str) -> None:
    import warnings

    from idemlint import lint_source

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = lint_source(source, "awkward.py")
    assert result.problems == ()


@pytest.mark.parametrize(
    "call",
    ["account.lock('too many attempts')", "archive.add(path, 'name', None)"],
)
def test_lock_and_add_on_objects_that_are_not_stores_are_not_locks(call: str) -> None:
    from idemlint import lint_source

    source = f"from celery import shared_task\n\n@shared_task\ndef t(account, archive, path):\n    {call}\n"
    assert [f.code for f in lint_source(source, "t.py").findings] == []
