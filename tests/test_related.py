"""Every task, every place: a finding in a helper that tasks of several
modules reach is one finding, naming every task, with each task's own call
and the hops between as related places, in every output format, through
the cache and in ``--diff``.

The project (``tests/projects/shared_poster``): ``orders.tasks.export_order``
and ``invoices.tasks.export_invoice`` both reach ``partners.client._send``
(through ``push``), whose ``requests.post`` has no idempotency key.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
from typing import Dict, List, Tuple

import pytest
from conftest import RunCli

from idemlint import engine, lint_paths
from idemlint.cache import DIRECTORY_NAME, Cache
from idemlint.findings import Finding, Related, merged, reach_suffix
from idemlint.settings import DEFAULT_SETTINGS

PROJECT = pathlib.Path(__file__).parent / "projects" / "shared_poster"
TASKS = ["invoices.tasks.export_invoice", "orders.tasks.export_order"]
RELATED = [
    ("invoices/tasks.py", 8, 5, "task `invoices.tasks.export_invoice` calls `client.push()`"),
    ("orders/tasks.py", 8, 5, "task `orders.tasks.export_order` calls `push()`"),
    ("orders/tasks.py", 9, 5, "task `orders.tasks.export_order` calls `push()`"),
    ("partners/client.py", 6, 12, "`push` calls `_send()`"),
]
SUFFIX = " (called from tasks `invoices.tasks.export_invoice` and `orders.tasks.export_order`)"


@pytest.fixture
def project(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    monkeypatch.chdir(root)
    return root


def _related(places: List[Dict[str, object]]) -> List[Tuple[object, ...]]:
    return [(str(p["path"]).lstrip("./"), p["line"], p["column"], p["note"]) for p in places]


def test_text_names_both_tasks_once(project: pathlib.Path, run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", ".")
    assert (status, err) == (1, "")
    assert out == (
        "./partners/client.py:10:12: IDM002 `requests.post()` in `_send` is called without an "
        "idempotency key; a redelivered task sends the request again and the server applies it "
        f"twice{SUFFIX}\n"
    )


def test_json_lists_the_tasks_and_the_related_places(project: pathlib.Path, run_cli: RunCli) -> None:
    status, out, _ = run_cli("check", "--no-cache", "--format", "json", ".")
    assert status == 1
    [finding] = json.loads(out)
    assert (finding["path"], finding["line"], finding["code"]) == ("./partners/client.py", 10, "IDM002")
    assert finding["tasks"] == TASKS
    # The credit note reaches only the keyed helper: no task of it, no place of it.
    assert _related(finding["related"]) == RELATED
    assert finding["message"].endswith(SUFFIX)


def test_sarif_carries_related_locations(project: pathlib.Path, run_cli: RunCli) -> None:
    status, out, _ = run_cli("check", "--no-cache", "--format", "sarif", ".")
    assert status == 1
    [result] = json.loads(out)["runs"][0]["results"]
    places = [
        (
            location["physicalLocation"]["artifactLocation"]["uri"],
            location["physicalLocation"]["region"]["startLine"],
            location["physicalLocation"]["region"]["startColumn"],
            location["message"]["text"],
        )
        for location in result["relatedLocations"]
    ]
    assert places == RELATED
    assert [location["id"] for location in result["relatedLocations"]] == [0, 1, 2, 3]


def test_review_lists_the_tasks_and_the_related_places(project: pathlib.Path, run_cli: RunCli) -> None:
    status, out, _ = run_cli("check", "--no-cache", "--format", "review", ".")
    assert status == 1
    header = out.splitlines()[0]
    assert header == (
        "./partners/client.py:10:12: IDM002 [missing-idempotency-key] in tasks "
        "`invoices.tasks.export_invoice`, `orders.tasks.export_order`"
    )
    listed = out.split("  Related:\n")[1].split("\n\n")[0].splitlines()
    assert listed == [f"    ./{path}:{line}:{column}  {note}" for path, line, column, note in RELATED]


def test_every_other_format_stays_valid(project: pathlib.Path, run_cli: RunCli) -> None:
    for name in ("github", "gitlab", "rdjson"):
        status, out, _ = run_cli("check", "--no-cache", "--format", name, ".")
        assert status == 1
        assert "export_invoice" in out and "export_order" in out
        if name != "github":
            json.loads(out)


def test_a_task_in_the_body_is_named_without_a_route(tmp_path: pathlib.Path, run_cli: RunCli) -> None:
    (tmp_path / "tasks.py").write_text(
        "import requests\nfrom celery import shared_task\n\n@shared_task\n"
        "def notify(order_id):\n    requests.post('https://partner.example', json={})\n"
    )
    status, out, _ = run_cli("check", "--no-cache", "--format", "json", str(tmp_path / "tasks.py"))
    [finding] = json.loads(out)
    assert (finding["tasks"], finding["related"]) == (["tasks.notify"], [])
    assert "called from" not in finding["message"] and "in task `notify`" in finding["message"]


def test_the_message_counts_the_tasks_it_does_not_name() -> None:
    assert reach_suffix([]) == ""
    assert reach_suffix(["a"]) == " (called from task `a`)"
    assert reach_suffix(["a", "b", "c", "d", "e"]) == " (called from tasks `a`, `b` and 3 more)"


def _finding(task: str, related: Tuple[Related, ...]) -> Finding:
    return Finding(
        "helpers.py", 3, 5, "IDM002", 3, 20, "missing-idempotency-key",
        "`requests.post()` in `send` is unkeyed" + reach_suffix([task]), "why", "fix",
        task.rpartition(".")[2], (task,), (task,), related,
    )


def test_merging_keeps_the_first_tasks_message_and_unites_the_rest() -> None:
    hop = Related("helpers.py", 9, 5, "`push` calls `send()`")
    one = _finding("b.tasks.two", (Related("b/tasks.py", 4, 5, "task `b.tasks.two` calls"), hop))
    other = _finding("a.tasks.one", (Related("a/tasks.py", 4, 5, "task `a.tasks.one` calls"), hop))
    for order in ([one, other], [other, one]):
        [result] = merged(order)
        assert result.tasks == ("a.tasks.one", "b.tasks.two") and result.task == "one"
        assert result.message == (
            "`requests.post()` in `send` is unkeyed (called from tasks `a.tasks.one` and `b.tasks.two`)"
        )
        assert len(result.related) == 3 and result.related == tuple(sorted(result.related))
    assert merged([one]) == [one]


def git(repo: pathlib.Path, *arguments: str) -> str:
    completed = subprocess.run(
        ["git", "-c", "user.name=idemlint tests", "-c", "user.email=tests@idemlint.invalid",
         "-c", "commit.gpgsign=false", *arguments],
        cwd=repo, check=True, capture_output=True, text=True,
    )
    return completed.stdout


def test_diff_shows_the_helpers_finding_when_a_new_task_calls_it(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    """A pull request that adds ``export_invoice`` changes only
    ``invoices/tasks.py``: the finding is on ``partners/client.py``, which
    the change does not touch, yet the new task's call is a related place."""
    invoices = project / "invoices" / "tasks.py"
    with_task = invoices.read_text()
    new_task = "@shared_task\ndef export_invoice(invoice_id):\n    client.push(invoice_id)\n\n\n"
    assert new_task in with_task
    invoices.write_text(with_task.replace(new_task, ""))
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "before the new task")
    assert run_cli("check", "--no-cache", "--diff", "HEAD", ".") == (0, "", "")
    invoices.write_text(with_task)
    status, out, _ = run_cli("check", "--no-cache", "--diff", "HEAD", ".")
    assert status == 1
    assert out.startswith("./partners/client.py:10:12: IDM002 ") and out.count("\n") == 1
    assert out.endswith(f"{SUFFIX}\n")


