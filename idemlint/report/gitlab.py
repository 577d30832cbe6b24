"""GitLab Code Quality: the Code Climate JSON subset GitLab reads.

Paths are relative to the repository root, as the files were named (a
symbolic link where it is, not at its target); a file outside the root keeps
its absolute path, which GitLab lists without linking it to the diff.  The
fingerprint is the one SARIF uses, so GitLab's new/resolved comparison
survives lines moving.  The description goes through :func:`visible`, as
GitLab shows it to people.  A file that could not be analysed is an issue of
``critical`` severity, above the findings' ``major``.
"""

from __future__ import annotations

import json
import os
from typing import Dict, Union

from idemlint.engine import LintResult
from idemlint.findings import FileProblem, Finding
from idemlint.git import report_root
from idemlint.escape import valid_unicode, visible
from idemlint.report.meta import code_info
from idemlint.report.source import ReportPaths, fingerprints

SEVERITY = "major"
PROBLEM_SEVERITY = "critical"


def render_gitlab(result: LintResult) -> str:
    paths = ReportPaths.under(report_root())
    issues = [
        _issue(finding, fingerprint, paths)
        for finding, fingerprint in zip(result.findings, fingerprints(result.findings, paths.relative))
    ]
    issues += [
        _problem(problem, fingerprint, paths)
        for problem, fingerprint in zip(result.problems, fingerprints(result.problems, paths.relative))
    ]
    return json.dumps(issues, indent=2) + "\n"


def _issue(finding: Finding, fingerprint: str, paths: ReportPaths) -> Dict[str, object]:
    return _entry(finding, fingerprint, paths, SEVERITY, finding.end_line)


def _problem(problem: FileProblem, fingerprint: str, paths: ReportPaths) -> Dict[str, object]:
    return _entry(problem, fingerprint, paths, PROBLEM_SEVERITY, problem.line)


def _entry(
    item: Union[Finding, FileProblem], fingerprint: str, paths: ReportPaths, severity: str, end_line: int
) -> Dict[str, object]:
    """One Code Quality issue: a finding, or a file that could not be analysed."""
    info = code_info(item.code)
    path = paths.inside(item.path) or os.path.abspath(item.path)
    return {
        "type": "issue",
        "check_name": visible(item.code),
        "description": visible(f"{item.code} {item.message}"),
        "content": {"body": f"{info.why}\n\nFix: {info.fix}"},
        "categories": ["Bug Risk"],
        "severity": severity,
        "fingerprint": fingerprint,
        "location": {
            "path": valid_unicode(path),
            "lines": {"begin": item.line, "end": end_line},
        },
    }
