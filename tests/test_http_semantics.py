"""HTTP's own semantics and the ids a receiver deduplicates on.

PUT and DELETE are idempotent (RFC 9110, 9.2.2) unless a catalogue entry
says an API breaks that; a POST to a token or login exchange is read-like;
delivery and event id headers are keys for IDM001, request and trace ids
are not.  The single-file shapes are fixtures (IDM002_http_semantics.py,
IDM001_delivery_ids.py); here: a project client in another module through
the CLI, the data path for an API that breaks PUT, and the shapes as tables.
"""

from __future__ import annotations

import json
import pathlib
import re
from typing import List, Tuple

import pytest
from conftest import RunCli

from idemlint import catalog, lint_source
from idemlint.settings import Settings

PROJECT = pathlib.Path(__file__).parent / "projects" / "http_client"
EXPECT = re.compile(r"#\s*expect:\s*(?P<code>IDM\d{3})")


def _expected(root: pathlib.Path) -> List[Tuple[str, int, str]]:
    found = []
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            match = EXPECT.search(line)
            if match:
                found.append((path.name, number, match["code"]))
    return found


def test_a_project_client_in_another_module(run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", "--format", "json", str(PROJECT))
    assert (status, err) == (1, "")
    found = sorted(
        (pathlib.Path(f["path"]).name, f["line"], f["code"]) for f in json.loads(out)
    )
    assert found == _expected(PROJECT)
    assert len(found) == 3


BASE_URL_PROJECT = pathlib.Path(__file__).parent / "projects" / "http_base_url"


def test_a_relative_path_is_joined_to_the_clients_base_url(run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", "--format", "json", str(BASE_URL_PROJECT))
    assert (status, err) == (1, "")
    findings = json.loads(out)
    assert sorted((pathlib.Path(f["path"]).name, f["line"], f["code"]) for f in findings) == _expected(
        BASE_URL_PROJECT
    )
    # The shared ``_post`` sends a message for the task that posts one, not
    # for the one that lists channels through it.
    (shared,) = [f for f in findings if f["path"].endswith("slack.py")]
    assert shared["task"].endswith("post_report")
    assert "sends the Slack message" in shared["message"]


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


@pytest.mark.parametrize(
    ("url", "query"),
    [
        ("https://es.example.com/orders/_search", True),
        ("/search/", True),
        ("{}/search", True),
        ("https://es.example.com/_msearch?typed_keys=true", True),
        ("/orders/_count", False),
        ("/search-history", False),
        ("/searches/save", False),
        ("/search/saved", False),
        ("https://search.example.com/orders", False),
        ("/orders?next=/search", False),
        ("/accounts/count-visits", False),
        ("/api/v1/query", True),
        ("https://prometheus.example/api/v1/query_range", True),
        ("{}/loki/api/v1/query", True),
        ("/api/v1/series?match[]=up", True),
        ("/api/v1/admin/tsdb/delete_series", False),
        ("/api/v1/queries", False),
        ("/v1/query", False),
    ],
)
def test_searches_are_told_by_the_last_path_segments(url: str, query: bool) -> None:
    assert catalog.is_query(url) is query


@pytest.mark.parametrize(
    ("header", "delivery_id"),
    [
        ("webhook-id", True),
        ("Webhook-Id", True),
        ("X-GitHub-Delivery", True),
        ("X-Acme-Delivery-Id", True),
        ("X-Acme-Event-Id", True),
        ("X-Acme-Message-Id", True),
        ("X-Shopify-Webhook-Id", True),
        ("x-amz-sns-message-id", True),
        ("X_Acme_Event_Id", True),
        ("X-Request-Id", False),
        ("Request-Id", False),
        ("traceparent", False),
        ("X-Correlation-Id", False),
        ("X-Amzn-Trace-Id", False),
        ("X-B3-TraceId", False),
        ("X-Request-Message-Id", False),
        ("X-Trace-Event-Id", False),
        ("X-Event-Id", False),
        ("X--Delivery", False),
        ("Message-Id", False),
        ("webhook-timestamp", False),
    ],
)
def test_delivery_id_headers(header: str, delivery_id: bool) -> None:
    assert catalog.is_delivery_id_header(header) is delivery_id
