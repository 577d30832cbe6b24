"""reviewdog's Diagnostic JSON (``reviewdog -f=rdjson``).

The message carries the fix, since reviewdog posts the message as the review
comment.  Columns are 1-based UTF-8 byte offsets and the end is exclusive,
as reviewdog's ``Position`` and ``Range`` define them.
"""

from __future__ import annotations

import json
import os
from typing import Dict

from idemlint.engine import LintResult
from idemlint.findings import Finding
from idemlint.report.meta import PROJECT_URL, code_info
from idemlint.report.source import relative_to, utf8_column

SOURCE = {"name": "idemlint", "url": PROJECT_URL}


def render_rdjson(result: LintResult) -> str:
    relative = relative_to(os.getcwd())  # reviewdog resolves paths from its working directory
    document = {
        "source": SOURCE,
        "severity": "WARNING",
        "diagnostics": [_diagnostic(finding, relative(finding.path)) for finding in result.findings],
    }
    return json.dumps(document, indent=2) + "\n"


def _diagnostic(finding: Finding, path: str) -> Dict[str, object]:
    info = code_info(finding.code)
    return {
        "message": f"{finding.message}\n\nFix: {info.fix}",
        "location": {
            "path": path,
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
        "code": {"value": finding.code, "url": info.help_url},
    }
