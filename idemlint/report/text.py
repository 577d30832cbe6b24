"""``path:line:col: CODE message``, one line per finding, like flake8 and ruff.

Paths and messages are printed through :func:`visible`: a file name holding
a newline or an escape sequence cannot forge a line or drive the terminal.
"""

from __future__ import annotations

from typing import List, Union

from idemlint.engine import LintResult
from idemlint.findings import FileProblem, Finding
from idemlint.escape import visible
from idemlint.report.terminal import PLAIN, Presentation


def line_for(item: Union[Finding, FileProblem], presentation: Presentation = PLAIN) -> str:
    paint = presentation.paint
    return (
        f"{paint(visible(item.path), 'path')}{paint(f':{item.line}:{item.column}:', 'position')} "
        f"{paint(visible(item.code), 'code')} {visible(item.message)}"
    )


def render_text(result: LintResult, presentation: Presentation = PLAIN) -> str:
    items: List[Union[Finding, FileProblem]] = sorted(
        [*result.findings, *result.problems],
        key=lambda i: (i.path, i.line, i.column, i.code),
    )
    return "".join(line_for(item, presentation) + "\n" for item in items)
