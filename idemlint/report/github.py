"""GitHub Actions workflow commands: one annotation per finding.

Every value from the checked repository goes through :func:`visible` first
(the runner prints the command in the job log, where an escape sequence
would reach the reader's terminal or browser rendering), then through the
escaping of actions/toolkit (``escapeData``, ``escapeProperty``), so a
``%``, ``:``, ``,`` or line break in a file name or message cannot end a
field early or forge another command.  Paths are relative to the repository
root, where the runner resolves them; a file outside it cannot carry an
annotation, so its finding is an annotation without a file that names the
path in its message (shown in the run's summary, never dropped).
"""

from __future__ import annotations

import os
from typing import List, Tuple, Union

from idemlint.engine import LintResult
from idemlint.findings import FileProblem, Finding
from idemlint.git import report_root
from idemlint.escape import visible
from idemlint.report.meta import code_info
from idemlint.report.source import ReportPaths


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result: LintResult) -> str:
    paths = ReportPaths.under(report_root())
    lines = [_finding_command(finding, paths) for finding in result.findings]
    lines += [_problem_command(problem, paths) for problem in result.problems]
    return "".join(line + "\n" for line in lines)


def _finding_command(finding: Finding, paths: ReportPaths) -> str:
    info = code_info(finding.code)
    properties = [
        ("line", str(finding.line)),
        ("col", str(finding.column)),
        ("endLine", str(finding.end_line)),
    ]
    # GitHub honours an end column only when the annotation spans one line.
    if finding.end_line == finding.line:
        properties.append(("endColumn", str(finding.end_column)))
    title = f"{visible(finding.code)} {info.name}"
    message = f"{visible(finding.message)}\n\nFix: {visible(info.fix)}"
    return _command("warning", finding, paths, properties, title, message)


def _problem_command(problem: FileProblem, paths: ReportPaths) -> str:
    properties = [("line", str(problem.line)), ("col", str(problem.column))]
    return _command(
        "error", problem, paths, properties, visible(problem.code), visible(problem.message)
    )


def _command(
    kind: str,
    item: Union[Finding, FileProblem],
    paths: ReportPaths,
    position: List[Tuple[str, str]],
    title: str,
    message: str,
) -> str:
    relative = paths.inside(item.path)
    if relative is None:
        # No file to annotate: the location moves into the message.
        where = f"{visible(os.path.abspath(item.path))}:{item.line}:{item.column}"
        properties = [("title", title)]
        message = f"{where}: {message}"
    else:
        properties = [("file", visible(relative)), *position, ("title", title)]
    fields = ",".join(f"{name}={escape_property(value)}" for name, value in properties)
    return f"::{kind} {fields}::{escape_data(message)}"
