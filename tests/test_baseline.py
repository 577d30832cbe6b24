"""``--write-baseline`` and ``--baseline``: adopt idemlint on code that already has findings."""

from __future__ import annotations

import json
import os
import pathlib

import pytest
from conftest import RunCli

from idemlint.baseline import MAX_BYTES

TASK = """\
import requests
from celery import shared_task

@shared_task
def notify(order_id):
    requests.post('https://partner.example/orders', json={'id': order_id})
"""
SAME_CALL = "    requests.post('https://partner.example/orders', json={'id': order_id})\n"
NEW_BUG = "    requests.post('https://partner.example/audit', json={'id': order_id})\n"


@pytest.fixture
def project(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "tasks.py").write_text(TASK)
    return tmp_path


def test_write_baseline_records_and_exits_zero(project: pathlib.Path, run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--write-baseline", "idemlint-baseline.json", "src")
    assert (status, out) == (0, "")
    assert err == "idemlint: recorded 1 finding in idemlint-baseline.json\n"
    document = json.loads((project / "idemlint-baseline.json").read_text())
    assert document["version"] == 2
    [entry] = document["entries"]
    assert entry["path"] == "src/tasks.py"  # relative to the baseline's directory
    assert (entry["code"], entry["count"]) == ("IDM002", 1)
    assert "line" not in entry and "task" not in entry


def test_write_baseline_exits_2_when_a_file_could_not_be_analysed_unless_exit_zero(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    (project / "src" / "broken.py").write_text("from celery import shared_task\n\n@shared_task\ndef oops(:\n")
    status, _, err = run_cli("check", "--write-baseline", "baseline.json", "src")
    assert status == 2 and "E999" in err and "recorded 1 finding" in err
    status, _, err = run_cli("check", "--exit-zero", "--write-baseline", "baseline.json", "src")
    assert status == 0 and "E999" in err and "recorded 1 finding" in err


def test_baseline_hides_old_findings_across_line_moves_and_reports_new_ones(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    run_cli("check", "--write-baseline", "baseline.json", "src")
    tasks = project / "src" / "tasks.py"
    # Lines above moved it; whitespace inside the offending line is normalised away.
    tasks.write_text("# an unrelated comment\n\n" + TASK.replace("{'id': order_id}", "{'id':   order_id}"))
    assert run_cli("check", "--baseline", "baseline.json", "src") == (0, "", "")
    tasks.write_text("# an unrelated comment\n\n" + TASK + NEW_BUG)
    status, out, err = run_cli("check", "--baseline", "baseline.json", "src")
    assert (status, err) == (1, "")
    [line] = out.splitlines()
    assert line.startswith("src/tasks.py:9:5: IDM002 ")


def test_identical_findings_are_counted(project: pathlib.Path, run_cli: RunCli) -> None:
    tasks = project / "src" / "tasks.py"
    tasks.write_text(TASK + SAME_CALL)
    run_cli("check", "--write-baseline", "baseline.json", "src")
    assert json.loads((project / "baseline.json").read_text())["entries"][0]["count"] == 2
    tasks.write_text(TASK + SAME_CALL + SAME_CALL)
    status, out, _ = run_cli("check", "--baseline", "baseline.json", "src")
    assert status == 1 and len(out.splitlines()) == 1


def test_stale_entries_are_summarised_in_one_line(project: pathlib.Path, run_cli: RunCli) -> None:
    tasks = project / "src" / "tasks.py"
    tasks.write_text(TASK + NEW_BUG)
    run_cli("check", "--write-baseline", "baseline.json", "src")
    tasks.write_text(TASK.replace("json={'id': order_id})", "json={'id': order_id}, headers={'Idempotency-Key': f'notify-{order_id}'})"))
    status, out, err = run_cli("check", "--baseline", "baseline.json", "src")
    assert (status, out) == (0, "")
    assert err == "idemlint: 2 baseline entries no longer match; run --write-baseline to shrink it\n"


def test_rewriting_an_unchanged_baseline_is_byte_identical(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    (project / "src" / "more.py").write_text(TASK.replace("notify", "remind") + NEW_BUG)
    run_cli("check", "--write-baseline", "baseline.json", "src")
    first = (project / "baseline.json").read_bytes()
    run_cli("check", "--write-baseline", "baseline.json", "src", "--jobs", "2")
    assert (project / "baseline.json").read_bytes() == first
    entries = json.loads(first)["entries"]
    assert entries == sorted(entries, key=lambda e: (e["path"], e["code"], e["source_hash"]))


HELPER = """\
import requests

def notify(order_id):
    requests.post('https://partner.example/orders', json={'id': order_id})
"""
CALLER = """\
from celery import shared_task

from shop.helpers import notify

@shared_task
def {name}(order_id):
    notify(order_id)
"""


def test_a_new_task_reaching_a_baselined_helper_does_not_make_it_new(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    """The baseline records the place to fix, not who reaches it (README,
    "Adopting idemlint"): a task added, or renamed, keeps it hidden."""
    shop = project / "shop"
    shop.mkdir()
    (shop / "__init__.py").write_text("")
    (shop / "helpers.py").write_text(HELPER)
    (shop / "orders.py").write_text(CALLER.format(name="export_order"))
    run_cli("check", "--write-baseline", "baseline.json", "shop")
    (shop / "invoices.py").write_text(CALLER.format(name="a_first_task_by_name"))
    (shop / "orders.py").write_text(CALLER.format(name="renamed_export"))
    status, out, _ = run_cli("check", "--no-cache", "shop")
    assert status == 1 and "a_first_task_by_name" in out and "renamed_export" in out
    assert run_cli("check", "--no-cache", "--baseline", "baseline.json", "shop") == (0, "", "")


def test_a_version_1_baseline_is_read_with_its_tasks_ignored(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    run_cli("check", "--write-baseline", "baseline.json", "src")
    document = json.loads((project / "baseline.json").read_text())
    document["version"] = 1
    for entry in document["entries"]:
        entry["task"] = "a task that no longer reaches it"
    (project / "baseline.json").write_text(json.dumps(document))
    assert run_cli("check", "--baseline", "baseline.json", "src") == (0, "", "")


def test_baseline_paths_are_relative_to_the_baseline_file(
    project: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_cli("check", "--write-baseline", "baseline.json", "src")
    monkeypatch.chdir(project / "src")
    assert run_cli("check", "--baseline", "../baseline.json", "tasks.py") == (0, "", "")


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "does not exist"),
        ("{not json", "not valid JSON"),
        ('{"version": 99, "entries": []}', "not an idemlint baseline"),
        ('{"version": true, "entries": []}', "not an idemlint baseline"),
        ('{"version": 1, "entries": [{"path": 3}]}', "malformed entry"),
    ],
)
def test_a_missing_or_broken_baseline_is_one_line(
    project: pathlib.Path, run_cli: RunCli, content: "str | None", reason: str
) -> None:
    if content is not None:
        (project / "baseline.json").write_text(content)
    status, out, err = run_cli("check", "--baseline", "baseline.json", "src")
    assert (status, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and reason in err


def test_baseline_and_write_baseline_together_is_a_usage_error(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    status, _, err = run_cli("check", "--baseline", "a.json", "--write-baseline", "b.json", "src")
    assert status == 2 and "cannot be used together" in err


# A baseline can be committed in the checked repository: it must not be able
# to block the run or exhaust its memory.
posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and /dev")


@posix_only
@pytest.mark.parametrize("kind", ["link to /dev/zero", "fifo"])
def test_a_baseline_that_is_not_a_regular_file_is_one_line(
    project: pathlib.Path, run_cli: RunCli, alarm: None, kind: str
) -> None:
    baseline = project / "baseline.json"
    if kind == "fifo":
        os.mkfifo(baseline)  # no writer: a blocking open would wait forever
    else:
        baseline.symlink_to("/dev/zero")  # would never end
    status, out, err = run_cli("check", "--baseline", "baseline.json", "src")
    assert (status, out) == (2, "")
    assert err == "Error: baseline file baseline.json is not a regular file\n"


def test_a_baseline_above_the_size_limit_is_one_line(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    with (project / "baseline.json").open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)  # sparse: costs no disk
    status, out, err = run_cli("check", "--baseline", "baseline.json", "src")
    assert (status, out) == (2, "")
    assert err == "Error: baseline file baseline.json is larger than 64 MiB\n"


def test_a_deeply_nested_baseline_is_one_line(project: pathlib.Path, run_cli: RunCli) -> None:
    (project / "baseline.json").write_text("[" * 100_000)
    status, out, err = run_cli("check", "--baseline", "baseline.json", "src")
    assert (status, out) == (2, "")
    assert err == "Error: baseline file baseline.json is not valid JSON: nested too deeply\n"
