"""GitHub Actions workflow commands: one annotation per finding.

Escaping follows actions/toolkit (``escapeData``, ``escapeProperty``), so a
``%``, ``:``, ``,`` or line break in a file name or message cannot end a
field early or forge another command.  Paths are relative to the repository
root, where the runner resolves them.
"""

from __future__ import annotations

from typing import Callable, List, Tuple

from idemlint.engine import LintResult
from idemlint.findings import FileProblem, Finding
from idemlint.git import report_root
from idemlint.report.meta import code_info
from idemlint.report.source import relative_to


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result: LintResult) -> str:
    relative = relative_to(report_root())
    lines = [_finding_command(finding, relative) for finding in result.findings]
    lines += [_problem_command(problem, relative) for problem in result.problems]
    return "".join(line + "\n" for line in lines)


def _finding_command(finding: Finding, relative: Callable[[str], str]) -> str:
    info = code_info(finding.code)
    properties = [
        ("file", relative(finding.path)),
        ("line", str(finding.line)),
        ("col", str(finding.column)),
        ("endLine", str(finding.end_line)),
    ]
    # GitHub honours an end column only when the annotation spans one line.
    if finding.end_line == finding.line:
        properties.append(("endColumn", str(finding.end_column)))
    properties.append(("title", f"{finding.code} {info.name}"))
    return _command("warning", properties, f"{finding.message}\n\nFix: {info.fix}")


def _problem_command(problem: FileProblem, relative: Callable[[str], str]) -> str:
    properties = [
        ("file", relative(problem.path)),
        ("line", str(problem.line)),
        ("col", str(problem.column)),
        ("title", problem.code),
    ]
    return _command("error", properties, problem.message)


def _command(kind: str, properties: List[Tuple[str, str]], message: str) -> str:
    fields = ",".join(f"{name}={escape_property(value)}" for name, value in properties)
    return f"::{kind} {fields}::{escape_data(message)}"
