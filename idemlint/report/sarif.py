"""SARIF 2.1.0, as GitHub code scanning reads it.

Paths are relative to the repository root (``%SRCROOT%``); every rule is
described in ``tool.driver.rules`` whether or not it was found; each result
carries a ``partialFingerprints`` entry that does not depend on its line, so
code scanning keeps tracking an alert when lines above it move.  Files that
could not be analysed are tool execution notifications.
"""

from __future__ import annotations

import json
import pathlib
from urllib.parse import quote
from typing import Callable, Dict, List, Tuple

from idemlint import __version__
from idemlint.engine import LintResult
from idemlint.findings import FileProblem, Finding
from idemlint.git import report_root
from idemlint.report.meta import PROJECT_URL, UNUSED_NOQA, CodeInfo, code_info
from idemlint.report.source import fingerprints, relative_to
from idemlint.rules import RULES

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "idemlint/v1"
SOURCE_ROOT = "%SRCROOT%"


def render_sarif(result: LintResult) -> str:
    root = report_root()
    relative = relative_to(root)
    infos = [code_info(rule.code) for rule in RULES]
    if any(f.code == UNUSED_NOQA.code for f in result.findings):
        infos.append(UNUSED_NOQA)
    index = {info.code: position for position, info in enumerate(infos)}
    run = {
        "tool": {
            "driver": {
                "name": "idemlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": PROJECT_URL,
                "rules": [_descriptor(info) for info in infos],
            }
        },
        "originalUriBaseIds": {SOURCE_ROOT: {"uri": pathlib.Path(root).resolve().as_uri() + "/"}},
        # Our columns count characters, not the UTF-16 units SARIF assumes by default.
        "columnKind": "unicodeCodePoints",
        "invocations": [_invocation(result.problems, relative)],
        "results": [
            _result(finding, index[finding.code], fingerprint, relative)
            for finding, fingerprint in zip(
                result.findings, fingerprints(result.findings, relative)
            )
        ],
    }
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2) + "\n"


def _descriptor(info: CodeInfo) -> Dict[str, object]:
    example = info.use_instead.rstrip("\n")
    return {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.why},
        "help": {
            "text": f"{info.fix}\n\nFor example:\n\n{example}",
            "markdown": f"{info.fix}\n\nFor example:\n\n```python\n{example}\n```",
        },
        "helpUri": info.help_url,
        "defaultConfiguration": {"level": "warning"},
    }


def _result(
    finding: Finding, rule_index: int, fingerprint: str, relative: Callable[[str], str]
) -> Dict[str, object]:
    return {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": "warning",
        "message": {"text": finding.message},
        "locations": [
            _location(
                relative(finding.path),
                {
                    "startLine": finding.line,
                    "startColumn": finding.column,
                    "endLine": finding.end_line,
                    "endColumn": finding.end_column,
                },
            )
        ],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    }


def _location(path: str, region: Dict[str, int]) -> Dict[str, object]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": quote(path, safe="/"), "uriBaseId": SOURCE_ROOT},
            "region": region,
        }
    }


def _invocation(
    problems: Tuple[FileProblem, ...], relative: Callable[[str], str]
) -> Dict[str, object]:
    notifications: List[Dict[str, object]] = [
        {
            "level": "error",
            "descriptor": {"id": problem.code},
            "message": {"text": problem.message},
            "locations": [
                _location(
                    relative(problem.path),
                    {"startLine": problem.line, "startColumn": problem.column},
                )
            ],
        }
        for problem in problems
    ]
    return {"executionSuccessful": not problems, "toolExecutionNotifications": notifications}
