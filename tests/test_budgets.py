"""Budgets: a call into project code is followed however deep it goes,
within the task's event budget; what the budget cuts is counted by
``--statistics`` at its call sites.

The fixture project tests/projects/deep_calls/ chains calls through
modules, closures and methods (``# expect:`` on each finding, all of them
many calls below their tasks); the event budget is reached here by a chain
longer than any real one, or made small to be reached by a few lines.
"""

from __future__ import annotations

import pathlib
import shutil
import textwrap
from typing import Dict, List

import pytest

from conftest import RunCli
from expectations import expectations, reported

from idemlint.semantic import trace
from idemlint import engine

DEEP_CALLS = pathlib.Path(__file__).parent / "projects" / "deep_calls"
EVENTS_LINE = "calls not followed: past the event budget"


def statistics(out: str, root: pathlib.Path) -> List[str]:
    return [line for line in out.splitlines() if not line.startswith(str(root))]


def test_effects_many_calls_deep_are_found(run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", "--statistics", str(DEEP_CALLS))
    assert (status, err) == (1, "")
    assert reported(out) == expectations(DEEP_CALLS)
    # Nothing is cut: no depth limit, and the chains are far within the budget.
    assert statistics(out, DEEP_CALLS) == ["6  IDM013  unguarded-side-effect"]


def test_structured_formats_count_on_stderr(run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", "--format", "json", "--statistics", str(DEEP_CALLS))
    assert status == 1 and out.startswith("[")
    assert err.splitlines() == ["6  IDM013  unguarded-side-effect"]


def test_a_helper_summary_is_replayed_for_another_file(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With --project and only tasks.py named, chain/more_tasks.py (earlier in
    # path order) walks both chains first; tasks.py replays their summaries
    # and finds what walking them finds.
    replayed: List[str] = []
    original = trace.TraceBuilder._replay

    def counting(self: trace.TraceBuilder, summary: trace.Summary, *rest: object) -> None:
        replayed.append(summary.scope.qualified_name)
        original(self, summary, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(trace.TraceBuilder, "_replay", counting)
    named = str(DEEP_CALLS / "chain" / "tasks.py")
    status, out, _ = run_cli("check", "--no-cache", "--jobs", "1", "--project", str(DEEP_CALLS), named)
    # Deep in a chain, a summary walked with a larger share than the call
    # has is walked again instead (it would not be walked alike): some are.
    assert "relay" in replayed and any(name.startswith("hop") for name in replayed)
    assert status == 1
    assert reported(out) == expectations(DEEP_CALLS)


def endless_chain(length: int) -> Dict[str, str]:
    """A chain of ``length`` functions across modules of ten, with an
    e-mail ten calls below the task and one at the end of the chain."""
    files = {"jobs/__init__.py": ""}
    for module in range(length // 10):
        lines = ["from django.core.mail import send_mail\n"]
        if module + 1 < length // 10:
            lines.append(f"from jobs import chain{module + 1}\n")
        for i in range(10):
            number = module * 10 + i
            lines.append(f"\n\ndef hop{number}(address):\n")
            if number in (10, length - 1):
                lines.append(f'    send_mail("Hop {number}", "Deep", None, [address])\n')
            if number + 1 == length:
                continue
            following = f"hop{number + 1}" if i < 9 else f"chain{module + 1}.hop{number + 1}"
            lines.append(f"    {following}(address)\n")
        files[f"jobs/chain{module}.py"] = "".join(lines)
    files["jobs/tasks.py"] = """
        from celery import shared_task

        from jobs import chain0


        @shared_task
        def descend(address):
            chain0.hop0(address)


        @shared_task
        def descend_again(address):
            chain0.hop0(address)
        """
    return files


def test_a_chain_longer_than_any_real_one_ends_within_the_budget(
    tmp_path: pathlib.Path, run_cli: RunCli
) -> None:
    # Each call may spend only part of what its caller has left: the walk
    # ends on its own, about twelve calls down, and the cut is counted once
    # (both tasks stop at the same call, the second replaying the first's
    # walk, cut at the same share).
    write(tmp_path, endless_chain(2000))
    status, out, err = run_cli("check", "--no-cache", "--statistics", str(tmp_path))
    assert (status, err) == (1, "")
    found = [line.split(":")[0] for line in out.splitlines() if line.startswith(str(tmp_path))]
    assert found == [str(tmp_path / "jobs" / "chain1.py")]
    assert statistics(out, tmp_path) == ["1  IDM013  unguarded-side-effect", f"1  {EVENTS_LINE}"]


def test_counts_do_not_depend_on_file_order_or_jobs(tmp_path: pathlib.Path, run_cli: RunCli) -> None:
    write(tmp_path, endless_chain(200))
    files = sorted(str(path) for path in tmp_path.rglob("*.py"))
    outputs = {
        run_cli("check", "--no-cache", "--statistics", "--jobs", jobs, *order)[1]
        for jobs in ("1", "2")
        for order in (files, files[::-1])
    }
    assert len(outputs) == 1
    assert statistics(outputs.pop(), tmp_path)[-1] == f"1  {EVENTS_LINE}"


def test_a_warm_run_reports_the_same_statistics(
    tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "project"
    write(root, endless_chain(200))
    shutil.copytree(DEEP_CALLS, root / "deep")
    cache = str(tmp_path / "cache")
    cold = run_cli("check", "--cache-dir", cache, "--statistics", str(root))
    monkeypatch.setattr(engine, "_analyse_chunks", None)  # a warm run analyses nothing
    warm = run_cli("check", "--cache-dir", cache, "--statistics", str(root))
    assert cold == warm
    assert cold[1].splitlines()[-1] == f"1  {EVENTS_LINE}"


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
    # A cycle of eight: the call back to the first is recursion, cut and not
    # counted as a budget.
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
    # With a budget of 4 events, `prepare`'s share is too small to walk: it
    # is not followed, the e-mail after it, in the task's own body, is still
    # seen, and each task's call to `prepare` is a call not followed.
    monkeypatch.setattr(trace, "MAX_EVENTS_PER_TASK", 4)
    status, out, _ = run_cli("check", "--no-cache", "--statistics", "--jobs", "1", str(tmp_path))
    assert status == 1
    assert statistics(out, tmp_path) == ["2  IDM013  unguarded-side-effect", f"2  {EVENTS_LINE}"]


SHARED_HELPER = {
    "jobs/__init__.py": "",
    "jobs/heavy.py": """
        import logging

        from django.core.mail import send_mail

        log = logging.getLogger(__name__)


        def notify(address):
            log.info("one %s", address)
            log.info("two %s", address)
            log.info("three %s", address)
            deliver(address)


        def deliver(address):
            log.info("four %s", address)
            send_mail("Notice", "Deep", None, [address])
        """,
    # One task calls the helper at once, with most of its budget...
    "jobs/at_once/__init__.py": "",
    "jobs/at_once/tasks.py": """
        from celery import shared_task

        from jobs import heavy


        @shared_task
        def notify_near(address):
            heavy.notify(address)
        """,
    # ...the other four calls down, with a share too small to walk it whole.
    "jobs/four_calls_down/__init__.py": "",
    "jobs/four_calls_down/tasks.py": """
        from celery import shared_task

        from jobs import heavy


        def first(address):
            second(address)


        def second(address):
            third(address)


        def third(address):
            heavy.notify(address)


        @shared_task
        def notify_far(address):
            first(address)
        """,
}


def test_a_summary_is_replayed_only_where_it_would_be_walked_alike(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The near task (its file first in path order) walks the helper whole
    # and keeps its summary; the far task, in the same worker, must not
    # replay it where its share would have cut the walk: what it finds is
    # what it finds in a worker of its own.
    write(tmp_path, SHARED_HELPER)
    monkeypatch.setattr(trace, "MAX_EVENTS_PER_TASK", 160)
    files = sorted(str(path) for path in tmp_path.rglob("*.py"))
    alone = engine.lint_paths(files, jobs=2)
    together = engine.lint_paths(files, jobs=1)
    assert together == alone
    (finding,) = together.findings
    assert finding.tasks == ("jobs.at_once.tasks.notify_near",)
    assert len(together.unfollowed) == 1


def same_alone_and_together(root: pathlib.Path) -> engine.LintResult:
    """The result of linting ``root`` with one worker (a task's trace may
    replay summaries another file's tasks walked) and with two (each
    directory alone); they must be the same."""
    files = sorted(str(path) for path in root.rglob("*.py"))
    together = engine.lint_paths(files, jobs=1)
    assert engine.lint_paths(files, jobs=2) == together
    return together


HEAVY = "\n".join(f"    log.info('line {i} %s', address)" for i in range(200))

CUT_BY_THE_BUDGET = {
    "jobs/__init__.py": "",
    "jobs/helpers.py": f"import logging\n\nlog = logging.getLogger(__name__)\n\n\ndef heavy(address):\n{HEAVY}\n",
    "jobs/a/__init__.py": "",
    "jobs/a/tasks.py": """
        from celery import shared_task

        from jobs import helpers


        @shared_task
        def task_a(address):
            helpers.heavy(address)
        """,
    "jobs/b/__init__.py": "",
    "jobs/b/tasks.py": """
        from celery import shared_task

        from jobs import helpers


        @shared_task
        def task_b(address):
            helpers.heavy(address)
        """,
}


def test_a_replayed_cut_names_the_call_it_is_replayed_for(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, CUT_BY_THE_BUDGET)
    monkeypatch.setattr(trace, "MAX_EVENTS_PER_TASK", 100)
    result = same_alone_and_together(tmp_path)
    assert sorted((pathlib.Path(u.path).parent.name, u.function) for u in result.unfollowed) == [
        ("a", "task_a"),
        ("b", "task_b"),
    ]


RECURSIVE_ROUTES = {
    "jobs/__init__.py": "",
    "jobs/helpers.py": """
        from django.core.mail import send_mail


        def f(address, first=False):
            if first:
                g(address)
            else:
                send_mail("Notice", "Body", None, [address])


        def g(address):
            f(address)
        """,
    "jobs/a/__init__.py": "",
    "jobs/a/tasks.py": """
        from celery import shared_task

        from jobs import helpers


        @shared_task
        def via_g(address):
            helpers.g(address)
        """,
    "jobs/b/__init__.py": "",
    "jobs/b/tasks.py": """
        from celery import shared_task

        from jobs import helpers


        @shared_task
        def via_f(address):
            helpers.f(address, first=True)
        """,
}


def test_a_summary_is_not_replayed_inside_a_function_it_runs(tmp_path: pathlib.Path) -> None:
    # via_g walks g, then f: g's summary runs f.  via_f is inside f when it
    # calls g, where walking g cuts the call back into f as recursion.
    write(tmp_path, RECURSIVE_ROUTES)
    result = same_alone_and_together(tmp_path)
    assert [(f.code, f.tasks) for f in result.findings] == [("IDM013", ("jobs.a.tasks.via_g",))]


SELF_ENQUEUE = {
    "jobs/__init__.py": "",
    "jobs/helpers.py": """
        from jobs.a import tasks


        def again(address):
            tasks.poll.delay(address)
        """,
    "jobs/a/__init__.py": "",
    "jobs/a/tasks.py": """
        from celery import shared_task
        from django.core.mail import send_mail

        from jobs import helpers


        @shared_task
        def poll(address):
            send_mail("Poll", "Body", None, [address])
            helpers.again(address)
        """,
    "jobs/b/__init__.py": "",
    "jobs/b/tasks.py": """
        from celery import shared_task

        from jobs import helpers


        @shared_task
        def kick(address):
            helpers.again(address)
        """,
}


def test_a_summary_walked_for_a_task_that_enqueues_itself_serves_no_other(tmp_path: pathlib.Path) -> None:
    # In poll's own trace its enqueue of itself is no side effect; in kick's,
    # the same helper enqueues poll, which sends unguarded.
    write(tmp_path, SELF_ENQUEUE)
    result = same_alone_and_together(tmp_path)
    assert ("helpers.py", "jobs.b.tasks.kick") in {
        (pathlib.Path(f.path).name, task) for f in result.findings for task in f.tasks
    }


RETURNS_PER_CALL = {
    "jobs/__init__.py": "",
    "jobs/tasks.py": """
        from celery import shared_task
        from django.core.mail import send_mail

        from shop.models import Order


        def any_rows(rows):
            return rows.exists()


        def check(rows):
            return any_rows(rows)


        @shared_task
        def send_receipt(order_id, address):
            if check(Order.objects.filter(pk=order_id, receipt_sent=True)):
                print("seen")
            if check(Order.objects.filter(pk=order_id, receipt_sent=False)):
                return
            send_mail("Receipt", "Thanks", None, [address])  # expect: IDM013
        """,
}


def test_a_helper_replayed_at_two_calls_returns_what_each_passed(tmp_path: pathlib.Path) -> None:
    # The second check asks whether the receipt is not yet sent: no done-check.
    # Read as the first call's return, it would be one (and IDM007, not IDM013).
    write(tmp_path, RETURNS_PER_CALL)
    result = engine.lint_paths([str(tmp_path / "jobs")])
    assert [(f.code, f.line) for f in result.findings] == [("IDM013", 22)]
