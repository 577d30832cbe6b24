"""``idemlint check -``: the text on stdin, checked as the file
``--stdin-filename`` names, with the project around it read from disk."""

from __future__ import annotations

import pathlib
import subprocess
import sys
from typing import Tuple

import pytest

HELPER = """\
import requests


def notify(order_id):
    requests.post("https://partner.example.com/orders", json={"id": order_id})
"""

ON_DISK = """\
from celery import shared_task


@shared_task
def ship(order_id):
    return order_id
"""

IN_THE_EDITOR = """\
import stripe
from celery import shared_task

from shop.helpers import notify


@shared_task
def ship(order_id):
    notify(order_id)
    stripe.Charge.create(amount=1, currency="eur")
"""


def check(cwd: pathlib.Path, text: str, *args: str) -> Tuple[int, str, str]:
    result = subprocess.run(
        [sys.executable, "-m", "idemlint", "check", "--no-cache", *args],
        cwd=cwd,
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return result.returncode, result.stdout, result.stderr


@pytest.fixture
def project(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "pyproject.toml").write_text("[tool.idemlint]\n", "utf-8")
    package = tmp_path / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("", "utf-8")
    (package / "helpers.py").write_text(HELPER, "utf-8")
    (package / "tasks.py").write_text(ON_DISK, "utf-8")
    return tmp_path


def test_the_text_is_checked_as_the_named_file_within_its_project(project: pathlib.Path) -> None:
    status, out, err = check(project, IN_THE_EDITOR, "-", "--stdin-filename", "shop/tasks.py")
    assert (status, err) == (1, "")
    lines = sorted(line.split(" ", 2)[:2] for line in out.splitlines())
    # The helper in another module is followed from the text's task, and the
    # text's own call is reported at its line: the file on disk has neither.
    assert lines == [["./shop/helpers.py:5:5:", "IDM002"], ["./shop/tasks.py:10:5:", "IDM002"]]
    assert "called from task `shop.tasks.ship`" in out
    assert (project / "shop" / "tasks.py").read_text("utf-8") == ON_DISK


def test_the_named_files_configuration_applies(project: pathlib.Path) -> None:
    (project / "pyproject.toml").write_text('[tool.idemlint]\nignore = ["IDM002"]\n', "utf-8")
    assert check(project, IN_THE_EDITOR, "-", "--stdin-filename", "shop/tasks.py")[:2] == (0, "")


def test_without_a_name_the_text_is_stdin_py(tmp_path: pathlib.Path) -> None:
    status, out, _ = check(tmp_path, IN_THE_EDITOR.replace("from shop.helpers import notify\n", ""), "-")
    assert status == 1
    assert out.startswith("stdin.py:9:5: IDM002 ")  # the import line taken out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-", "other.py"), "'-' (stdin) must be the only path"),
        (("--stdin-filename", "x.py", "."), "--stdin-filename names the text read with the path '-'"),
        (("--fix", "-"), "cannot be used with '-' (stdin)"),
        (("--fix-diff", "-"), "cannot be used with '-' (stdin)"),
        (("--write-baseline", "b.json", "-"), "cannot be used with '-' (stdin)"),
        (("--show-unused-noqa", "-"), "cannot be used with '-' (stdin)"),
        (("--stdin-filename", "shop", "-"), "--stdin-filename 'shop' is a directory"),
    ],
)
def test_what_stdin_cannot_be_used_with(project: pathlib.Path, args: Tuple[str, ...], message: str) -> None:
    status, _, err = check(project, IN_THE_EDITOR, *args)
    assert status == 2
    assert message in err


def test_a_name_the_project_walk_leaves_out_is_still_checked(project: pathlib.Path) -> None:
    (project / ".gitignore").write_text("generated/\n", "utf-8")
    (project / "generated").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True, timeout=60)
    status, out, _ = check(project, IN_THE_EDITOR, "-", "--stdin-filename", "generated/tasks.py")
    assert status == 1
    assert "generated/tasks.py:10:5: IDM002 " in out
