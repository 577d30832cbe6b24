"""Enqueueing as one concept (idemlint.semantic.enqueue): every way a task
hands another project task to Celery links to what that task does.

tests/projects/enqueue_links/ runs through the CLI with ``# expect:`` on
every finding (``send_task`` by dotted path, by registered name spelled
five ways, ``signature``, canvases, a signature kept in a local, the
project's wrappers) and safe twins beside them.  The tests below check
that the answer does not depend on file order or jobs, that a cached
caller follows an edit of the name a task is registered under, and that
``idemlint tasks`` counts those calls as enqueues.
"""

from __future__ import annotations

import json
import pathlib

from conftest import RunCli
from expectations import assert_independent_of_order_and_jobs, expectations, reported
from test_subtasks import codes, write

from idemlint import lint_paths
from idemlint.cache import DIRECTORY_NAME, Cache
from idemlint.settings import DEFAULT_SETTINGS

PROJECT = pathlib.Path(__file__).parent / "projects" / "enqueue_links"


def test_each_way_of_enqueueing_is_linked_to_the_task_it_runs(run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", str(PROJECT))
    assert (status, err) == (1, "")
    assert reported(out) == expectations(PROJECT)


def test_a_canvas_names_the_task_that_sends_not_the_one_that_reads() -> None:
    findings = lint_paths([str(PROJECT)]).findings
    chained = next(f for f in findings if f.task == "in_a_chain")
    assert "enqueues task `shop.mail.send_notice`" in chained.message
    assert [(pathlib.Path(p.path).name, p.line) for p in chained.related] == [("mail.py", 18)]


def test_a_wrapper_walked_for_one_name_is_not_reused_for_another() -> None:
    """The reader's name reaches the wrapper first; the mailer's finding
    there names only the task that sends the mailer's name."""
    findings = lint_paths([str(PROJECT)]).findings
    (wrapped,) = [f for f in findings if pathlib.Path(f.path).name == "queueing.py" and f.line == 11]
    assert wrapped.tasks == ("shop.tasks.by_name_through_a_wrapper",)


def test_the_answer_does_not_depend_on_the_order_of_the_files_nor_on_jobs(tmp_path: pathlib.Path) -> None:
    assert_independent_of_order_and_jobs(PROJECT, tmp_path)


NAMED = {
    "shop/__init__.py": "",
    "shop/names.py": 'ALERT = "mail.alert"\n',
    "shop/mail.py": """
        from celery import shared_task
        from django.core.mail import send_mail
        from shop.names import ALERT

        @shared_task(name=ALERT)
        def send_alert(address):
            send_mail("Alert", "", None, [address])
    """,
    "shop/tasks.py": """
        from celery import current_app, shared_task

        @shared_task
        def alert(address):
            current_app.send_task("mail.alert", args=[address])
    """,
}
RENAMED = """
    from celery import shared_task
    from django.core.mail import send_mail

    @shared_task(name="mail.renamed")
    def send_alert(address):
        send_mail("Alert", "", None, [address])
"""


def test_a_cached_sender_follows_an_edit_of_the_name_a_task_is_registered_under(tmp_path: pathlib.Path) -> None:
    write(tmp_path, NAMED)
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    project = [str(tmp_path / "shop")]
    both = [("mail.py", 8, "IDM013"), ("tasks.py", 6, "IDM013")]
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == both
    write(tmp_path, {"shop/mail.py": RENAMED})
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == [("mail.py", 7, "IDM013")]
    write(tmp_path, NAMED)
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == both


def test_a_task_that_starts_to_be_registered_under_the_name_renews_the_sender(tmp_path: pathlib.Path) -> None:
    files = dict(NAMED)
    files["shop/mail.py"] = RENAMED
    write(tmp_path, files)
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    project = [str(tmp_path / "shop")]
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == [("mail.py", 7, "IDM013")]
    write(tmp_path, {"shop/late.py": NAMED["shop/mail.py"]})
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == [
        ("late.py", 8, "IDM013"), ("mail.py", 7, "IDM013"), ("tasks.py", 6, "IDM013"),
    ]


def test_tasks_counts_a_send_by_name_as_an_enqueue_and_an_unknown_name_as_unresolved(run_cli: RunCli) -> None:
    status, out, err = run_cli("tasks", "--format", "json", str(PROJECT))
    assert (status, err) == (0, "")
    rows = {row["name"].rpartition(".")[2]: row for row in json.loads(out)}
    assert rows["by_class_constant"]["calls"]["enqueued"] == 1
    # A name no project task is registered under goes to another service's worker.
    assert rows["sends_a_name_nobody_registered"]["calls"] == {
        "followed": 0, "enqueued": 0, "library": 1, "cut": 0, "unresolved": 0,
    }
    given = rows["sends_a_name_it_was_given"]
    assert (given["calls"]["enqueued"], given["calls"]["unresolved"]) == (0, 1)
    assert [site["call"] for site in given["unresolved"]] == ["app.send_task(...)"]
    # Building a signature runs Celery's code; running it is the enqueue.
    chained = rows["in_a_chain"]
    assert (chained["calls"], chained["unresolved"]) == (
        {"followed": 0, "enqueued": 1, "library": 3, "cut": 0, "unresolved": 0}, [],
    )
