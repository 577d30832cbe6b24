"""Linting with some files' text held in memory (an editor's unsaved
buffers): those files are analysed from it, the rest of the project from
disk, and the cache never mixes the two."""

from __future__ import annotations

import os
import pathlib
import textwrap
from typing import Dict, List

import pytest

from idemlint import engine, lint_paths
from idemlint.cache import Cache
from idemlint.reading import Overlay, as_saved
from idemlint.settings import DEFAULT_SETTINGS

PROJECT = {
    "shop/__init__.py": "",
    "shop/billing.py": """
        import stripe

        def charge(order_id):
            stripe.PaymentIntent.create(amount=100, currency="eur")
        """,
    "shop/mail.py": """
        from celery import shared_task
        from django.core.mail import send_mail

        @shared_task
        def send_receipt(order_id):
            send_mail("Receipt", "Thanks", "shop@example.com", ["c@example.com"])
        """,
    "shop/tasks.py": """
        from celery import shared_task

        from shop import billing
        from shop.mail import send_receipt

        @shared_task
        def finish_order(order_id):
            billing.charge(order_id)
            send_receipt.delay(order_id)
        """,
}

# send_receipt claims its work first: its enqueue in tasks.py is no longer a finding.
GUARDED_MAIL = textwrap.dedent(
    """
    from celery import shared_task
    from django.core.cache import cache
    from django.core.mail import send_mail

    @shared_task
    def send_receipt(order_id):
        if not cache.add(f"receipt:{order_id}", 1, timeout=86400):
            return
        send_mail("Receipt", "Thanks", "shop@example.com", ["c@example.com"])
    """
)
KEYED_BILLING = textwrap.dedent(
    """
    import stripe

    def charge(order_id):
        stripe.PaymentIntent.create(amount=100, currency="eur", idempotency_key=f"charge-{order_id}")
    """
)


def make(root: pathlib.Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))


def found(result: engine.LintResult) -> List[str]:
    return sorted(f"{pathlib.Path(f.path).name}:{f.line}:{f.code}" for f in result.findings)


DISK = ["billing.py:5:IDM002", "mail.py:7:IDM013", "tasks.py:10:IDM013"]


def test_a_buffer_is_analysed_from_its_text_and_the_rest_from_disk(tmp_path: pathlib.Path) -> None:
    make(tmp_path, PROJECT)
    root = str(tmp_path)
    assert found(lint_paths([root])) == DISK
    mail = str(tmp_path / "shop" / "mail.py")
    # The helper task's buffer changes the finding in the task file that enqueues it.
    assert found(lint_paths([root], overlay={mail: GUARDED_MAIL})) == ["billing.py:5:IDM002"]
    billing = str(tmp_path / "shop" / "billing.py")
    assert found(lint_paths([root], overlay={billing: KEYED_BILLING})) == DISK[1:]
    # The disk is untouched.
    assert (tmp_path / "shop" / "mail.py").read_text() == textwrap.dedent(PROJECT["shop/mail.py"])


def test_project_mode_reports_the_named_buffers_and_what_depends_on_them(tmp_path: pathlib.Path) -> None:
    make(tmp_path, PROJECT)
    tasks = str(tmp_path / "shop" / "tasks.py")
    mail = str(tmp_path / "shop" / "mail.py")
    result = lint_paths([tasks], project=str(tmp_path), overlay={mail: GUARDED_MAIL})
    # billing's finding has the task's call as a related place: reported too.
    assert found(result) == ["billing.py:5:IDM002"]
    result = lint_paths([tasks], project=str(tmp_path), overlay={tasks: "x = 1\n"})
    assert found(result) == []


def test_a_new_file_not_saved_yet_is_checked_when_named(tmp_path: pathlib.Path) -> None:
    make(tmp_path, PROJECT)
    new = str(tmp_path / "shop" / "refunds.py")
    text = textwrap.dedent(
        """
        import stripe
        from celery import shared_task

        from shop import billing

        @shared_task
        def refund(order_id):
            billing.charge(order_id)
            stripe.Refund.create(payment_intent="pi_1")
        """
    )
    result = lint_paths([str(tmp_path), new], overlay={new: text})
    assert "refunds.py:10:IDM002" in found(result)
    charge = next(f for f in result.findings if f.path.endswith("billing.py"))
    assert any(place.path == new for place in charge.related)
    assert not result.problems
    # As a project too, and with no file of that name on disk afterwards.
    result = lint_paths([new], project=str(tmp_path), overlay={new: text})
    assert "refunds.py:10:IDM002" in found(result)
    assert not os.path.exists(new)


