"""The JSON formats: ``json``, an array, and ``json-lines``, one object a line.

Each object is a finding, every field of :class:`idemlint.Finding`, with
the rule's documentation (``url``), the identity SARIF and GitLab give it
(``fingerprint``) and its ``level``; a file that could not be analysed is an
object with the same keys, at ``"error"`` level.  Values are kept exactly
(JSON escapes what needs escaping, and the text is ASCII).
"""

from __future__ import annotations

import json
from typing import Dict, List, Tuple, Union

from idemlint.engine import LintResult
from idemlint.findings import FileProblem, Finding
from idemlint.git import report_root
from idemlint.report.meta import code_info
from idemlint.report.source import ReportPaths, fingerprints

Record = Dict[str, object]


def render_json(result: LintResult) -> str:
    return json.dumps(records(result), indent=2) + "\n"


def render_json_lines(result: LintResult) -> str:
    """The same objects as :func:`render_json`, each on a line of its own
    (JSON escapes line breaks inside strings): nothing for a clean run."""
    return "".join(json.dumps(record) + "\n" for record in records(result))


def records(result: LintResult) -> List[Record]:
    """Findings and file problems, sorted by path, line, column and code."""
    relative = ReportPaths.under(report_root()).relative
    rows: List[Tuple[Union[Finding, FileProblem], Record]] = [
        (finding, _finding(finding, fingerprint))
        for finding, fingerprint in zip(result.findings, fingerprints(result.findings, relative))
    ]
    rows += [
        (problem, _problem(problem, fingerprint))
        for problem, fingerprint in zip(result.problems, fingerprints(result.problems, relative))
    ]
    rows.sort(key=lambda row: (row[0].path, row[0].line, row[0].column, row[0].code))
    return [record for _, record in rows]


def _finding(finding: Finding, fingerprint: str) -> Record:
    info = code_info(finding.code)
    return {**finding.as_dict(), "level": info.level, "url": info.help_url, "fingerprint": fingerprint}


def _problem(problem: FileProblem, fingerprint: str) -> Record:
    info = code_info(problem.code)
    return {
        "path": problem.path,
        "line": problem.line,
        "column": problem.column,
        "end_line": problem.end_line,
        "end_column": problem.end_column,
        "code": problem.code,
        "rule": info.name,
        "message": problem.message,
        "why": info.why,
        "fix": info.fix,
        "task": "",
        "tasks": [],
        "related": [],
        "suggestion": None,
        "level": info.level,
        "url": info.help_url,
        "fingerprint": fingerprint,
    }
