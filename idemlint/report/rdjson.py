"""reviewdog's Diagnostic JSON (``reviewdog -f=rdjson``).

The message carries the fix, since reviewdog posts the message as the review
comment.  Columns are 1-based UTF-8 byte offsets and the end is exclusive,
as reviewdog's ``Position`` and ``Range`` define them.  Paths are relative to
the working directory, as the files were named (a symbolic link where it is,
not at its target): reviewdog joins a relative path to the working
directory's place in the repository, so ``../lib/x.py`` from a subdirectory
still matches the diff.  A file outside the repository keeps its absolute
path, which reviewdog leaves outside the diff.  The message
goes through :func:`visible`: reviewdog posts it, or prints it to a terminal
with ``-reporter=local``.  A file that could not be analysed is a
diagnostic at ``ERROR`` severity, at the place its problem is.
"""

from __future__ import annotations

import json
import os
from typing import Dict, List

from idemlint.engine import LintResult
from idemlint.findings import FileProblem, Finding
from idemlint.git import report_root
from idemlint.report.meta import code_info
from idemlint.escape import valid_unicode, visible
from idemlint.report.source import ReportPaths, utf8_column
from idemlint.urls import REPOSITORY

SOURCE = {"name": "idemlint", "url": REPOSITORY}


def render_rdjson(result: LintResult) -> str:
    paths = ReportPaths.under(report_root())
    document = {
        "source": SOURCE,
        "severity": "WARNING",
        "diagnostics": [_diagnostic(finding, paths) for finding in result.findings]
        + [_problem(problem, paths) for problem in result.problems],
    }
    return json.dumps(document, indent=2) + "\n"


def _diagnostic(finding: Finding, paths: ReportPaths) -> Dict[str, object]:
    info = code_info(finding.code)
    path = paths.inside_from(finding.path, os.getcwd()) or os.path.abspath(finding.path)
    return {
        "message": f"{visible(finding.message)}\n\nFix: {info.fix}",
        "location": {
            "path": valid_unicode(path),
            "range": {
                "start": {
                    "line": finding.line,
                    "column": utf8_column(finding.path, finding.line, finding.column),
                },
                "end": {
                    "line": finding.end_line,
                    "column": utf8_column(finding.path, finding.end_line, finding.end_column),
                },
            },
        },
        "severity": "WARNING",
        "source": SOURCE,
        "code": {"value": visible(finding.code), "url": info.help_url},
        **({"suggestions": _suggestions(finding)} if finding.suggestion is not None else {}),
    }


def _problem(problem: FileProblem, paths: ReportPaths) -> Dict[str, object]:
    info = code_info(problem.code)
    path = paths.inside_from(problem.path, os.getcwd()) or os.path.abspath(problem.path)
    start = {"line": problem.line, "column": utf8_column(problem.path, problem.line, problem.column)}
    return {
        "message": f"{visible(problem.message)}\n\nFix: {info.fix}",
        "location": {"path": valid_unicode(path), "range": {"start": start}},
        "severity": "ERROR",
        "source": SOURCE,
        "code": {"value": visible(problem.code), "url": info.help_url},
    }


def _suggestions(finding: Finding) -> List[Dict[str, object]]:
    """reviewdog's ``Suggestion`` per edit: a range in the same byte columns
    as the diagnostic's, and the text that replaces it (GitHub's suggested
    change, with ``-reporter=github-pr-review``)."""
    assert finding.suggestion is not None
    return [
        {
            "range": {
                "start": {"line": edit.line, "column": utf8_column(finding.path, edit.line, edit.column)},
                "end": {"line": edit.end_line, "column": utf8_column(finding.path, edit.end_line, edit.end_column)},
            },
            "text": edit.content,
        }
        for edit in finding.suggestion.edits
    ]