def test_diff_of_an_unrelated_line_in_a_callers_file_shows_nothing(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "all")
    invoices = project / "invoices" / "tasks.py"
    text = invoices.read_text()
    invoices.write_text(text.replace("push_keyed(note_id)", "push_keyed(note_id)  # v2"))
    assert run_cli("check", "--no-cache", "--diff", "HEAD", ".") == (0, "", "")


def test_a_warm_run_after_one_caller_changed_merges_as_a_cold_one(
    project: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each task file's result is cached on its own; the merge happens
    after, so a run that analyses one file again and takes the other from
    the cache names the same tasks and places as a run without a cache."""
    cache_dir = str(project / DIRECTORY_NAME)
    cold = lint_paths(["."], jobs=1, cache=Cache(cache_dir, DEFAULT_SETTINGS))
    assert [f.tasks for f in cold.findings] == [tuple(TASKS)]
    (project / "refunds").mkdir()
    (project / "refunds" / "__init__.py").write_text("")
    (project / "refunds" / "tasks.py").write_text(
        "from celery import shared_task\n\nfrom partners.client import push\n\n\n"
        "@shared_task\ndef export_refund(refund_id):\n    push(refund_id)\n"
    )
    invoices = project / "invoices" / "tasks.py"
    text = invoices.read_text()
    invoices.write_text(text.replace("client.push(invoice_id)", "client.push_keyed(invoice_id)"))
    analysed: List[int] = []
    analyse = engine._analyse_chunks

    def counting(chunks: List[List[Tuple[str, bytes]]], *rest: object) -> object:
        analysed.extend(len(chunk) for chunk in chunks)
        return analyse(chunks, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_analyse_chunks", counting)
    warm = lint_paths(["."], jobs=1, cache=Cache(cache_dir, DEFAULT_SETTINGS))
    assert sum(analysed) == 2  # the edited file and the new one; orders/tasks.py came from the cache
    assert warm.findings == lint_paths(["."], jobs=1).findings
    [finding] = warm.findings
    assert finding.tasks == ("orders.tasks.export_order", "refunds.tasks.export_refund")
    assert [place.path for place in finding.related] == [
        "./orders/tasks.py", "./orders/tasks.py", "./partners/client.py", "./refunds/tasks.py",
    ]


def test_project_mode_reports_a_helpers_finding_for_a_named_caller(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    """What the pre-commit hook runs when only a task file changed."""
    status, out, _ = run_cli("check", "--no-cache", "--project", ".", "invoices/tasks.py")
    assert status == 1
    assert out.startswith("./partners/client.py:10:12: IDM002 ") and out.endswith(f"{SUFFIX}\n")
    assert run_cli("check", "--no-cache", "--project", ".", "orders/__init__.py") == (0, "", "")


RACE = """\
from celery import shared_task
from django.core.mail import send_mail

from shop.models import Order


def deliver(order):
    send_mail("Receipt", "...", None, [order.email])


@shared_task
def receipt(order_id):
    order = Order.objects.get(pk=order_id)
    if order.receipt_sent:
        return
    deliver(order)
    Order.objects.filter(pk=order_id).update(receipt_sent=True)
"""


def test_a_race_names_the_check_it_slips_past(tmp_path: pathlib.Path) -> None:
    (tmp_path / "tasks.py").write_text(RACE)
    [race] = [f for f in lint_paths([str(tmp_path / "tasks.py")]).findings if f.code == "IDM007"]
    assert race.line == 8
    assert [(place.line, place.note) for place in race.related] == [
        (14, "the done-check two concurrent deliveries both pass"),
        (16, "task `tasks.receipt` calls `deliver()`"),
    ]


TWO_ROUTES = {
    "app/__init__.py": "",
    "app/notify.py": (
        "from django.core.mail import send_mail\n"
        "\n"
        "\n"
        "def notify(address):\n"
        "    send_mail('Hello', '', None, [address])\n"
    ),
    "app/tasks.py": (
        "from celery import shared_task\n"
        "\n"
        "from app.notify import notify\n"
        "\n"
        "\n"
        "@shared_task\n"
        "def sweep(expired, expiring):\n"
        "    for address in expired:\n"
        "        notify(address)\n"
        "    for address in expiring:\n"
        "        notify(address)\n"
    ),
}


def test_a_task_reaching_a_finding_twice_lists_both_of_its_calls(tmp_path: pathlib.Path) -> None:
    for name, text in TWO_ROUTES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (finding,) = lint_paths([str(tmp_path)]).findings
    assert (finding.code, finding.line, finding.tasks) == ("IDM013", 5, ("app.tasks.sweep",))
    assert [(place.line, place.note) for place in finding.related] == [
        (9, "task `app.tasks.sweep` calls `notify()`"),
        (11, "task `app.tasks.sweep` calls `notify()`"),
    ]
