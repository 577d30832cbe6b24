"""Same input, same output, byte for byte; and the checked files are never touched.

Output is sorted by path, line, column and code whatever the order of the
paths on the command line, the order the file system lists a directory in,
or the number of worker processes (``test_jobs.py``).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import random
import shutil
import subprocess
import sys
from typing import Dict, Iterator, List, Tuple

import pytest

import idemlint.discovery
from idemlint.cli import main

# The whole fixture tree, run again and again in subprocesses: 40 s (`make test-all`).
pytestmark = pytest.mark.slow

TESTS = pathlib.Path(__file__).parent
FIXTURES = TESTS / "fixtures"
SHOP = TESTS / "projects" / "shop"
FIXTURE_FILES = sorted(str(p) for p in FIXTURES.rglob("*.py"))

# Where main's findings cache lives in a checked project: idemlint's own files.
OWN_DIRECTORY = ".idemlint_cache"


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> Tuple[int, str]:
    status = main(["check", *args])
    return status, capsys.readouterr().out


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_two_runs_print_byte_identical_output(tmp_path: pathlib.Path, output_format: str) -> None:
    def run() -> bytes:
        result = subprocess.run(
            [sys.executable, "-m", "idemlint", "check", "--format", output_format, str(FIXTURES)],
            cwd=tmp_path, capture_output=True, timeout=300,
        )
        assert result.returncode == 1, result.stderr
        return result.stdout

    first = run()
    assert first  # not two empty outputs
    assert run() == first


def test_the_order_of_paths_on_the_command_line_does_not_matter(
    capsys: pytest.CaptureFixture[str],
) -> None:
    expected = cli(capsys, "--jobs", "1", *FIXTURE_FILES)
    assert expected[1].count("\n") > 100
    shuffled = list(FIXTURE_FILES)
    for seed in range(2):
        random.Random(seed).shuffle(shuffled)
        assert shuffled != FIXTURE_FILES
        assert cli(capsys, "--jobs", "1", *shuffled) == expected


def test_the_order_a_directory_is_listed_in_does_not_matter(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = cli(capsys, "--jobs", "1", str(FIXTURES), str(SHOP))
    real_scandir = os.scandir
    listed: List[str] = []

    @contextlib.contextmanager
    def reversed_scandir(path: str) -> Iterator[List["os.DirEntry[str]"]]:
        with real_scandir(path) as listing:
            entries = list(listing)
        listed.append(path)
        yield sorted(entries, key=lambda entry: entry.name, reverse=True)

    monkeypatch.setattr(idemlint.discovery.os, "scandir", reversed_scandir)
    assert cli(capsys, "--jobs", "1", str(FIXTURES), str(SHOP)) == expected
    assert len(listed) > 5


def snapshot(root: pathlib.Path) -> Dict[str, Tuple[bytes, int, int]]:
    """Every file and directory under ``root``: content, mode and mtime."""
    state: Dict[str, Tuple[bytes, int, int]] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if OWN_DIRECTORY in relative.parts:
            continue
        status = path.lstat()
        content = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
        state[str(relative)] = (content, status.st_mode, status.st_mtime_ns)
    return state


def test_checking_a_tree_never_writes_to_it(tmp_path: pathlib.Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SHOP, tree / "shop")
    shutil.copytree(FIXTURES, tree / "fixtures")
    (tree / "broken.py").write_text("from celery import shared_task\n@shared_task\ndef f(:\n")
    (tree / "crlf.py").write_bytes(b"from celery import shared_task\r\n@shared_task\r\ndef f():\r\n    pass\r\n")
    before = snapshot(tree)
    commands = [
        [sys.executable, "-m", "idemlint", "check", "--format", output_format, str(tree)]
        for output_format in ("text", "review")
    ]
    commands.append([sys.executable, "-m", "idemlint", "check", "--project", str(tree), str(tree / "shop")])
    commands.append([sys.executable, "-m", "flake8", "--isolated", "--select", "IDM", str(tree)])
    for command in commands:
        result = subprocess.run(command, cwd=tree, capture_output=True, timeout=300)
        assert result.returncode in (1, 2), result.stderr
    assert snapshot(tree) == before
