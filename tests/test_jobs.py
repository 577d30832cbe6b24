"""The result is the same whatever the number of worker processes."""

from __future__ import annotations

import pathlib

import pytest

from idemlint import lint_paths

TESTS = pathlib.Path(__file__).parent


@pytest.mark.parametrize("root", ["fixtures", "projects/shop"])
def test_one_and_two_workers_give_identical_results(root: str) -> None:
    path = str(TESTS / root)
    single = lint_paths([path], jobs=1)
    double = lint_paths([path], jobs=2)
    assert single.findings  # the comparison is not between two empty results
    assert double == single


def test_workers_are_not_started_for_a_handful_of_files() -> None:
    from idemlint.engine import FILES_PER_WORKER, _workers

    assert _workers(None, FILES_PER_WORKER - 1) == 1
    assert _workers(3, 1) == 3
