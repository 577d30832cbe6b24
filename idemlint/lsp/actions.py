"""Code actions: the fixes findings carry, and ``# noqa`` for a finding's line.

A fix is offered as the engine computed it (:class:`idemlint.fixes.Fix`),
a safe one as the preferred action, an unsafe one labelled so.  Both kinds
of action edit the text that was analysed, and name its version: a client
applies them only to that text.

The ``# noqa: IDMnnn`` comment goes where idemlint and flake8 read it: at
the end of the reported line, or of the line its statement continues to
when the line ends inside a string or with a backslash (no comment can go
there).  An existing comment on that line is kept: its ``# noqa: ...``
list gets the code appended, any other comment gets ``# noqa: IDMnnn``
after it.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, List, Optional, Sequence, Set, Tuple

from lsprotocol import types

from idemlint.escape import visible
from idemlint.fixes import Edit, Fix
from idemlint.lsp.analysis import Checked
from idemlint.lsp.convert import Places, finding_diagnostic
from idemlint.lsp.text import from_lsp, line_end, lines_of, to_lsp
from idemlint.noqa import NOQA_INLINE


def code_actions(
    checked: Checked, where: types.Range, context: types.CodeActionContext, places: Places, versioned: bool
) -> List[types.CodeAction]:
    """The quick fixes for the findings the range touches: each one's fix,
    then ``# noqa`` for each code on each line (once)."""
    if context.only and not any(
        types.CodeActionKind.QuickFix.value.startswith(kind) for kind in context.only
    ):
        return []
    text = checked.buffer.text
    lines = lines_of(text)
    start = from_lsp(lines, where.start.line, where.start.character, places.encoding)
    end = from_lsp(lines, where.end.line, where.end.character, places.encoding)
    touched = [
        f for f in checked.findings if (f.line, f.column) <= end and start <= (f.end_line, f.end_column)
    ]
    fixes: List[types.CodeAction] = []
    suppressions: List[types.CodeAction] = []
    comments = _Comments(text, lines)
    seen: Set[Tuple[int, str]] = set()
    for finding in touched:
        diagnostic = finding_diagnostic(finding, lines, places)
        if finding.suggestion is not None:
            fixes.append(_fix_action(checked, finding.suggestion, diagnostic, lines, places.encoding, versioned))
        edit = comments.noqa(finding.line, finding.code)
        if edit is not None and (edit.line, finding.code) not in seen:
            seen.add((edit.line, finding.code))
            suppressions.append(
                types.CodeAction(
                    title=f"Add `# noqa: {finding.code}` on line {edit.line}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    edit=_workspace_edit(checked, [edit], lines, places.encoding, versioned),
                )
            )
    return fixes + suppressions


def _fix_action(
    checked: Checked,
    fix: Fix,
    diagnostic: types.Diagnostic,
    lines: Sequence[str],
    encoding: str,
    versioned: bool,
) -> types.CodeAction:
    title = visible(fix.title) + ("" if fix.safe else " (unsafe)")
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=fix.safe,
        edit=_workspace_edit(checked, fix.edits, lines, encoding, versioned),
    )


def _workspace_edit(
    checked: Checked, edits: Sequence[Edit], lines: Sequence[str], encoding: str, versioned: bool
) -> types.WorkspaceEdit:
    text_edits: List[types.TextEdit] = []
    for edit in edits:
        start = types.Position(*to_lsp(lines, edit.line, edit.column, encoding))
        end = types.Position(*to_lsp(lines, edit.end_line, edit.end_column, encoding))
        text_edits.append(types.TextEdit(types.Range(start, end), edit.content))
    buffer = checked.buffer
    if versioned:
        document = types.OptionalVersionedTextDocumentIdentifier(uri=buffer.uri, version=buffer.version)
        changes: List[types.TextDocumentEdit] = [types.TextDocumentEdit(document, list(text_edits))]
        return types.WorkspaceEdit(document_changes=changes)  # type: ignore[arg-type]
    return types.WorkspaceEdit(changes={buffer.uri: text_edits})




def _codes_length(listed: str) -> int:
    """The length of a noqa comment's codes without the commas and space
    after the last one (a scan from the end: a pattern anchored at the end
    is retried from every position, quadratic in a run of spaces)."""
    end = len(listed)
    while end and (listed[end - 1] == "," or listed[end - 1].isspace()):
        end -= 1
    return end


class _Comments:
    """Where a ``# noqa`` comment can go in one text, read with Python's tokenizer."""

    def __init__(self, text: str, lines: Sequence[str]) -> None:
        self._lines = lines
        # Lines at whose end the tokenizer ends a line (NEWLINE or NL): a
        # comment can go there.  Others continue into the next line.
        self._ends: Optional[Set[int]] = set()
        self._comments: Dict[int, Tuple[int, str]] = {}
        try:
            for token in tokenize.generate_tokens(io.StringIO(text).readline):
                if token.type in (tokenize.NEWLINE, tokenize.NL):
                    self._ends.add(token.start[0])
                elif token.type == tokenize.COMMENT:
                    self._comments[token.start[0]] = (token.start[1], token.string)
        except (tokenize.TokenError, SyntaxError):
            self._ends = None  # a text Python cannot tokenize: only plain lines

    def noqa(self, line: int, code: str) -> Optional[Edit]:
        """The edit that makes ``# noqa`` on the line of ``line`` name
        ``code``; None when no comment can go there (or it names it)."""
        target = self._target(line)
        if target is None:
            return None
        content_end = line_end(self._lines, target)
        comment = self._comments.get(target)
        if comment is None:
            content = self._lines[target - 1][: content_end - 1]
            kept = len(content.rstrip(" \t")) + 1
            return Edit(target, kept, target, content_end, f"  # noqa: {code}")
        column, comment_text = comment
        match = NOQA_INLINE.search(comment_text)
        if match is None:
            return Edit(target, content_end, target, content_end, f"  # noqa: {code}")
        listed = match.group("codes")
        if not listed or code in re.split(r"[,\s]+", listed):
            return None  # a bare noqa, or the code listed already (written in another case)
        end = column + match.start("codes") + _codes_length(listed)
        # Columns: the tokenizer counts characters from 0, edits from 1.
        return Edit(target, end + 1, target, end + 1, f", {code}")

    def _target(self, line: int) -> Optional[int]:
        """The first line from ``line`` on where a comment can end the line."""
        if not 1 <= line <= len(self._lines):
            return None
        if self._ends is None:
            plain = self._lines[line - 1]
            if any(char in plain for char in "#'\"\\"):
                return None
            return line
        for candidate in range(line, len(self._lines) + 1):
            if candidate in self._ends:
                return candidate
        return None
