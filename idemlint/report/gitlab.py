"""GitLab Code Quality: the Code Climate JSON subset GitLab reads.

Paths are relative to the repository root; the fingerprint is the one SARIF
uses, so GitLab's new/resolved comparison survives lines moving.
"""

from __future__ import annotations

import json
from typing import Dict

from idemlint.engine import LintResult
from idemlint.findings import Finding
from idemlint.git import report_root
from idemlint.report.meta import code_info
from idemlint.report.source import fingerprints, relative_to

SEVERITY = "major"


def render_gitlab(result: LintResult) -> str:
    relative = relative_to(report_root())
    issues = [
        _issue(finding, fingerprint, relative(finding.path))
        for finding, fingerprint in zip(result.findings, fingerprints(result.findings, relative))
    ]
    return json.dumps(issues, indent=2) + "\n"


def _issue(finding: Finding, fingerprint: str, path: str) -> Dict[str, object]:
    info = code_info(finding.code)
    return {
        "type": "issue",
        "check_name": finding.code,
        "description": f"{finding.code} {finding.message}",
        "content": {"body": f"{info.why}\n\nFix: {info.fix}"},
        "categories": ["Bug Risk"],
        "severity": SEVERITY,
        "fingerprint": fingerprint,
        "location": {"path": path, "lines": {"begin": finding.line, "end": finding.end_line}},
    }
