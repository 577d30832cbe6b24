"""Enqueued sub-tasks (idemlint.subtasks): enqueueing a project task is,
at the enqueue, the side effects that task makes with no check of its own.

tests/projects/subtasks/ runs through the CLI with ``# expect:`` on every
finding and safe twins beside them; the tests below check what a finding
at an enqueue carries, that a task run inline where the walk stops
counts the same way, that the answer does not depend on which file the
enqueued task's trace was first built for, and that the cache follows an
edit of the enqueued task.
"""

from __future__ import annotations

import pathlib
import textwrap
from typing import Dict, List, Tuple

import pytest

from conftest import RunCli
from expectations import assert_independent_of_order_and_jobs, expectations, reported

from idemlint.semantic import trace
from idemlint import lint_paths, lint_source
from idemlint.cache import DIRECTORY_NAME, Cache
from idemlint.settings import DEFAULT_SETTINGS

PROJECT = pathlib.Path(__file__).parent / "projects" / "subtasks"


def write(root: pathlib.Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))


def test_each_enqueue_form_is_reported_at_the_enqueue_through_the_cli(run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", str(PROJECT))
    assert (status, err) == (1, "")
    assert reported(out) == expectations(PROJECT)


def test_a_finding_at_an_enqueue_names_the_sub_task_and_where_it_sends() -> None:
    findings = lint_paths([str(PROJECT)]).findings
    invite = next(f for f in findings if f.task == "invite_users")
    assert invite.code == "IDM013"
    assert "enqueues task `mailer.mail.send_email`" in invite.message
    places = [(pathlib.Path(p.path).name, p.line, p.note) for p in invite.related]
    assert places == [("mail.py", 13, "task `mailer.mail.send_email` sends the email here")]
    # The mailer keeps its own finding, naming only itself: enqueueing is not calling.
    own = next(f for f in findings if pathlib.Path(f.path).name == "mail.py" and f.line == 13)
    assert own.tasks == ("mailer.mail.send_email",)
    race = next(f for f in findings if f.task == "welcome")
    notes = sorted(p.note for p in race.related)
    assert notes == [
        "task `mailer.mail.send_email` sends the email here",
        "the done-check two concurrent deliveries both pass",
    ]


def test_the_answer_does_not_depend_on_the_order_of_the_files_nor_on_jobs(tmp_path: pathlib.Path) -> None:
    assert_independent_of_order_and_jobs(PROJECT, tmp_path)


RUN_INLINE = {
    "app/__init__.py": "",
    "app/senders.py": """
        from celery import shared_task
        from django.core.mail import send_mail

        @shared_task
        def send_notice(address):
            send_mail("Notice", "Something happened", None, [address])
    """,
    "app/chain.py": """
        from app.hops import second

        def first(address):
            second.relay(address)
    """,
    "app/hops/__init__.py": "",
    "app/hops/second.py": """
        from app.hops import third

        def relay(address):
            third.relay(address)
    """,
    "app/hops/third.py": """
        from app.hops import fourth

        def relay(address):
            fourth.relay(address)
    """,
    "app/hops/fourth.py": """
        from app.senders import send_notice

        def relay(address):
            send_notice.run(address)
    """,
    "app/tasks.py": """
        from celery import shared_task
        from app.chain import first

        @shared_task
        def notify(address):
            first(address)
    """,
}


def test_a_task_run_inline_is_followed_or_counts_as_its_effects(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, RUN_INLINE)

    def found() -> List[Tuple[str, int, str, Tuple[str, ...]]]:
        return [
            (pathlib.Path(f.path).name, f.line, f.code, f.tasks)
            for f in lint_paths([str(tmp_path / "app")]).findings
        ]

    # notify reaches send_notice.run() five calls deep and follows it: the
    # e-mail is send_notice's and notify's.
    assert found() == [("senders.py", 7, "IDM013", ("app.senders.send_notice", "app.tasks.notify"))]
    # With a budget that leaves the run too small a share to walk, the walk
    # stops at send_notice.run(): the run counts as what send_notice does.
    monkeypatch.setattr(trace, "MAX_EVENTS_PER_TASK", 128)
    assert found() == [
        ("fourth.py", 5, "IDM013", ("app.tasks.notify",)),
        ("senders.py", 7, "IDM013", ("app.senders.send_notice",)),
    ]


MAILER = {
    "shop/__init__.py": "",
    "shop/mail.py": """
        from celery import shared_task
        from django.core.mail import send_mail

        @shared_task
        def send_receipt(address):
            send_mail("Receipt", "Thanks", None, [address])
    """,
    "shop/tasks.py": """
        from celery import shared_task
        from shop.mail import send_receipt

        @shared_task
        def checkout(address):
            send_receipt.delay(address)
    """,
}

GUARDED_MAILER = """
    from celery import shared_task
    from django.core.cache import cache
    from django.core.mail import send_mail

    @shared_task
    def send_receipt(address):
        if not cache.add(f"receipt:{address}", 1, timeout=3600):
            return
        send_mail("Receipt", "Thanks", None, [address])
"""


def codes(paths: List[str], cache: Cache) -> List[Tuple[str, int, str]]:
    return [(pathlib.Path(f.path).name, f.line, f.code) for f in lint_paths(paths, jobs=1, cache=cache).findings]


def test_an_edit_of_the_enqueued_task_invalidates_the_cached_caller(tmp_path: pathlib.Path) -> None:
    write(tmp_path, MAILER)
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    tasks = [str(tmp_path / "shop" / "tasks.py")]
    project = [str(tmp_path / "shop")]
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == [
        ("mail.py", 7, "IDM013"), ("tasks.py", 7, "IDM013"),
    ]
    write(tmp_path, {"shop/mail.py": GUARDED_MAILER})
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == []
    assert codes(tasks, Cache(cache_dir, DEFAULT_SETTINGS)) == []


def chain(order: List[str]) -> str:
    """Five tasks, each enqueueing the next; the last sends."""
    bodies = {
        "ta": "    tb.delay(address)",
        "tb": "    tc.delay(address)",
        "tc": "    td.delay(address)",
        "td": "    te.delay(address)",
        "te": '    send_mail("Hi", "", None, [address])',
    }
    head = "from celery import shared_task\nfrom django.core.mail import send_mail\n"
    return head + "".join(f"\n\n@shared_task\ndef {name}(address):\n{bodies[name]}\n" for name in order)


def test_an_enqueue_any_number_of_tasks_deep_counts_whatever_the_order() -> None:
    forward = lint_source(chain(["ta", "tb", "tc", "td", "te"]), "tasks.py").findings
    backward = lint_source(chain(["te", "td", "tc", "tb", "ta"]), "tasks.py").findings
    named = lambda findings: sorted((f.task, f.code) for f in findings)  # noqa: E731
    assert named(forward) == named(backward) == [
        ("ta", "IDM013"), ("tb", "IDM013"), ("tc", "IDM013"), ("td", "IDM013"), ("te", "IDM013"),
    ]


CYCLE = """
from celery import shared_task
from django.core.mail import send_mail


@shared_task
def ping(address):
    send_mail("Ping", "", None, [address])
    pong.delay(address)


@shared_task
def pong(address):
    ping.delay(address)
"""


def test_a_task_reached_again_through_a_cycle_is_its_own_trace_s_to_report() -> None:
    found = sorted((f.task, f.line, f.code) for f in lint_source(CYCLE, "tasks.py").findings)
    # ping's send is its own finding; pong's enqueue of ping sends it; ping's
    # enqueue of pong is not ping's own send again.
    assert found == [("ping", 8, "IDM013"), ("pong", 14, "IDM013")]
