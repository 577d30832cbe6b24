"""Output formats. Each formatter turns a LintResult into text."""

from __future__ import annotations

from typing import Callable, Dict

from idemlint.engine import LintResult
from idemlint.report.as_json import render_json
from idemlint.report.review import render_review
from idemlint.report.text import render_text

Formatter = Callable[[LintResult], str]

FORMATTERS: Dict[str, Formatter] = {
    "text": render_text,
    "json": render_json,
    "review": render_review,
}

# Formats whose stdout is machine-read: file problems go to stderr instead.
STRUCTURED_FORMATS = frozenset({"json"})

__all__ = ["FORMATTERS", "STRUCTURED_FORMATS", "Formatter"]
