"""Fuzzing: on any valid Python, ``lint_source`` never raises and never lies
about where a finding is.

Two sources of programs: hypothesmith's grammar- and libcst-based generators
(any valid Python, which rarely contains a task, so mostly the early exits and
the parser are exercised), and task modules assembled from the shapes the
rules look for (task decorators, locks, keyed and unkeyed side effects,
done-flags, retries, helpers) with generated expressions and statements in
every hole, so that the rules run on strange input.

The normal run is short and derandomized (the same examples every time);
``IDEMLINT_FUZZ_EXAMPLES=20000`` runs that many random examples per test.
"""

from __future__ import annotations

import io
import os
import textwrap
import warnings
from typing import List

import hypothesmith
import pytest
from hypothesis import HealthCheck, assume, find, given, settings
from hypothesis import strategies as st

from idemlint import lint_source
from idemlint.engine import LintResult
from idemlint.segments import Screen

# The sweep: about a minute of one core even derandomized (`make test-all`).
pytestmark = pytest.mark.slow

LONG_RUN = int(os.environ.get("IDEMLINT_FUZZ_EXAMPLES", "0"))
settings.register_profile(
    "idemlint-fuzz",
    max_examples=LONG_RUN or 50,
    deadline=None,
    derandomize=not LONG_RUN,  # CI sees the same examples every run
    database=None,  # never write .hypothesis/ into the checkout
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    print_blob=True,
)
FUZZ = settings.get_profile("idemlint-fuzz")


def grammar(start: str = "file_input") -> st.SearchStrategy[str]:
    """hypothesmith's programs from the grammar, the parser built when a test
    first draws one (a second each: not for every run that collects this
    module and deselects it, as `make test` does)."""
    return st.deferred(lambda: hypothesmith.from_grammar(start=start))


