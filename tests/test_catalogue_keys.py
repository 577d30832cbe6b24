"""A catalogue entry's own key parameters (``KeyableEffect.key_names``).

PagerDuty's ``dedup_key`` or PostHog's ``uuid`` is a key only for the API
that defines it: given to that call it satisfies IDM002 and, built from a
random value, is IDM001; the same word elsewhere is nothing.
"""

from __future__ import annotations

from typing import List, Tuple

import pytest

from idemlint import catalog, lint_source
from idemlint.settings import Settings

ALERTS = catalog.KeyableEffect(
    "acme_alerts.*().trigger", "Acme alert", "pages the on-call engineer twice", key_names=("incident_key",)
)
SETTINGS = Settings(keyable_effects=(*catalog.KEYABLE_EFFECTS, ALERTS))
HEAD = "import uuid\nimport requests\nimport acme_alerts\nfrom celery import shared_task\n\n\n@shared_task\ndef alert(order_id):\n"


def codes(body: str) -> List[Tuple[int, str]]:
    result = lint_source(HEAD + body, "tasks.py", SETTINGS)
    return [(finding.line, finding.code) for finding in result.findings]


@pytest.mark.parametrize(
    "body",
    [
        "    acme_alerts.Client().trigger('down', incident_key=f'order-{order_id}')\n",
        "    acme_alerts.Client().trigger('down', incidentKey=f'order-{order_id}')\n",
        "    acme_alerts.Client().trigger({'summary': 'down', 'incident_key': f'order-{order_id}'})\n",
        "    acme_alerts.Client().trigger('down', idempotency_key=f'order-{order_id}')\n",
    ],
    ids=["keyword", "camel-case-keyword", "entry-of-a-positional-dict", "accepted-spelling"],
)
def test_the_entry_s_own_key_satisfies_idm002(body: str) -> None:
    assert codes(body) == []


def test_without_its_key_the_call_is_idm002() -> None:
    assert codes("    acme_alerts.Client().trigger('down', summary='x')\n") == [(9, "IDM002")]


def test_a_random_value_for_the_entry_s_own_key_is_idm001() -> None:
    assert codes("    acme_alerts.Client().trigger('down', incident_key=str(uuid.uuid4()))\n") == [(9, "IDM001")]


def test_the_word_is_no_key_for_another_api() -> None:
    body = "    requests.post('https://partner.example/hook', json={'incident_key': f'order-{order_id}'})\n"
    assert codes(body) == [(9, "IDM002")]


def test_a_random_value_under_the_word_elsewhere_is_no_idm001() -> None:
    body = "    requests.post('https://partner.example/hook', headers={'incident_key': str(uuid.uuid4())})\n"
    assert codes(body) == [(9, "IDM002")]
