"""Fixture projects for shapes the rules read across modules, each with
its variations and safe twins marked ``# expect: IDMnnn``:

- ``keys_on_paths``: idempotency keys that are ``None`` on some path, as a
  keyword, in a ``**`` mapping a wrapper collects or a dict literal the call
  splats, and as a parameter whose annotation allows ``None`` (what the
  walked calls pass decides, not the annotation) (IDM002);
- ``lock_context_managers``: a lock a project context manager holds for the
  ``with`` that enters it, compared with the task's limit when the task's
  own body enters it (IDM006);
- ``locks_around_sends``: a message sent under a lock that is let go after
  the send, which keeps no redelivery out (IDM013);
- ``named_registrations``: objects looked up by the name the project
  registers them under (a factory, a class, a factory method, an instance,
  the name in a constant), and the message each sends (IDM013);
- ``self_healing_tasks``: late acks on tasks that are run again anyway, by
  their schedule or by a scheduled sweep, and their twins (IDM009).
"""

from __future__ import annotations

import json
import pathlib
import re
import shutil

import pytest
from conftest import RunCli
from expectations import assert_independent_of_order_and_jobs, expectations, reported

from idemlint import lint_paths
from idemlint.cache import DIRECTORY_NAME, Cache
from idemlint.settings import DEFAULT_SETTINGS
from idemlint.findings import Finding

PROJECTS = pathlib.Path(__file__).parent / "projects"
NAMES = ["keys_on_paths", "lock_context_managers", "locks_around_sends", "named_registrations", "self_healing_tasks"]


