"""The report formats for code review and CI: SARIF, GitHub annotations,
reviewdog's rdjson, GitLab Code Quality; ``--output-file`` and ``--statistics``."""

from __future__ import annotations

import json
import pathlib
import subprocess
from typing import Any, Dict, List

import jsonschema
import pytest
from conftest import RunCli

from idemlint.report.github import escape_data, escape_property
from idemlint.rules import RULES
from idemlint.urls import REPOSITORY, rule_url

SARIF_SCHEMA = pathlib.Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"

TASK = """\
import requests
from celery import shared_task

@shared_task
def notify(order_id):
    requests.post('https://partner.example/orders', json={'id': order_id})
"""
TWO_FINDINGS = TASK + "    requests.post('https://partner.example/orders', json={'id': order_id})\n"
BROKEN = "from celery import shared_task\n\n@shared_task\ndef oops(:\n"

# reviewdog's DiagnosticResult as documented in proto/rdf/jsonschema/
# DiagnosticResult.jsonschema (reviewdog/reviewdog), transcribed to the fields
# idemlint writes, with what the documentation marks as required made required.
_POSITION = {
    "type": "object",
    "properties": {"line": {"type": "integer", "minimum": 1}, "column": {"type": "integer", "minimum": 1}},
    "required": ["line"],
}
_SOURCE = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "url": {"type": "string"}},
    "required": ["name"],
}
_SEVERITY = {"enum": ["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"]}
RDJSON_SCHEMA = {
    "type": "object",
    "required": ["source", "diagnostics"],
    "properties": {
        "source": _SOURCE,
        "severity": _SEVERITY,
        "diagnostics": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["message", "location"],
                "properties": {
                    "message": {"type": "string"},
                    "location": {
                        "type": "object",
                        "required": ["path"],
                        "properties": {
                            "path": {"type": "string"},
                            "range": {
                                "type": "object",
                                "required": ["start"],
                                "properties": {"start": _POSITION, "end": _POSITION},
                            },
                        },
                    },
                    "severity": _SEVERITY,
                    "source": _SOURCE,
                    "code": {
                        "type": "object",
                        "required": ["value"],
                        "properties": {"value": {"type": "string"}, "url": {"type": "string"}},
                    },
                    "suggestions": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["range", "text"],
                            "properties": {
                                "range": {
                                    "type": "object",
                                    "required": ["start", "end"],
                                    "properties": {"start": _POSITION, "end": _POSITION},
                                },
                                "text": {"type": "string"},
                            },
                        },
                    },
                },
            },
        },
    },
}

# GitLab's Code Quality report: the fields its documentation lists as required.
GITLAB_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string"},
            "check_name": {"type": "string"},
            "fingerprint": {"type": "string"},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string"},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                    },
                },
            },
        },
    },
}


