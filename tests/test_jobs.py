"""The result is the same whatever the number of worker processes, and a
cache filled by workers records what each file depends on."""

from __future__ import annotations

import pathlib
import shutil

import pytest

from idemlint import lint_paths
from idemlint.cache import Cache
from idemlint.settings import DEFAULT_SETTINGS

TESTS = pathlib.Path(__file__).parent


@pytest.mark.parametrize(
    "root",
    ["fixtures", "projects/shop", "projects/shared_helpers", "projects/subtasks", "projects/calls_picked"],
)
@pytest.mark.parametrize("workers", [2, 3])
def test_one_and_more_workers_give_identical_results(root: str, workers: int) -> None:
    path = str(TESTS / root)
    single = lint_paths([path], jobs=1)
    several = lint_paths([path], jobs=workers)
    assert single.findings  # the comparison is not between two empty results
    assert several == single


def test_a_cache_workers_filled_sees_a_helper_edited_since(tmp_path: pathlib.Path) -> None:
    """Each file's result records what it looked up, also when a worker's
    project served several files (and a task file was another's helper first)."""
    root = tmp_path / "project"
    shutil.copytree(TESTS / "projects" / "shared_helpers", root)
    cache_dir = str(tmp_path / "cache")
    lint_paths([str(root)], jobs=2, cache=Cache(cache_dir, DEFAULT_SETTINGS))
    billing = root / "orders" / "billing.py"
    billing.write_text(billing.read_text().replace("send_mail(", "print("))
    warm = lint_paths([str(root)], jobs=2, cache=Cache(cache_dir, DEFAULT_SETTINGS))
    assert warm == lint_paths([str(root)], jobs=1)
    assert not any(f.code == "IDM013" for f in warm.findings)


def test_the_files_of_a_directory_are_handed_out_together_a_few_at_a_time() -> None:
    from idemlint.engine import _by_directory

    candidates = [(path, b"") for path in ["a/1.py", "a/2.py", "a/3.py", "b/1.py", "a/4.py"]]
    assert _by_directory(candidates, 2) == [[0, 1], [2, 4], [3]]


def test_workers_are_not_started_for_a_handful_of_files() -> None:
    from idemlint.engine import FILES_PER_WORKER, _workers

    assert _workers(None, FILES_PER_WORKER - 1) == 1
    assert _workers(3, 1) == 3
