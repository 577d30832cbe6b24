"""Each finding as the comment a senior reviewer would leave on the line.

Everything taken from the checked repository (the path, the task, the
message and the quoted source lines) is printed through :func:`visible`, so
a source line holding an escape sequence or a bidirectional override is
shown, not obeyed.
"""

from __future__ import annotations

import difflib
import textwrap
from dataclasses import replace
from typing import List

from idemlint.engine import LintResult
from idemlint.findings import Finding
from idemlint.fixes import FixConflict, apply
from idemlint.escape import visible
from idemlint.report.meta import code_info
from idemlint.report.source import source_lines
from idemlint.report.terminal import PLAIN, Presentation
from idemlint.report.text import line_for

MAX_QUOTED_LINES = 6
# Tasks named in a comment's header and related places listed under it; the
# rest are counted (JSON and SARIF list them all).
MAX_LISTED = 8


def render_review(result: LintResult, presentation: Presentation = PLAIN) -> str:
    parts = [_comment(finding, presentation) for finding in result.findings]
    parts += [line_for(problem, presentation) + "\n" for problem in result.problems]
    if result.findings:
        count = len(result.findings)
        parts.append(f"{count} finding{'s' if count != 1 else ''}.\n")
    return "\n".join(parts)


def _comment(finding: Finding, presentation: Presentation) -> str:
    info = code_info(finding.code)
    where = _tasks(finding)
    width = presentation.width
    why = _wrap(visible(finding.why), width, indent="       ")
    fix = _wrap(visible(finding.fix), width, indent="       ")
    heading = presentation.paint
    lines = [
        f"{line_for(replace(finding, message=''), presentation)}[{visible(finding.rule)}] {where}",
        *_quote(finding),
        "",
        *_wrap(visible(finding.message), width),
        "",
        *_related(finding),
        heading("  Why:", "heading") + " " + why[0].lstrip(),
        *why[1:],
        heading("  Fix:", "heading") + " " + fix[0].lstrip(),
        *fix[1:],
        "",
        *_suggested(finding, presentation),
        "  For example:",
        textwrap.indent(info.use_instead.rstrip("\n"), "      "),
    ]
    return "\n".join(lines) + "\n"


def _suggested(finding: Finding, presentation: Presentation) -> List[str]:
    """The change the finding carries, as a diff of the lines it touches."""
    suggestion = finding.suggestion
    if suggestion is None:
        return []
    lines = source_lines(finding.path)
    first = min(edit.line for edit in suggestion.edits)
    last = min(max(edit.end_line for edit in suggestion.edits), len(lines))
    if not lines or first > len(lines) + 1:
        return []
    shifted = [replace(edit, line=edit.line - first + 1, end_line=edit.end_line - first + 1) for edit in suggestion.edits]
    before = "".join(lines[first - 1 : last])
    try:
        after = apply(before, shifted)
    except FixConflict:
        return []
    applicability = "" if suggestion.safe else " (unsafe: review it)"
    changed = difflib.ndiff(before.splitlines(), after.splitlines())
    styles = {"-": "removed", "+": "added"}
    diff = [
        presentation.paint(f"      {line[0]} {visible(line[2:])}", styles[line[0]])
        for line in changed
        if line[:1] in styles
    ]
    return [f"  Suggested change{applicability}: {visible(suggestion.title)}", *diff, ""]


def _tasks(finding: Finding) -> str:
    # Configuration findings (IDM009) belong to no task.
    if not finding.tasks:
        return f"in task `{visible(finding.task)}`" if finding.task else "(configuration)"
    named = ", ".join(f"`{visible(name)}`" for name in finding.tasks[:MAX_LISTED])
    more = len(finding.tasks) - MAX_LISTED
    plural = "s" if len(finding.tasks) > 1 else ""
    return f"in task{plural} {named}" + (f" and {more} more" if more > 0 else "")


def _related(finding: Finding) -> List[str]:
    """The related places as a short list: ``path:line:col  note``."""
    if not finding.related:
        return []
    lines = ["  Related:"]
    for place in finding.related[:MAX_LISTED]:
        lines.append(f"    {visible(place.path)}:{place.line}:{place.column}  {visible(place.note)}")
    more = len(finding.related) - MAX_LISTED
    if more > 0:
        lines.append(f"    and {more} more (see the JSON or SARIF output)")
    return [*lines, ""]


def _quote(finding: Finding) -> List[str]:
    # The file as it is now, split as the engine splits it; never linecache,
    # which looks a relative name up on sys.path when the file is gone.
    lines = source_lines(finding.path)
    if not 0 < finding.line <= len(lines):
        return []
    last = min(finding.end_line, finding.line + MAX_QUOTED_LINES - 1, len(lines))
    width = len(str(last))
    quoted = []
    for number in range(finding.line, last + 1):
        text = lines[number - 1].rstrip("\r\n")
        quoted.append(f"  {number:>{width}} | {visible(text)}")
        if number == finding.line:
            # The caret stays under the column when escapes widen the text before it.
            offset = len(visible(text[: finding.column - 1]))
            quoted.append(f"  {'':>{width}} | {' ' * offset}^")
    return quoted


def _wrap(text: str, width: int, indent: str = "  ") -> List[str]:
    return textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=indent)
