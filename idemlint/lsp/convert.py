"""Findings and file problems as LSP diagnostics; a rule's explanation as a hover.

A diagnostic carries the finding's code, a link to its rule's page
(``codeDescription``), and its related places (``relatedInformation``:
each task's call on the way to a helper, the check a race slips past).
Messages and notes quote the checked code, so they are escaped as the
text formats escape them (control characters, bidirectional overrides);
the hover's text is the rule's own.
"""

from __future__ import annotations

import os
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from lsprotocol import types

from idemlint.escape import visible
from idemlint.findings import FileProblem, Finding
from idemlint.lsp.analysis import Buffer, Checked
from idemlint.lsp.text import from_lsp, line_end, lines_of, to_lsp, uri_of
from idemlint.reading import decode, read_regular
from idemlint.report.meta import code_info

SOURCE = "idemlint"
# A file a related place is in is read (when no buffer holds it) only to
# count its columns in the client's units; a larger one is not.
_MAX_READ = 16 * 1024 * 1024


class Places:
    """Where a related place is for the client: its URI (the client's own
    for an open buffer) and its position in the units the client counts,
    from the buffer's text or the file's."""

    def __init__(self, buffers: Sequence[Buffer], encoding: str) -> None:
        self.encoding = encoding
        self._buffers: Dict[str, Buffer] = {}
        for buffer in buffers:
            self._buffers.setdefault(buffer.path, buffer)
        self._files: Dict[str, Tuple[str, Optional[List[str]]]] = {}

    def location(self, path: str, line: int, column: int) -> types.Location:
        uri, lines = self._file(path)
        if lines is None:  # unreadable: characters are the best guess
            position = types.Position(max(line - 1, 0), max(column - 1, 0))
        else:
            position = types.Position(*to_lsp(lines, line, column, self.encoding))
        return types.Location(uri, types.Range(position, position))

    def _file(self, path: str) -> Tuple[str, Optional[List[str]]]:
        absolute = os.path.abspath(path)
        if absolute not in self._files:
            buffer = self._buffers.get(absolute)
            if buffer is not None:
                self._files[absolute] = (buffer.uri, lines_of(buffer.text))
            else:
                self._files[absolute] = (uri_of(absolute), _read_lines(absolute))
        return self._files[absolute]


def _read_lines(path: str) -> Optional[List[str]]:
    try:
        text = decode(read_regular(path, _MAX_READ), path)
    except OSError:
        return None
    return None if isinstance(text, FileProblem) else lines_of(text)


def diagnostics(checked: Checked, places: Places) -> List[types.Diagnostic]:
    """The diagnostics of one buffer, in the order of their positions."""
    lines = lines_of(checked.buffer.text)
    found = [_problem(problem, lines, places.encoding) for problem in checked.problems]
    found += [finding_diagnostic(finding, lines, places) for finding in checked.findings]
    return sorted(found, key=lambda d: (d.range.start.line, d.range.start.character, str(d.code)))


def finding_range(finding: Finding, lines: Sequence[str], encoding: str) -> types.Range:
    start = to_lsp(lines, finding.line, finding.column, encoding)
    end = to_lsp(lines, finding.end_line, finding.end_column, encoding)
    return types.Range(types.Position(*start), types.Position(*max(start, end)))


def finding_diagnostic(finding: Finding, lines: Sequence[str], places: Places) -> types.Diagnostic:
    related = [
        types.DiagnosticRelatedInformation(places.location(p.path, p.line, p.column), visible(p.note))
        for p in finding.related
    ]
    return types.Diagnostic(
        range=finding_range(finding, lines, places.encoding),
        message=visible(finding.message),
        severity=types.DiagnosticSeverity.Warning,
        code=finding.code,
        code_description=types.CodeDescription(href=code_info(finding.code).help_url),
        source=SOURCE,
        related_information=related or None,
    )


def _problem(problem: FileProblem, lines: Sequence[str], encoding: str) -> types.Diagnostic:
    """A file that could not be analysed: from where it stopped to the end of that line."""
    start = to_lsp(lines, problem.line, problem.column, encoding)
    end = to_lsp(lines, problem.line, line_end(lines, problem.line), encoding)
    return types.Diagnostic(
        range=types.Range(types.Position(*start), types.Position(*max(start, end))),
        message=visible(problem.message),
        severity=types.DiagnosticSeverity.Error,
        code=problem.code,
        source=SOURCE,
    )


def findings_at(checked: Checked, line: int, character: int, encoding: str) -> List[Finding]:
    """The findings whose range holds the client's position (an empty
    range holds its start)."""
    at = from_lsp(lines_of(checked.buffer.text), line, character, encoding)
    return [
        f
        for f in checked.findings
        if (f.line, f.column) <= at < (f.end_line, f.end_column) or (f.line, f.column) == at
    ]


def hover(checked: Checked, position: types.Position, encoding: str, markdown: bool) -> Optional[types.Hover]:
    """What the rules of the findings under the cursor find, why it matters, how to fix it."""
    found = findings_at(checked, position.line, position.character, encoding)
    if not found:
        return None
    render: Callable[[str], str] = _markdown if markdown else _plain
    text = ("\n\n---\n\n" if markdown else "\n\n").join(render(code) for code in dict.fromkeys(f.code for f in found))
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    lines = lines_of(checked.buffer.text)
    return types.Hover(types.MarkupContent(kind, text), finding_range(found[0], lines, encoding))


def _markdown(code: str) -> str:
    info = code_info(code)
    return (
        f"**{info.code}** `{info.name}`: {info.summary}\n\n"
        f"**Why it matters.** {info.why}\n\n"
        f"**Fix.** {info.fix}\n\n"
        f"[{info.code} documentation]({info.help_url})"
    )


def _plain(code: str) -> str:
    info = code_info(code)
    return f"{info.code} {info.name}: {info.summary}\n\nWhy it matters. {info.why}\n\nFix. {info.fix}\n\n{info.help_url}"
