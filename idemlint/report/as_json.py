"""A JSON array of findings; every field of :class:`idemlint.Finding`."""

from __future__ import annotations

import json

from idemlint.engine import LintResult


def render_json(result: LintResult) -> str:
    return json.dumps([f.as_dict() for f in result.findings], indent=2) + "\n"
