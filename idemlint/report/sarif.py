"""SARIF 2.1.0, as GitHub code scanning reads it.

Paths are relative to the repository root (``%SRCROOT%``), as the files were
named (a symbolic link is reported where it is, not at its target); a file
outside the root is an absolute ``file://`` URI without a base.  Every rule is
described in ``tool.driver.rules`` whether or not it was found; each result
carries a ``partialFingerprints`` entry that does not depend on its line
(nor on which tasks reach it), so code scanning keeps tracking an alert when
lines above it move, and ``relatedLocations``: each task's call on the way
to it, the hops between, and the check a race slips past.  A file that
could not be analysed is a result at ``error`` level (its rule is described
only when it occurs), so code scanning shows it as an alert.  The run stays
``executionSuccessful``: code scanning answers a run that is not with an
"unsuccessful execution" processing error and keeps its results out (the
CodeQL action's upload-lib.ts expects exactly that for its failed runs), and
the upload step of any other tool fails on that error.  Messages go through
:func:`visible`: code scanning shows them to people as they are.
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Dict
from urllib.parse import quote

from idemlint import __version__
from idemlint.engine import LintResult
from idemlint.fixes import Fix
from idemlint.findings import FileProblem, Finding, Related
from idemlint.git import report_root
from idemlint.report.meta import FILE_PROBLEMS, UNUSED_NOQA, CodeInfo, rule_infos
from idemlint.escape import visible
from idemlint.report.source import ReportPaths, fingerprints
from idemlint.urls import REPOSITORY

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
# v2: the task is no longer part of the identity (idemlint.report.source).
FINGERPRINT_KEY = "idemlint/v2"
SOURCE_ROOT = "%SRCROOT%"


def render_sarif(result: LintResult) -> str:
    root = report_root()
    paths = ReportPaths.under(root)
    infos = rule_infos()
    if any(f.code == UNUSED_NOQA.code for f in result.findings):
        infos.append(UNUSED_NOQA)
    infos += [FILE_PROBLEMS[code] for code in sorted({p.code for p in result.problems})]
    index = {info.code: position for position, info in enumerate(infos)}
    run = {
        "tool": {
            "driver": {
                "name": "idemlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": REPOSITORY,
                "rules": [_descriptor(info) for info in infos],
            }
        },
        "originalUriBaseIds": {SOURCE_ROOT: {"uri": pathlib.Path(root).resolve().as_uri() + "/"}},
        # Our columns count characters, not the UTF-16 units SARIF assumes by default.
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": []}],
        "results": [
            _result(finding, index[finding.code], fingerprint, paths)
            for finding, fingerprint in zip(
                result.findings, fingerprints(result.findings, paths.relative)
            )
        ]
        + [
            _problem(problem, index[problem.code], fingerprint, paths)
            for problem, fingerprint in zip(
                result.problems, fingerprints(result.problems, paths.relative)
            )
        ],
    }
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2) + "\n"


def _descriptor(info: CodeInfo) -> Dict[str, object]:
    example = info.use_instead.rstrip("\n")
    help_text = {"text": info.fix, "markdown": info.fix}
    if example:
        help_text = {
            "text": f"{info.fix}\n\nFor example:\n\n{example}",
            "markdown": f"{info.fix}\n\nFor example:\n\n```python\n{example}\n```",
        }
    return {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": info.why},
        "help": help_text,
        "helpUri": info.help_url,
        "defaultConfiguration": {"level": info.level},
    }


def _result(
    finding: Finding, rule_index: int, fingerprint: str, paths: ReportPaths
) -> Dict[str, object]:
    result = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": "warning",
        "message": {"text": visible(finding.message)},
        "locations": [
            _location(
                _artifact(finding.path, paths),
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
    if finding.related:
        result["relatedLocations"] = [
            _related(number, place, paths) for number, place in enumerate(finding.related)
        ]
    if finding.suggestion is not None:
        result["fixes"] = [_fix(finding.path, finding.suggestion, paths)]
    return result


def _fix(path: str, fix: Fix, paths: ReportPaths) -> Dict[str, object]:
    """SARIF's ``fix``: one artifact change, its replacements' regions in the
    same line and column convention as the results' (1-based, end exclusive)."""
    return {
        "description": {"text": visible(fix.title)},
        "artifactChanges": [
            {
                "artifactLocation": _artifact(path, paths),
                "replacements": [
                    {
                        "deletedRegion": {
                            "startLine": edit.line,
                            "startColumn": edit.column,
                            "endLine": edit.end_line,
                            "endColumn": edit.end_column,
                        },
                        "insertedContent": {"text": edit.content},
                    }
                    for edit in fix.edits
                ],
            }
        ],
    }


def _related(number: int, place: Related, paths: ReportPaths) -> Dict[str, object]:
    return {
        "id": number,
        **_location(_artifact(place.path, paths), {"startLine": place.line, "startColumn": place.column}),
        "message": {"text": visible(place.note)},
    }


def _artifact(path: str, paths: ReportPaths) -> Dict[str, str]:
    """An artifactLocation: relative to %SRCROOT%, or an absolute URI outside it."""
    relative = paths.inside(path)
    if relative is None:
        return {"uri": pathlib.Path(os.path.abspath(path)).as_uri()}
    # The file name's bytes, percent-encoded: exact even when they are not UTF-8.
    return {"uri": quote(os.fsencode(relative), safe="/"), "uriBaseId": SOURCE_ROOT}


def _location(artifact: Dict[str, str], region: Dict[str, int]) -> Dict[str, object]:
    return {"physicalLocation": {"artifactLocation": artifact, "region": region}}


def _problem(
    problem: FileProblem, rule_index: int, fingerprint: str, paths: ReportPaths
) -> Dict[str, object]:
    """A file that could not be analysed, as an error-level result at the
    place its problem is (line 1, column 1 for a file that cannot be read)."""
    return {
        "ruleId": problem.code,
        "ruleIndex": rule_index,
        "level": "error",
        "message": {"text": visible(problem.message)},
        "locations": [
            _location(
                _artifact(problem.path, paths),
                {"startLine": problem.line, "startColumn": problem.column},
            )
        ],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    }