def test_a_broken_buffer_is_one_problem_and_the_rest_goes_on(tmp_path: pathlib.Path) -> None:
    make(tmp_path, PROJECT)
    tasks = str(tmp_path / "shop" / "tasks.py")
    broken = "from celery import shared_task\n\n@shared_task\ndef finish_order(order_id:\n    pass\n"
    result = lint_paths([str(tmp_path)], overlay={tasks: broken})
    assert [(pathlib.Path(p.path).name, p.code) for p in result.problems] == [("tasks.py", "E999")]
    assert found(result) == ["mail.py:7:IDM013"]


def test_the_cache_keys_a_buffer_by_its_own_text(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    make(project, PROJECT)
    root = str(project)
    mail = str(project / "shop" / "mail.py")
    cache_dir = str(tmp_path / "cache")

    def cached(**overlay: str) -> List[str]:
        return found(lint_paths([root], cache=Cache(cache_dir, DEFAULT_SETTINGS), overlay=overlay or None))

    assert cached() == DISK
    # The buffer is not served the disk file's entry, nor the disk the buffer's.
    assert cached(**{mail: GUARDED_MAIL}) == ["billing.py:5:IDM002"]
    assert cached() == DISK
    # Both are now stored: served from the cache, nothing analysed.
    monkeypatch.setattr(engine, "_analyse_chunks", None)
    assert cached(**{mail: GUARDED_MAIL}) == ["billing.py:5:IDM002"]
    assert cached() == DISK
    # Saved: the disk now holds the buffer's bytes, which the cache knows.
    (project / "shop" / "mail.py").write_text(GUARDED_MAIL)
    assert cached() == ["billing.py:5:IDM002"]


def test_a_buffer_matches_the_file_through_a_symbolic_link(tmp_path: pathlib.Path) -> None:
    make(tmp_path / "real", PROJECT)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    through_link = str(tmp_path / "link" / "shop" / "mail.py")
    assert found(lint_paths([str(tmp_path / "real")], overlay={through_link: GUARDED_MAIL})) == [
        "billing.py:5:IDM002"
    ]


def test_a_buffer_is_stored_as_its_coding_cookie_says() -> None:
    text = "# -*- coding: latin-1 -*-\nname = 'café'\n"
    assert as_saved(text) == text.encode("latin-1")
    assert as_saved("name = 'café'\n") == "name = 'café'\n".encode()
    # An unknown codec, a character the codec lacks, a lone surrogate: bytes
    # that decoding reports, never an exception here.
    assert as_saved("# coding: nonesuch\n") == b"# coding: nonesuch\n"
    assert as_saved("# coding: ascii\nx = 'é'\n") == "# coding: ascii\nx = 'é'\n".encode()
    assert as_saved("x = '\ud800'\n") == b"x = '\xed\xa0\x80'\n"
    overlay = Overlay({"a.py": text})
    assert overlay.get(os.path.abspath("a.py")) == text.encode("latin-1")
    assert overlay.get("b.py") is None


def test_a_buffer_in_another_encoding_gives_its_findings(tmp_path: pathlib.Path) -> None:
    make(tmp_path, PROJECT)
    mail = str(tmp_path / "shop" / "mail.py")
    latin = "# -*- coding: latin-1 -*-\n" + GUARDED_MAIL.replace("Thanks", "Merci, à bientôt")
    assert found(lint_paths([str(tmp_path)], overlay={mail: latin})) == ["billing.py:5:IDM002"]
    undecodable = "# coding: ascii\n" + PROJECT["shop/mail.py"].replace("Thanks", "Merci à")
    result = lint_paths([str(tmp_path)], overlay={mail: undecodable})
    assert [(pathlib.Path(p.path).name, p.code) for p in result.problems] == [("mail.py", "E902")]
