"""Budgets: calls past the depth limits, or past a task's event budget, are
not followed, and ``--statistics`` counts their call sites.

The fixture project tests/projects/budget_depth/ chains calls deeper than
the limits (``# expect:`` on each finding: the effects within reach); the
event budget is made small here to be reached by a few lines.
"""

from __future__ import annotations

import pathlib
import shutil
import textwrap
from typing import Dict, List

import pytest

from conftest import RunCli
from expectations import expectations, reported

from idemlint import analysis, engine

BUDGET_DEPTH = pathlib.Path(__file__).parent / "projects" / "budget_depth"
DEPTH_LINE = "3  calls not followed: past the depth limit"
EVENTS_LINE = "calls not followed: past the event budget"


def statistics(out: str) -> List[str]:
    return [line for line in out.splitlines() if not line.startswith(str(BUDGET_DEPTH))]


def test_calls_past_the_depth_limits_are_counted_once_per_call_site(run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", "--statistics", str(BUDGET_DEPTH))
    assert (status, err) == (1, "")
    # The fourth module (also behind a nested function) and the eighth
    # local hop are walked; the fifth and ninth are not.
    assert reported(out) == expectations(BUDGET_DEPTH)
    # Two tasks in two files reach two of the cut call sites: three sites, not five;
    # the recursive helper is cut too, but not for a budget.
    assert statistics(out) == ["4  IDM013  unguarded-side-effect", DEPTH_LINE]


def test_structured_formats_count_on_stderr(run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", "--format", "json", "--statistics", str(BUDGET_DEPTH))
    assert status == 1 and out.startswith("[")
    assert err.splitlines() == ["4  IDM013  unguarded-side-effect", DEPTH_LINE]


def test_a_helper_summary_replayed_for_another_file_counts_its_cuts(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With --project and only tasks.py named, chain/more_tasks.py (earlier in
    # path order) walks both chains first; tasks.py replays their summaries.
    replayed: List[str] = []
    original = analysis.TraceBuilder._replay

    def counting(self: analysis.TraceBuilder, summary: analysis.Summary, *rest: object) -> None:
        replayed.append(summary.scope.qualified_name)
        original(self, summary, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis.TraceBuilder, "_replay", counting)
    named = str(BUDGET_DEPTH / "chain" / "tasks.py")
    status, out, _ = run_cli(
        "check", "--no-cache", "--jobs", "1", "--statistics", "--project", str(BUDGET_DEPTH), named
    )
    assert {"relay", "hop1"} <= set(replayed)
    assert status == 1
    assert out.splitlines()[-1] == DEPTH_LINE


def test_counts_do_not_depend_on_file_order_or_jobs(run_cli: RunCli) -> None:
    files = sorted(str(path) for path in BUDGET_DEPTH.rglob("*.py"))
    outputs = {
        run_cli("check", "--no-cache", "--statistics", "--jobs", jobs, *order)[1]
        for jobs in ("1", "2")
        for order in (files, files[::-1])
    }
    assert len(outputs) == 1
    assert statistics(outputs.pop())[-1] == DEPTH_LINE


def test_a_warm_run_reports_the_same_statistics(
    tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "project"
    shutil.copytree(BUDGET_DEPTH, root)
    cache = str(tmp_path / "cache")
    cold = run_cli("check", "--cache-dir", cache, "--statistics", str(root))
    monkeypatch.setattr(engine, "_analyse_chunks", None)  # a warm run analyses nothing
    warm = run_cli("check", "--cache-dir", cache, "--statistics", str(root))
    assert cold == warm
    assert cold[1].splitlines()[-1] == DEPTH_LINE


RECURSIVE = {
    "jobs/__init__.py": "",
    "jobs/helpers.py": """
        from django.core.mail import send_mail


        def countdown(address, left):
            if left:
                countdown(address, left - 1)
            send_mail("Countdown", "Done", None, [address])


        def ping(address):
            pong(address)
            send_mail("Ping", "Done", None, [address])


        def pong(address):
            ping(address)
        """,
    # A cycle of eight: the call back to the first is recursion, and past the
    # depth limit at once; it is counted as neither.
    "jobs/cycle.py": "\n\n".join(
        f"def step{i}(address):\n    step{i % 8 + 1}(address)\n" for i in range(1, 9)
    ),
    "jobs/tasks.py": """
        from celery import shared_task

        from jobs import cycle, helpers


        @shared_task
        def count_down(address):
            helpers.countdown(address, 3)


        @shared_task
        def ping_pong(address):
            helpers.ping(address)


        @shared_task
        def go_round(address):
            cycle.step1(address)
        """,
}


def write(root: pathlib.Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), "utf-8")


def test_recursion_is_not_counted_as_a_budget(tmp_path: pathlib.Path, run_cli: RunCli) -> None:
    write(tmp_path, RECURSIVE)
    status, out, err = run_cli("check", "--no-cache", "--statistics", str(tmp_path))
    assert (status, err) == (1, "")
    assert out.splitlines()[-1] == "2  IDM013  unguarded-side-effect"
    assert "calls not followed" not in out


BUDGET = {
    "jobs/__init__.py": "",
    "jobs/helpers.py": """
        import logging

        log = logging.getLogger(__name__)


        def prepare(address):
            log.info("one %s", address)
            log.info("two %s", address)
            log.info("three %s", address)
            log.info("four %s", address)
        """,
    "jobs/tasks.py": """
        from celery import shared_task
        from django.core.mail import send_mail

        from jobs import helpers


        @shared_task
        def welcome(address):
            helpers.prepare(address)
            send_mail("Welcome", "Hello", None, [address])


        @shared_task
        def welcome_again(address):
            helpers.prepare(address)
            send_mail("Welcome", "Hello again", None, [address])
        """,
}


def test_a_walk_cut_by_the_event_budget_is_counted(
    tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, BUDGET)
    status, out, _ = run_cli("check", "--no-cache", "--statistics", "--jobs", "1", str(tmp_path))
    assert status == 1 and out.splitlines()[-1] == "2  IDM013  unguarded-side-effect"
    assert EVENTS_LINE not in out
    # The budget runs out inside `prepare`: the e-mail after it is not seen,
    # and each task's call to `prepare` is a call not followed (the second
    # task walks it again: a walk the budget cut is no summary to replay).
    monkeypatch.setattr(analysis, "MAX_EVENTS_PER_TASK", 4)
    status, out, _ = run_cli("check", "--no-cache", "--statistics", "--jobs", "1", str(tmp_path))
    assert status == 0
    assert out == f"2  {EVENTS_LINE}\n"
