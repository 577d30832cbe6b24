"""Output formats. Each formatter turns a LintResult into text."""

from __future__ import annotations

from typing import Callable, Dict

from idemlint.engine import LintResult
from idemlint.report.as_json import render_json
from idemlint.report.github import render_github
from idemlint.report.gitlab import render_gitlab
from idemlint.report.rdjson import render_rdjson
from idemlint.report.review import render_review
from idemlint.report.sarif import render_sarif
from idemlint.report.text import render_text

Formatter = Callable[[LintResult], str]

FORMATTERS: Dict[str, Formatter] = {
    "text": render_text,
    "json": render_json,
    "review": render_review,
    "sarif": render_sarif,
    "github": render_github,
    "rdjson": render_rdjson,
    "gitlab": render_gitlab,
}

# Formats whose stdout is machine-read: file problems go to stderr instead
# (SARIF also lists them as tool execution notifications).
STRUCTURED_FORMATS = frozenset({"json", "sarif", "rdjson", "gitlab"})

__all__ = ["FORMATTERS", "STRUCTURED_FORMATS", "Formatter"]
