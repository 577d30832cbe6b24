"""A contributor's first session: ``make demo``, then ``make test``, in a fresh clone.

``make demo`` leaves ``.idemlint_cache/`` in the clone, signed with the
user's secret.  The tests that run the CLI must not see it (``conftest.py``
gives each test a working directory and a user cache of its own): with the
clone as their working directory, those of ``tests/test_cli.py`` that want
an empty stderr got the warning that the cache was not idemlint's.

So: a git clone of this checkout, holding the working tree's files,
committed or not (what a clone holds once they are committed); ``make
demo`` in it, as a user with a cache directory of their own; then ``make
test`` on ``tests/test_cli.py``, as that user.  Both run on the virtual
environment these tests run in (``VENV=``, its install stamp taken as up to
date with ``make -o``, so nothing is installed): the package is the one
under test, the clone brings the Makefile, the demo and the tests.  Needs
git and make, and this checkout to be a git work tree (it is skipped in an
unpacked source distribution).
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
from typing import Dict, List

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = pathlib.Path(sys.executable).parent  # not resolved: the venv's bin/, not its base Python's
VENV = BIN.parent


def is_git_work_tree(path: pathlib.Path) -> bool:
    try:
        completed = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "--show-toplevel"],
            capture_output=True, text=True, timeout=60,
        )
    except OSError:
        return False
    top = completed.stdout.strip()
    return completed.returncode == 0 and pathlib.Path(top).resolve() == path


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("make") is None, reason="no make"),
    pytest.mark.skipif(
        not is_git_work_tree(ROOT), reason="clones this checkout; this tree is not a git work tree"
    ),
    pytest.mark.skipif(
        not ((BIN / "idemlint").is_file() and (BIN / "pytest").is_file()),
        reason=f"{BIN} has no idemlint and pytest for make to run (not a virtual environment?)",
    ),
]


def run(command: List[str], cwd: pathlib.Path, env: Dict[str, str]) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL
    )


def fresh_clone(path: pathlib.Path, env: Dict[str, str]) -> pathlib.Path:
    cloned = run(["git", "clone", "--quiet", str(ROOT), str(path)], ROOT, env)
    assert cloned.returncode == 0, cloned.stderr
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT, env)
    assert listed.returncode == 0, listed.stderr
    for name in filter(None, listed.stdout.split("\0")):
        source, target = ROOT / name, path / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif target.is_file():  # deleted in the work tree, not yet committed
            target.unlink()
    return path


def test_make_demo_then_make_test_in_a_fresh_clone(tmp_path: pathlib.Path) -> None:
    # The user's environment, without what the outer test run and make set.
    env = {
        key: value for key, value in os.environ.items()
        if not key.startswith(("GIT_", "PYTEST_", "MAKE")) and key not in ("MFLAGS", "VIRTUAL_ENV", "PYTHONPATH")
    }
    env["XDG_CACHE_HOME"] = str(tmp_path / "user-cache")  # the user's secret, not any test's
    clone = fresh_clone(tmp_path / "clone", env)
    make = ["make", "-o", f"{VENV}/.installed", f"VENV={VENV}"]

    demo = run([*make, "demo"], clone, env)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert (clone / ".idemlint_cache" / "CACHEDIR.TAG").is_file(), "make demo left no cache in the clone"

    test = run([*make, "test", f"PYTEST_ARGS=--basetemp={tmp_path / 'pytest'} tests/test_cli.py"], clone, env)
    output = test.stdout + test.stderr
    assert test.returncode == 0, output
    summary = output.strip().splitlines()[-1]  # pytest's; make says nothing after a success
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed.group(1)) > 50 and "failed" not in summary and "error" not in summary, summary
