"""HTTP's own semantics.

PUT and DELETE are idempotent (RFC 9110, 9.2.2) unless a catalogue entry
says an API breaks that; a POST to a token or login exchange is read-like.
The single-file shapes are fixtures (IDM002_http_semantics.py); here: the
data path for an API that breaks PUT, and the exchange shapes as a table.
"""

from __future__ import annotations

import pytest

from idemlint import catalog, lint_source
from idemlint.settings import Settings

SOURCE = '''
import requests
from celery import shared_task

API = "https://counters.example.com"

@shared_task
def bump(counter_id):
    requests.put(f"{API}/v1/counters/{counter_id}/increment")
    requests.delete(f"{API}/v1/counters/{counter_id}/increment")
    requests.put(f"{API}/v1/labels/{counter_id}")
    requests.request("PUT", f"{API}/v1/counters/{counter_id}/increment")
'''


def test_an_entry_makes_a_put_of_the_api_that_breaks_it_an_effect() -> None:
    breaking = catalog.NonIdempotentHttpApi(
        "*/v1/counters/*/increment", ("PUT",), "counter API", "increments the counter twice"
    )
    settings = Settings(non_idempotent_http_apis=(breaking,))
    findings = lint_source(SOURCE, "tasks.py", settings).findings
    assert [(f.line, f.code) for f in findings] == [(9, "IDM002"), (12, "IDM002")]
    assert all("increments the counter twice" in f.message for f in findings)
    assert lint_source(SOURCE, "tasks.py").findings == ()


@pytest.mark.parametrize(
    ("url", "exchange"),
    [
        ("/oauth/token", True),
        ("https://login.example.com/{}/oauth2/v2.0/token?x=1#f", True),
        ("{}/auth/token/", True),
        ("https://oauth2.example.com/token", True),
        ("token", True),
        ("/api/token/refresh/", True),
        ("https://github.example.com/login/oauth/access_token", True),
        ("/login", True),
        ("{}/api/v1/auth/login", True),
        ("/users/sign_in", True),
        ("/auth/Sign-In", True),
        ("/tokens", False),
        ("/tokens/revoke-all", False),
        ("/token/{}/revoke", False),
        ("/login-attempts", False),
        ("/access_token", False),
        ("/refresh", False),
        ("https://token.example.com/charges", False),
        ("https://auth.example.com", False),
        ("https://login.example.com/", False),
        ("{}", False),
        ("/orders?next=/login", False),
    ],
)
def test_token_exchanges_are_told_by_the_last_path_segments(url: str, exchange: bool) -> None:
    assert catalog.is_token_exchange(url) is exchange
