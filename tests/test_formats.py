"""The report formats for code review and CI: SARIF, GitHub annotations,
reviewdog's rdjson, GitLab Code Quality; ``--output-file`` and ``--statistics``."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import xml.etree.ElementTree as ET
from typing import Any, Dict, List

import jsonschema
import pytest
import xmlschema
from conftest import RunCli

from idemlint.codes import FILE_PROBLEM_CODES
from idemlint.report.github import escape_data, escape_property
from idemlint.report.meta import FILE_PROBLEMS, code_info
from idemlint.urls import REPOSITORY
from idemlint.rules import RULES
from idemlint.urls import REPOSITORY, rule_url

SARIF_SCHEMA = pathlib.Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
JUNIT_SCHEMA = pathlib.Path(__file__).parent / "data" / "junit.xsd"

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


def test_sarif_reports_unanalysable_files_as_error_results(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    (project / "broken.py").write_text(BROKEN)
    status, out, err = run_cli("check", "--format", "sarif", ".")
    assert status == 2
    log = json.loads(out)
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    run_ = log["runs"][0]
    # Code scanning does not process a run that says it did not succeed.
    assert run_["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]
    rules = run_["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [*(rule.code for rule in RULES), "E999"]
    assert rules[-1]["name"] == "syntax-error"
    assert rules[-1]["defaultConfiguration"] == {"level": "error"}
    assert rules[-1]["helpUri"].endswith("/README.md#limits")
    finding, problem = run_["results"]
    assert (finding["ruleId"], finding["level"]) == ("IDM002", "warning")
    assert problem["ruleId"] == "E999" and problem["ruleIndex"] == len(rules) - 1
    assert problem["level"] == "error"
    assert problem["message"]["text"].startswith("SyntaxError: ")
    location = problem["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "broken.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"]["startLine"] == 4
    assert re.fullmatch("[0-9a-f]{64}", problem["partialFingerprints"]["idemlint/v2"])
    assert "broken.py" in err and "E999" in err


def test_sarif_of_a_file_that_fails_to_parse_exits_0_with_exit_zero(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    (project / "broken.py").write_text(BROKEN)
    status, out, _ = run_cli("check", "--exit-zero", "--format", "sarif", ".")
    assert status == 0
    assert [r["ruleId"] for r in json.loads(out)["runs"][0]["results"]] == ["IDM002", "E999"]


def _fingerprints(run_cli: RunCli) -> List[str]:
    """SARIF's, GitLab's and the JSON format's fingerprints: the same ones."""
    sarif = sarif_of(run_cli, "tasks.py")["runs"][0]["results"]
    _, out, _ = run_cli("check", "--format", "gitlab", "tasks.py")
    gitlab = json.loads(out)
    _, out, _ = run_cli("check", "--format", "json", "tasks.py")
    findings = json.loads(out)
    assert [issue["fingerprint"] for issue in gitlab] == [
        result["partialFingerprints"]["idemlint/v2"] for result in sarif
    ] == [finding["fingerprint"] for finding in findings]
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


