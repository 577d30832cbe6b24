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
