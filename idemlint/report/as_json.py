"""A JSON array of findings; every field of :class:`idemlint.Finding`.

Values are written as they are (JSON escapes control characters), except
that a file name that is not valid UTF-8 has U+FFFD for each undecodable
byte: a lone surrogate is not valid JSON text for most parsers.
"""

from __future__ import annotations

import json
from typing import Dict

from idemlint.engine import LintResult
from idemlint.findings import Finding
from idemlint.report.escape import valid_unicode


def render_json(result: LintResult) -> str:
    return json.dumps([_entry(f) for f in result.findings], indent=2) + "\n"


def _entry(finding: Finding) -> Dict[str, object]:
    return {
        key: valid_unicode(value) if isinstance(value, str) else value
        for key, value in finding.as_dict().items()
    }