@pytest.mark.parametrize("name", NAMES)
def test_each_project_reports_what_it_marks(name: str, run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", str(PROJECTS / name))
    assert (status, err) == (1, "")
    assert reported(out) == expectations(PROJECTS / name)


@pytest.mark.sweep
@pytest.mark.parametrize("name", NAMES)
def test_each_project_is_independent_of_file_order_and_jobs(name: str, tmp_path: pathlib.Path) -> None:
    assert_independent_of_order_and_jobs(PROJECTS / name, tmp_path)


def _findings(name: str, code: str) -> list[Finding]:
    return [f for f in lint_paths([str(PROJECTS / name)]).findings if f.code == code]


def _tasks(finding: Finding) -> set[str]:
    """The task a finding names and the others its related places list."""
    listed = {match for related in finding.related for match in re.findall(r"^task `[\w.]*?(\w+)`", related.note)}
    return {finding.task, *listed}


def test_a_key_in_a_mapping_is_named_as_such_and_only_its_tasks_are_reported() -> None:
    findings = {(pathlib.Path(f.path).name, f.line): f for f in _findings("keys_on_paths", "IDM002")}
    splatted = findings[("service.py", 31)]
    assert "passes an idempotency key in a `**` mapping, which is `None` on some path" in splatted.message
    headers = findings[("service.py", 89)]
    assert "passes an idempotency key in `headers=`, which is `None` on some path" in headers.message
    keyword = findings[("gateway.py", 40)]
    assert "passes the idempotency key `idempotency_key`, which is `None` on some path" in keyword.message
    # Each shared wrapper is reported for the task whose key is None, not
    # for its twin that passes a string, clears the name only after the
    # call, or passes a stored key the analysis cannot read.
    assert {place: _tasks(f) for place, f in findings.items() if place[0] == "gateway.py"} == {
        ("gateway.py", 17): {"charge_order"},
        ("gateway.py", 31): {"transfer_order"},
        ("gateway.py", 40): {"unsettle_order"},
    }


def test_only_the_tasks_whose_own_with_holds_the_lock_too_briefly_are_named() -> None:
    assert sorted(task for f in _findings("lock_context_managers", "IDM006") for task in _tasks(f)) == [
        "rebuild", "render_receipt", "run_job"
    ]


def test_the_lock_around_a_send_is_named_where_it_is_taken() -> None:
    by_task = {f.task: f for f in _findings("locks_around_sends", "IDM013")}
    assert sorted(by_task) == [
        "send_all_digests", "send_all_summaries", "send_digest", "send_reminder", "send_summary"
    ]
    digest = by_task["send_digest"]
    assert "under a lock (`r.set()`) that is released after it" in digest.message
    assert (pathlib.Path(digest.related[0].path).name, digest.related[0].line, digest.related[0].note) == (
        "locks.py", 9, "the lock is taken here"
    )
    enqueue = by_task["send_all_summaries"]
    assert "which sends the email with no check of its own, under a lock (`r.lock()`)" in enqueue.message


def test_what_runs_a_lost_task_again_is_listed_with_the_task(run_cli: RunCli) -> None:
    status, out, err = run_cli("tasks", "--format", "json", str(PROJECTS / "self_healing_tasks"))
    assert (status, err) == (0, "")
    again = {task["name"].rpartition(".")[2]: task["runs_again"] for task in json.loads(out)}
    settings = str(PROJECTS / "self_healing_tasks" / "jobs" / "settings.py")
    beat = str(PROJECTS / "self_healing_tasks" / "jobs" / "beat.py")
    assert again["weekly_report"] == f"scheduled in {settings}"
    assert again["purge_unscanned"] == f"scheduled in {beat}"  # through ``SCHEDULE |= NIGHTLY_ONLY``
    assert again["hourly_totals"] == "scheduled by its decorator"
    assert again["recount"] == f"scheduled in {PROJECTS / 'self_healing_tasks' / 'jobs' / 'directives.py'}"
    assert again["process_cancel"] == (
        f"swept by `jobs.events.resweep` (the rows with `status` Event.PENDING, scheduled in {beat}),"
        " which enqueues it again"
    )
    assert again["sync_file"] == (
        f"swept by `jobs.files.reconcile` (the rows with `synced` False, scheduled in {beat}),"
        " which does the work and sets `synced` itself"
    )
    assert again["render_thumbnail"] == (
        "swept by `jobs.files.render_missing_thumbnails` (the rows with `rendered_at` None,"
        f" scheduled in {settings}), which does the work and sets `rendered_at` itself"
    )
    assert again["refund_swept"].endswith("which enqueues it again")
    assert [name for name, how in sorted(again.items()) if how is None] == [
        "adhoc_report", "archive_event", "audit_event", "charge_invoice", "confirm_order", "convert_rates",
        "hourly_without_a_beat", "notify_partner", "pack_order", "remind_pending", "scan_upload", "send_invoice",
        "ship_order", "sync_account",
    ]
    assert again["close_pending"].endswith("which enqueues it again")  # a canvas over the pending rows
    assert again["expire_pending"].endswith("which enqueues it again")  # their ids collected first


def test_a_beat_entry_removed_in_another_file_renews_the_cached_finding(tmp_path: pathlib.Path) -> None:
    project = tmp_path / "self_healing_tasks"
    shutil.copytree(PROJECTS / "self_healing_tasks", project)
    cache_dir = str(tmp_path / DIRECTORY_NAME)

    def weekly_reported() -> bool:
        found = lint_paths([str(project)], cache=Cache(cache_dir, DEFAULT_SETTINGS)).findings
        return any(f.code == "IDM009" and f.message.find("`weekly_report`") >= 0 for f in found)

    assert not weekly_reported()
    settings = project / "jobs" / "settings.py"
    text = settings.read_text()
    settings.write_text(text.replace('"task": "reports.weekly"', '"task": "reports.monthly"'))
    assert weekly_reported()
    settings.write_text(text)
    assert not weekly_reported()


def test_a_name_nothing_registers_stays_unresolved(run_cli: RunCli) -> None:
    status, out, err = run_cli("tasks", "--format", "json", str(PROJECTS / "named_registrations"))
    assert (status, err) == (0, "")
    by_task = {task["name"].rpartition(".")[2]: task for task in json.loads(out)}
    assert [site["call"] for site in by_task["mail_unregistered"]["unresolved"]] == [
        "request.find_service(...)", 'request.find_service(name="nothing.here").send(...)'
    ]
    assert by_task["notify_user"]["calls"]["followed"] == 1
