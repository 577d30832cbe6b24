"""``path:line:col: CODE message``, one line per finding, like flake8 and ruff.

Paths and messages are printed through :func:`visible`: a file name holding
a newline or an escape sequence cannot forge a line or drive the terminal.
"""

from __future__ import annotations

from typing import List, Union

from idemlint.engine import LintResult
from idemlint.findings import FileProblem, Finding
from idemlint.escape import visible


def line_for(item: Union[Finding, FileProblem]) -> str:
    return f"{visible(item.path)}:{item.line}:{item.column}: {visible(item.code)} {visible(item.message)}"


def render_text(result: LintResult) -> str:
    items: List[Union[Finding, FileProblem]] = sorted(
        [*result.findings, *result.problems],
        key=lambda i: (i.path, i.line, i.column, i.code),
    )
    return "".join(line_for(item) + "\n" for item in items)
