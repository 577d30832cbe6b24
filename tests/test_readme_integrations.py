"""The integration snippets of the README, as a user would paste them.

Each snippet follows a ``<!-- readme-test: NAME -->`` marker.  The idemlint
commands in them are run for real (through ``python -m idemlint``) on a small
project, the configuration files through the real tool that reads them
(flake8, ruff), and the CI files are checked for what their platforms need.
"""

from __future__ import annotations

import json
import pathlib
import re
import shlex
import subprocess
import sys
from typing import Any, Dict, List

import jsonschema
import pytest
import yaml

from idemlint.urls import REPOSITORY
from readme import ROOT, snippet

SARIF_SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())

TASK = """\
import requests
from celery import shared_task

@shared_task
def notify(order_id):
    requests.post('https://partner.example/orders', json={'id': order_id})
"""


def idemlint_command(line: str) -> List[str]:
    """``idemlint check ...`` as a command of this interpreter."""
    words = shlex.split(line)
    assert words[0] == "idemlint", line
    return [sys.executable, "-m", "idemlint", *words[1:]]


def run(command: List[str], cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def project(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "tasks.py").write_text(TASK)
    return tmp_path


def steps_running(workflow: Dict[str, Any], word: str) -> List[Dict[str, Any]]:
    return [
        step
        for job in workflow["jobs"].values()
        for step in job["steps"]
        if word in str(step.get("run", "")) or word in str(step.get("uses", ""))
    ]


def test_github_code_scanning_workflow(project: pathlib.Path) -> None:
    workflow = yaml.safe_load(snippet("github-code-scanning"))
    [job] = workflow["jobs"].values()
    assert job["permissions"]["security-events"] == "write"
    [check] = steps_running(workflow, "idemlint check")
    command = idemlint_command(check["run"])
    assert "--exit-zero" in command  # the upload step must run after findings
    [upload] = steps_running(workflow, "upload-sarif")
    assert upload["uses"] == "github/codeql-action/upload-sarif@v3"
    completed = run(command, project)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == ""
    log = json.loads((project / upload["with"]["sarif_file"]).read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    assert log["runs"][0]["results"][0]["ruleId"] == "IDM002"
    # A file that fails to parse must not skip the upload either.
    (project / "broken.py").write_text(TASK.replace("def notify(order_id):", "def notify(:"))
    completed = run(command, project)
    assert completed.returncode == 0 and "E999" in completed.stderr
    log = json.loads((project / upload["with"]["sarif_file"]).read_text())
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["IDM002", "E999"]  # an alert too


def test_reviewdog_step(project: pathlib.Path) -> None:
    workflow = {"jobs": yaml.safe_load(snippet("reviewdog"))}  # the snippet is one job
    [step] = steps_running(workflow, "reviewdog -f=rdjson")
    producer, consumer = step["run"].split("|")
    assert "-reporter=github-pr-review" in consumer.split()
    completed = run(idemlint_command(producer), project)
    assert completed.returncode == 0, completed.stderr
    [diagnostic] = json.loads(completed.stdout)["diagnostics"]
    assert diagnostic["location"]["path"] == "tasks.py"


def test_gitlab_code_quality_job(project: pathlib.Path) -> None:
    pipeline = yaml.safe_load(snippet("gitlab"))
    job = pipeline["idemlint"]
    report = job["artifacts"]["reports"]["codequality"]
    [line] = [line for line in job["script"] if line.startswith("idemlint ")]
    completed = run(idemlint_command(line), project)
    assert completed.returncode == 0, completed.stderr
    [issue] = json.loads((project / report).read_text())
    assert {"description", "check_name", "fingerprint", "severity", "location"} <= issue.keys()
    assert issue["location"]["path"] == "tasks.py"


def test_gitlab_junit_job(project: pathlib.Path) -> None:
    import xml.etree.ElementTree as ET

    import xmlschema

    pipeline = yaml.safe_load(snippet("gitlab-junit"))
    job = pipeline["idemlint-tests"]
    assert job["artifacts"]["when"] == "always"  # the job fails on findings
    report = job["artifacts"]["reports"]["junit"]
    [line] = [line for line in job["script"] if line.startswith("idemlint ")]
    completed = run(idemlint_command(line), project)
    assert completed.returncode == 1, completed.stderr
    text = (project / report).read_text()
    xmlschema.XMLSchema(str(ROOT / "tests" / "data" / "junit.xsd")).validate(text)
    [[case]] = ET.fromstring(text)
    assert case.get("name", "").startswith("tasks.py: IDM002 missing-idempotency-key: ")
    assert [child.tag for child in case] == ["failure"]


def test_pre_commit_configuration(tmp_path: pathlib.Path) -> None:
    config = yaml.safe_load(snippet("pre-commit"))
    [repo] = config["repos"]
    assert repo["repo"] == REPOSITORY
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {hook["id"] for hook in repo["hooks"]} <= {hook["id"] for hook in hooks}
    # pre-commit's own check of the file; it warns about a rev that looks
    # like a branch.  tests/test_precommit.py runs the snippet's hook.
    (tmp_path / ".pre-commit-config.yaml").write_text(snippet("pre-commit"))
    completed = run([sys.executable, "-m", "pre_commit", "validate-config", ".pre-commit-config.yaml"], tmp_path)
    assert completed.returncode == 0 and completed.stdout + completed.stderr == "", completed


def test_baseline_adoption(project: pathlib.Path) -> None:
    write, check = [line.split("#")[0] for line in snippet("baseline").splitlines()]
    assert run(idemlint_command(write), project).returncode == 0
    assert run(idemlint_command(check), project).returncode == 0
    (project / "tasks.py").write_text(
        TASK + "    requests.post('https://partner.example/audit', json={'id': order_id})\n"
    )
    completed = run(idemlint_command(check), project)
    assert completed.returncode == 1 and completed.stdout.count("IDM002") == 1


@pytest.mark.parametrize("config_file", ["setup.cfg", "tox.ini", ".flake8"])
def test_flake8_configuration(tmp_path: pathlib.Path, config_file: str) -> None:
    (tmp_path / config_file).write_text(snippet("flake8"))
    # Reported only because the configuration names the decorator.
    (tmp_path / "jobs.py").write_text(
        "import requests\nfrom myproject.tasks import instrumented_task\n\n\n"
        "@instrumented_task\ndef notify(order_id):\n"
        "    requests.post('https://partner.example/orders', json={'id': order_id})\n"
    )
    completed = run([sys.executable, "-m", "flake8", "jobs.py"], tmp_path)
    assert completed.stdout.startswith("jobs.py:7:5: IDM002 "), completed.stdout + completed.stderr
    assert len(completed.stdout.splitlines()) == 1


def test_ruff_keeps_idemlint_noqa_comments(tmp_path: pathlib.Path) -> None:
    ruff = pytest.importorskip("ruff")
    binary = ruff.find_ruff_bin()  # type: ignore[attr-defined]
    (tmp_path / "tasks.py").write_text(TASK.replace("order_id})\n", "order_id})  # noqa: IDM002\n"))
    (tmp_path / "pyproject.toml").write_text(snippet("ruff"))
    completed = run([binary, "check", "--no-cache", "--select", "RUF100", "tasks.py"], tmp_path)
    # ruff rejects a configuration it does not understand, and would report
    # (and with --fix delete) a noqa code it considers unused.
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "IDM002" in (tmp_path / "tasks.py").read_text()


def test_configuration_example(project: pathlib.Path) -> None:
    from idemlint.config import _KEYS

    text = snippet("configuration")
    (project / "pyproject.toml").write_text(text)
    completed = run([sys.executable, "-m", "idemlint", "check", "--show-settings", "tasks.py"], project)
    assert completed.returncode == 0, completed.stderr
    assert f"Configuration file: {project / 'pyproject.toml'}" in completed.stdout.splitlines()
    # Every key the table accepts is in the example.
    assert {key for key in _KEYS if not re.search(rf"^{re.escape(key)} = ", text, re.M)} <= {"side-effects"}
    assert "[tool.idemlint.side-effects]" in text
