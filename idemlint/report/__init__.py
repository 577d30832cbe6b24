"""Output formats. Each formatter turns a LintResult into text.

Formatters are imported when used: most need the rule registry (and so
libcst), which a run served from the cache never imports otherwise.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Callable, Dict, Tuple

if TYPE_CHECKING:
    from idemlint.engine import LintResult

Formatter = Callable[["LintResult"], str]

# Format name: (module under idemlint.report, function).
_FORMATTERS: Dict[str, Tuple[str, str]] = {
    "text": ("text", "render_text"),
    "json": ("as_json", "render_json"),
    "json-lines": ("as_json", "render_json_lines"),
    "review": ("review", "render_review"),
    "sarif": ("sarif", "render_sarif"),
    "github": ("github", "render_github"),
    "rdjson": ("rdjson", "render_rdjson"),
    "gitlab": ("gitlab", "render_gitlab"),
    "junit": ("junit", "render_junit"),
}
FORMATS: Tuple[str, ...] = tuple(sorted(_FORMATTERS))

# Formats whose stdout is machine-read: each holds the files that could not
# be analysed as error-level items, and their lines go to stderr as well.
STRUCTURED_FORMATS = frozenset({"json", "json-lines", "sarif", "rdjson", "gitlab", "junit"})


# Formats people read, which colour and wrap as the terminal allows
# (:mod:`idemlint.report.terminal`): their renderers take a Presentation.
TERMINAL_FORMATS = frozenset({"text", "review"})


def formatter(name: str) -> Formatter:
    module, function = _FORMATTERS[name]
    render: Formatter = getattr(importlib.import_module(f"idemlint.report.{module}"), function)
    return render


__all__ = ["FORMATS", "STRUCTURED_FORMATS", "TERMINAL_FORMATS", "Formatter", "formatter"]
