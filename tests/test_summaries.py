"""Helper summaries: walked once per run, replayed in each caller's context."""

from __future__ import annotations

import textwrap
from typing import Any, Dict, List

import pytest

from idemlint import lint_source
from idemlint.semantic.trace import TraceBuilder

SOURCE = textwrap.dedent(
    """\
    import uuid

    import stripe
    from celery import shared_task
    from django.core.mail import send_mail
    from django.db import transaction


    def _charge(order_id, key):
        stripe.Charge.create(amount=100, currency="eur", idempotency_key=key)


    def _notify(order_id):
        send_mail("Paid", "Thanks", None, ["a@example.com"])


    @shared_task
    def charge_with_stable_key(order_id):
        _charge(order_id, f"charge-{order_id}")
        _notify(order_id)


    @shared_task
    def charge_with_random_key(order_id):
        _charge(order_id, str(uuid.uuid4()))


    @shared_task
    def notify_inside_transaction(order_id):
        with transaction.atomic():
            _notify(order_id)
    """
)


def findings(source: str) -> List[tuple]:
    return sorted((f.line, f.code, f.task) for f in lint_source(source, "tasks.py").findings)


def test_each_call_binds_its_own_arguments() -> None:
    # The summary of _charge comes from the first task; the second task's
    # random key still reaches the charge through its own argument.
    assert (25, "IDM001", "charge_with_random_key") in findings(SOURCE)
    assert not [f for f in findings(SOURCE) if f[1] == "IDM001" and f[2] == "charge_with_stable_key"]


def test_a_replayed_helper_takes_the_callers_transaction() -> None:
    # _notify is walked outside a transaction first, replayed inside one.
    codes_on_send = {code for line, code, _ in findings(SOURCE) if line == 14}
    assert {"IDM010", "IDM013"} <= codes_on_send


def test_a_helper_is_walked_once_per_run(monkeypatch: pytest.MonkeyPatch) -> None:
    walked: List[str] = []
    original = TraceBuilder._function

    def counting(self: TraceBuilder, scope, path, call):  # type: ignore[no-untyped-def]
        walked.append(scope.function.name.value)
        return original(self, scope, path, call)

    monkeypatch.setattr(TraceBuilder, "_function", counting)
    lint_source(SOURCE, "tasks.py")
    assert walked.count("_notify") == 1
    assert walked.count("_charge") == 2  # a different argument resolution: walked again


def test_a_replayed_event_is_the_event_with_the_replay_fields_changed() -> None:
    """The replay's copy keeps every other field, whatever fields Event gains."""
    from dataclasses import fields, replace

    from idemlint.semantic.trace import Event, _replayed

    # Distinct objects stand for every value: the copy is checked field by field.
    values: Dict[str, Any] = {field.name: object() for field in fields(Event)}
    original = Event(**values)
    replay_fields = ("scope", "value_scope", "path", "seq", "transaction", "caught", "call_site")
    changes: Dict[str, Any] = {name: object() for name in replay_fields}
    replayed = _replayed(original, **changes)
    assert type(replayed) is Event
    assert vars(replayed) == vars(replace(original, **changes))
    assert vars(original) != vars(replayed)
