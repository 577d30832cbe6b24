"""Each finding as the comment a senior reviewer would leave on the line."""

from __future__ import annotations

import linecache
import textwrap
from typing import List

from idemlint.engine import LintResult
from idemlint.findings import Finding
from idemlint.report.text import line_for
from idemlint.report.meta import code_info

MAX_QUOTED_LINES = 6


def render_review(result: LintResult) -> str:
    for path in {finding.path for finding in result.findings}:
        linecache.checkcache(path)  # quote the file as it is now, not as first read
    parts = [_comment(finding) for finding in result.findings]
    parts += [line_for(problem) + "\n" for problem in result.problems]
    if result.findings:
        count = len(result.findings)
        parts.append(f"{count} finding{'s' if count != 1 else ''}.\n")
    return "\n".join(parts)


def _comment(finding: Finding) -> str:
    info = code_info(finding.code)
    # Configuration findings (IDM009) belong to no task.
    where = f"in task `{finding.task}`" if finding.task else "(configuration)"
    lines = [
        f"{finding.path}:{finding.line}:{finding.column}: {finding.code} "
        f"[{finding.rule}] {where}",
        *_quote(finding),
        "",
        *_wrap(finding.message),
        "",
        "  Why: " + _wrap(finding.why, indent="       ")[0].lstrip(),
        *_wrap(finding.why, indent="       ")[1:],
        "  Fix: " + _wrap(finding.fix, indent="       ")[0].lstrip(),
        *_wrap(finding.fix, indent="       ")[1:],
        "",
        "  For example:",
        textwrap.indent(info.use_instead.rstrip("\n"), "      "),
    ]
    return "\n".join(lines) + "\n"


def _quote(finding: Finding) -> List[str]:
    last = min(finding.end_line, finding.line + MAX_QUOTED_LINES - 1)
    width = len(str(last))
    quoted = []
    for number in range(finding.line, last + 1):
        text = linecache.getline(finding.path, number).rstrip("\r\n")
        quoted.append(f"  {number:>{width}} | {text}")
        if number == finding.line:
            quoted.append(f"  {'':>{width}} | {' ' * (finding.column - 1)}^")
    return quoted if any(linecache.getline(finding.path, n) for n in (finding.line,)) else []


def _wrap(text: str, indent: str = "  ") -> List[str]:
    return textwrap.wrap(text, width=88, initial_indent=indent, subsequent_indent=indent)