def compiles(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<fuzz>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def python_lines(source: str) -> int:
    """Lines as Python counts them (not ``str.splitlines``, which also breaks
    on form feeds and other separators)."""
    return max(1, len(io.StringIO(source, newline="").readlines()))


def assert_truthful(source: str, result: LintResult) -> None:
    lines = python_lines(source)
    for finding in result.findings:
        assert 1 <= finding.line <= lines, finding
        assert finding.column >= 1, finding
        assert (finding.end_line, finding.end_column) >= (finding.line, finding.column), finding
        assert finding.end_line <= lines, finding
    for problem in result.problems:
        assert problem.code != "IDM900", problem  # an internal error is a bug
        assert 1 <= problem.line <= lines, problem


def lint_twice(source: str) -> LintResult:
    first = lint_source(source, "fuzz.py")
    assert lint_source(source, "fuzz.py") == first  # deterministic
    return first


@FUZZ
@given(source=st.one_of(grammar(), hypothesmith.from_node()))
def test_any_valid_python_is_linted_without_raising(source: str) -> None:
    result = lint_twice(source)
    assert_truthful(source, result)


# --- task modules with generated holes ------------------------------------

HEADER = """\
import time
import uuid

import dramatiq
import redis
import requests
import stripe
from celery import Celery, shared_task
from django.core.cache import cache
from django.core.mail import send_mail
from django.db import transaction

app = Celery()
r = redis.Redis()
"""

DECORATORS = [
    ("@shared_task", False),
    ("@shared_task(acks_late=True, time_limit=300)", False),
    ("@app.task(bind=True)", True),
    ("@app.task(bind=True, autoretry_for=(Exception,), max_retries=5)", True),
    ("@dramatiq.actor", False),
    ("@dramatiq.actor(max_retries=3, time_limit=60000)", False),
]

# Statements with holes ({e}: an expression) that the rules look at.
SNIPPETS = [
    "requests.post(url, json={{'order': {e}}})",
    "requests.post(url, json={{'order': order_id}}, headers={{'Idempotency-Key': {e}}})",
    "stripe.Charge.create(amount={e}, currency='eur')",
    "stripe.PaymentIntent.create(amount=100, idempotency_key={e})",
    "send_mail('Receipt', {e}, 'shop@example.com', [email])",
    "r.set({e}, '1', nx=True, ex=30)",
    "r.set(f'lock:{{order_id}}', '1', nx=True)",
    "r.delete({e})",
    "cache.add({e}, 1, timeout=60)",
    "cache.set(f'done:{{order_id}}', True)",
    "key = {e}",
    "idempotency_key = str(uuid.uuid4()) + str({e})",
    "order.status = 'paid'",
    "order.save()",
    "Order.objects.create(number={e})",
    "helper({e})",
    "x = {e}",
    "{e}",
]
BLOCKS = [
    "if {e}:",
    "if cache.get(f'done:{{order_id}}'):",
    "if not r.set({e}, 1, nx=True, ex=10):",
    "with r.lock({e}, timeout=5):",
    "with r.lock('lock:order'):",
    "with transaction.atomic():",
    "for item in {e}:",
    "while {e}:",
    "try:",
]
BOUND_ONLY = ["raise self.retry(args=({e},), countdown=5)", "self.apply_async(args=[{e}])"]

expressions = st.one_of(
    st.sampled_from(["order_id", "url", "uuid.uuid4()", "time.time()", "f'key:{order_id}'", "None", "1e309"]),
    grammar(start="eval_input").map(str.strip).filter(bool),
)
generated_statements = grammar(start="file_input").filter(lambda s: s.strip() != "")


def fill(template: str, draw: st.DrawFn) -> str:
    while "{e}" in template:
        template = template.replace("{e}", f"({draw(expressions)})", 1)
    return template.replace("{{", "{").replace("}}", "}")


@st.composite
def statements(draw: st.DrawFn, depth: int, bound: bool) -> List[str]:
    """A block of statements, each one line or a nested block."""
    body: List[str] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["snippet", "snippet", "block", "generated"] if depth < 2 else ["snippet"]))
        if kind == "block":
            header = fill(draw(st.sampled_from(BLOCKS)), draw)
            inner = textwrap.indent("\n".join(draw(statements(depth + 1, bound))), "    ")
            text = f"{header}\n{inner}"
            if header == "try:":
                text += "\nexcept Exception:\n    raise"
            body.append(text)
        elif kind == "generated":
            body.append(draw(generated_statements).rstrip("\n"))
        else:
            body.append(fill(draw(st.sampled_from(SNIPPETS + (BOUND_ONLY if bound else []))), draw))
    return body


@st.composite
def task_modules(draw: st.DrawFn) -> str:
    decorator, bound = draw(st.sampled_from(DECORATORS))
    parameters = "self, order_id, url, email, order" if bound else "order_id, url, email, order"
    helper = textwrap.indent("\n".join(draw(statements(1, False))), "    ")
    body = textwrap.indent("\n".join(draw(statements(0, bound))), "    ")
    source = (
        f"{HEADER}\n\ndef helper(order_id):\n{helper}\n\n\n"
        f"{decorator}\ndef process({parameters}):\n{body}\n"
    )
    assume(compiles(source))
    return source


@FUZZ
@given(source=task_modules())
def test_generated_task_modules_are_linted_without_raising(source: str) -> None:
    result = lint_twice(source)
    assert result.problems == ()
    assert_truthful(source, result)


@FUZZ
@given(source=task_modules())
def test_parsing_definitions_when_needed_finds_what_parsing_everything_finds(source: str) -> None:
    deferred = lint_source(source, "fuzz.py")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Screen, "deferred", lambda self: {})
        whole = lint_source(source, "fuzz.py")
    assert deferred == whole


@pytest.mark.parametrize("code", ["IDM002", "IDM004", "IDM013"])
def test_the_task_strategy_reaches_the_rules(code: str) -> None:
    """Guard against a strategy that silently stopped producing findings."""
    found = find(
        task_modules(),
        lambda source: code in {f.code for f in lint_source(source, "fuzz.py").findings},
        settings=settings(FUZZ, max_examples=500),
    )
    assert code in {f.code for f in lint_source(found, "fuzz.py").findings}