def test_json_fingerprints_do_not_depend_on_how_the_file_is_named(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    # Relative to the repository, as SARIF's: the path in the JSON stays as named.
    named = [run_cli("check", "--format", "json", path)[1] for path in ("tasks.py", str(project / "tasks.py"))]
    relative, absolute = (json.loads(out)[0] for out in named)
    assert relative["path"] != absolute["path"]
    assert relative["fingerprint"] == absolute["fingerprint"]


def test_json_lines_holds_the_json_objects_one_a_line(project: pathlib.Path, run_cli: RunCli) -> None:
    (project / "tasks.py").write_text(TWO_FINDINGS)
    (project / "broken.py").write_text(BROKEN)
    status, out, err = run_cli("check", "--format", "json-lines", ".")
    assert status == 2 and "E999" in err
    lines = out.splitlines(keepends=True)
    assert all(line.endswith("}\n") and line.count("\n") == 1 for line in lines)
    objects = [json.loads(line) for line in lines]
    _, array, _ = run_cli("check", "--format", "json", ".")
    assert objects == json.loads(array)
    assert [(o["code"], o["line"]) for o in objects] == [("E999", 4), ("IDM002", 6), ("IDM002", 7)]


def test_json_lines_of_a_clean_run_is_empty(project: pathlib.Path, run_cli: RunCli) -> None:
    (project / "tasks.py").write_text("print('nothing to see')\n")
    assert run_cli("check", "--format", "json-lines", ".") == (0, "", "")


def test_every_code_of_a_file_problem_is_described() -> None:
    assert set(FILE_PROBLEMS) == FILE_PROBLEM_CODES
    for code, info in FILE_PROBLEMS.items():
        assert code_info(code) is info and info.level == "error"
        assert info.help_url.startswith(REPOSITORY + "/") and info.why and info.fix


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


def test_rdjson_reports_a_file_that_fails_to_parse_as_an_error(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    (project / "broken.py").write_text(BROKEN)
    status, out, err = run_cli("check", "--format", "rdjson", ".")
    assert status == 2 and "E999" in err
    document = json.loads(out)
    jsonschema.validate(document, RDJSON_SCHEMA)
    finding, problem = document["diagnostics"]
    assert (finding["code"]["value"], finding["severity"]) == ("IDM002", "WARNING")
    assert (problem["code"]["value"], problem["severity"]) == ("E999", "ERROR")
    assert problem["code"]["url"].endswith("/README.md#limits")
    assert problem["location"]["path"] == "broken.py"
    assert problem["location"]["range"]["start"]["line"] == 4
    assert problem["message"].startswith("SyntaxError: ") and "\n\nFix: " in problem["message"]


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
    issues = json.loads(out)  # the broken file is on stderr too, stdout stays valid
    jsonschema.validate(issues, GITLAB_SCHEMA)
    issue, problem = issues
    assert (issue["check_name"], issue["severity"]) == ("IDM002", "major")
    assert issue["location"] == {"path": "tasks.py", "lines": {"begin": 6, "end": 6}}
    assert (problem["check_name"], problem["severity"]) == ("E999", "critical")
    assert problem["description"].startswith("E999 SyntaxError: ")
    assert problem["location"] == {"path": "broken.py", "lines": {"begin": 4, "end": 4}}
    assert len({issue["fingerprint"], problem["fingerprint"]}) == 2
    assert "E999" in err


def junit_of(run_cli: RunCli, *paths: str) -> ET.Element:
    """The report, validated against the common (Jenkins) JUnit schema."""
    status, out, _ = run_cli("check", "--format", "junit", *paths)
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n') and out.isascii()
    xmlschema.XMLSchema(str(JUNIT_SCHEMA)).validate(out)
    return ET.fromstring(out)


def test_junit_is_one_suite_with_a_test_case_per_finding_and_per_problem(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    (project / "tasks.py").write_text(TWO_FINDINGS)
    (project / "broken.py").write_text(BROKEN)
    root = junit_of(run_cli, ".")
    [suite] = root
    counts = {"tests": "3", "failures": "2", "errors": "1"}
    assert root.attrib == {"name": "idemlint", **counts}
    assert suite.attrib == {"name": "idemlint", **counts, "skipped": "0"}
    problem, first, second = suite
    assert problem.attrib == {"name": "broken.py: E999 syntax-error: def oops(:", "classname": "broken"}
    [error] = problem
    assert error.tag == "error" and error.get("type") == "E999"
    assert error.get("message", "").startswith("SyntaxError: ")
    assert first.get("classname") == second.get("classname") == "tasks"
    # Named by what they are, not by their lines: the same source twice is numbered.
    post = "requests.post('https://partner.example/orders', json={'id': order_id})"
    assert first.get("name") == f"tasks.py: IDM002 missing-idempotency-key: {post}"
    assert second.get("name") == f"tasks.py: IDM002 missing-idempotency-key: {post} (2)"
    [failure] = first
    assert failure.tag == "failure" and failure.get("type") == "IDM002"
    assert failure.get("message", "").startswith("`requests.post()` in task `notify`")
    text = failure.text or ""
    assert text.startswith("./tasks.py:6:5: IDM002 `requests.post()`")
    assert "\nWhy: " in text and "\nFix: " in text and text.endswith("/docs/rules/IDM002.md")


def test_junit_test_case_names_survive_a_line_moving_above(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    def names() -> List[str]:
        return [case.get("name", "") for case in junit_of(run_cli, "tasks.py")[0]]

    before = names()
    (project / "tasks.py").write_text("\n" + TASK)
    assert names() == before and len(before) == 1


def test_junit_of_a_clean_run_has_one_passing_test_case(project: pathlib.Path, run_cli: RunCli) -> None:
    (project / "tasks.py").write_text("print('nothing to see')\n")
    root = junit_of(run_cli, ".")
    assert root.attrib == {"name": "idemlint", "tests": "1", "failures": "0", "errors": "0"}
    [[case]] = root
    assert case.attrib == {"name": "no findings", "classname": "idemlint"} and list(case) == []


def test_junit_exits_as_the_other_formats_do(project: pathlib.Path, run_cli: RunCli) -> None:
    (project / "broken.py").write_text(BROKEN)
    assert run_cli("check", "--format", "junit", ".")[0] == 2
    assert run_cli("check", "--format", "junit", "--exit-zero", ".")[0] == 0
    status, out, err = run_cli("check", "--format", "junit", "--statistics", "tasks.py")
    assert status == 1 and err == "1  IDM002  missing-idempotency-key\n"  # stdout stays XML
    ET.fromstring(out)


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