@pytest.fixture
def project(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tasks.py").write_text(TASK)
    return tmp_path


def sarif_of(run_cli: RunCli, *paths: str) -> Dict[str, Any]:
    status, out, _ = run_cli("check", "--format", "sarif", *paths)
    assert status in (1, 2)
    log: Dict[str, Any] = json.loads(out)
    return log


def test_sarif_is_valid_against_the_official_schema(project: pathlib.Path, run_cli: RunCli) -> None:
    log = sarif_of(run_cli, "tasks.py")
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    run_ = log["runs"][0]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "idemlint"
    assert driver["informationUri"] == REPOSITORY
    assert [rule["id"] for rule in driver["rules"]] == [rule.code for rule in RULES]
    idm002 = driver["rules"][1]
    assert idm002["name"] == "missing-idempotency-key"
    assert idm002["helpUri"] == rule_url("IDM002")
    assert "```python" in idm002["help"]["markdown"]
    assert idm002["defaultConfiguration"] == {"level": "warning"}
    [result] = run_["results"]
    assert result["ruleId"] == "IDM002" and result["ruleIndex"] == 1
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "tasks.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 6, "startColumn": 5, "endLine": 6, "endColumn": 75}
    assert run_["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]


def test_sarif_paths_are_relative_to_the_git_top_level(
    project: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    package = project / "shop" / "jobs"
    package.mkdir(parents=True)
    (package / "my tasks.py").write_text(TASK)
    monkeypatch.chdir(package)
    log = sarif_of(run_cli, "my tasks.py")
    [result] = log["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "shop/jobs/my%20tasks.py"


def test_sarif_reports_unanalysable_files_as_notifications(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    (project / "broken.py").write_text(BROKEN)
    status, out, err = run_cli("check", "--format", "sarif", ".")
    assert status == 2
    log = json.loads(out)
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    [invocation] = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    [notification] = invocation["toolExecutionNotifications"]
    assert notification["descriptor"] == {"id": "E999"}
    assert "broken.py" in err and "E999" in err


def _fingerprints(run_cli: RunCli) -> List[str]:
    sarif = sarif_of(run_cli, "tasks.py")["runs"][0]["results"]
    _, out, _ = run_cli("check", "--format", "gitlab", "tasks.py")
    gitlab = json.loads(out)
    assert [issue["fingerprint"] for issue in gitlab] == [
        result["partialFingerprints"]["idemlint/v2"] for result in sarif
    ]
    return [issue["fingerprint"] for issue in gitlab]


def test_fingerprints_survive_a_blank_line_above(project: pathlib.Path, run_cli: RunCli) -> None:
    before = _fingerprints(run_cli)
    (project / "tasks.py").write_text("\n" + TASK)
    after = _fingerprints(run_cli)
    assert len(before) == 1 and before == after


def test_identical_findings_have_distinct_fingerprints(project: pathlib.Path, run_cli: RunCli) -> None:
    (project / "tasks.py").write_text(TWO_FINDINGS)
    first, second = _fingerprints(run_cli)
    assert first != second


def test_rdjson_follows_reviewdogs_documented_fields(project: pathlib.Path, run_cli: RunCli) -> None:
    status, out, _ = run_cli("check", "--format", "rdjson", "tasks.py")
    assert status == 1
    document = json.loads(out)
    jsonschema.validate(document, RDJSON_SCHEMA)
    assert document["source"] == {"name": "idemlint", "url": REPOSITORY}
    [diagnostic] = document["diagnostics"]
    assert diagnostic["location"]["path"] == "tasks.py"
    assert diagnostic["location"]["range"]["start"] == {"line": 6, "column": 5}
    assert diagnostic["code"]["value"] == "IDM002"
    assert diagnostic["code"]["url"] == rule_url("IDM002")
    message, fix = diagnostic["message"].split("\n\nFix: ")
    assert "without an idempotency key" in message and "Idempotency-Key" in fix


def test_rdjson_columns_count_utf8_bytes(project: pathlib.Path, run_cli: RunCli) -> None:
    (project / "tasks.py").write_text(
        TASK.replace("    requests.post", "    é = 1; requests.post"), encoding="utf-8"
    )
    _, text, _ = run_cli("check", "tasks.py")
    assert text.startswith("tasks.py:6:12: IDM002")  # characters
    _, out, _ = run_cli("check", "--format", "rdjson", "tasks.py")
    [diagnostic] = json.loads(out)["diagnostics"]
    assert diagnostic["location"]["range"]["start"]["column"] == 13  # "é" is two bytes


def test_gitlab_has_the_required_fields(project: pathlib.Path, run_cli: RunCli) -> None:
    (project / "broken.py").write_text(BROKEN)
    status, out, err = run_cli("check", "--format", "gitlab", ".")
    assert status == 2
    issues = json.loads(out)  # the broken file is on stderr, stdout stays valid
    jsonschema.validate(issues, GITLAB_SCHEMA)
    [issue] = issues
    assert issue["check_name"] == "IDM002"
    assert issue["location"] == {"path": "tasks.py", "lines": {"begin": 6, "end": 6}}
    assert "E999" in err


@pytest.mark.parametrize(
    ("raw", "data", "prop"),
    [
        ("100%", "100%25", "100%25"),
        ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
        ("x: y, z", "x: y, z", "x%3A y%2C z"),
    ],
)
def test_github_escaping_follows_the_actions_toolkit(raw: str, data: str, prop: str) -> None:
    assert escape_data(raw) == data
    assert escape_property(raw) == prop


def test_github_annotations(project: pathlib.Path, run_cli: RunCli) -> None:
    (project / "tasks.py").rename(project / "we%ird,na:me.py")
    (project / "broken.py").write_text(BROKEN)
    status, out, err = run_cli("check", "--format", "github", ".")
    assert status == 2 and err == ""
    warning, error = out.splitlines()
    assert warning.startswith(
        "::warning file=we%25ird%2Cna%3Ame.py,line=6,col=5,endLine=6,endColumn=75,"
        "title=IDM002 missing-idempotency-key::`requests.post()` in task `notify`"
    )
    assert "%0A%0AFix: " in warning and "\n" not in warning
    assert error.startswith("::error file=broken.py,line=4,col=")
    assert ",title=E999::SyntaxError" in error


def test_output_file_is_written_and_stdout_stays_empty(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    status, out, err = run_cli("check", "--format", "sarif", "--output-file", "idemlint.sarif", "tasks.py")
    assert (status, out, err) == (1, "", "")
    log = json.loads((project / "idemlint.sarif").read_text())
    assert log["runs"][0]["results"][0]["ruleId"] == "IDM002"
    left = sorted(p.name for p in project.iterdir() if p.name != ".idemlint_cache")
    assert left == ["idemlint.sarif", "tasks.py"]  # no temporary file left behind


def test_output_file_in_a_missing_directory_is_one_line(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    status, out, err = run_cli("check", "--output-file", "nowhere/report.txt", "tasks.py")
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "nowhere/report.txt" in err


def test_statistics_count_each_code(project: pathlib.Path, run_cli: RunCli) -> None:
    (project / "tasks.py").write_text(TWO_FINDINGS)
    status, out, _ = run_cli("check", "--statistics", "tasks.py")
    assert status == 1
    assert out.splitlines()[-1] == "2  IDM002  missing-idempotency-key"
    status, out, err = run_cli("check", "--format", "json", "--statistics", "tasks.py")
    assert len(json.loads(out)) == 2  # stdout stays valid JSON
    assert err == "2  IDM002  missing-idempotency-key\n"
