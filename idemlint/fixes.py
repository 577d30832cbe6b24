"""Suggested changes a finding carries, and applying them to files.

A :class:`Fix` is a set of :class:`Edit` s (replace the text between two
positions) with a title and an applicability, as ruff's: *safe* when it
cannot change behaviour beyond what its rule is about (removing an unused
``# noqa``), *unsafe* when it changes behaviour on purpose and the user
reviews it.  ``idemlint check --fix`` applies the safe ones,
``--unsafe-fixes`` the others too, ``--fix-diff`` prints what they would
change.

A file is rewritten only when it still holds the text the fixes were
computed on and every edit made fits it (of two fixes that overlap, one is
made and the other left to the next analysis), through a temporary file in
its directory replaced atomically, with its mode and owner kept.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

SAFE = "safe"
UNSAFE = "unsafe"


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the text from (``line``, ``column``) up to (``end_line``,
    ``end_column``) with ``content``: lines 1-based, columns 1-based in
    characters, the end exclusive (an empty range inserts)."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str

    def as_dict(self) -> Dict[str, object]:
        return {
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "content": self.content,
        }


@dataclass(frozen=True, order=True)
class Fix:
    """A change that resolves one finding: ``title`` says what it does."""

    title: str
    applicability: str
    edits: Tuple[Edit, ...]
    # The content hash of the file the edits were computed on (empty: unknown).
    digest: str = ""

    @property
    def safe(self) -> bool:
        return self.applicability == SAFE

    def as_dict(self) -> Dict[str, object]:
        return {
            "title": self.title,
            "applicability": self.applicability,
            "edits": [edit.as_dict() for edit in self.edits],
        }


class FixConflict(ValueError):
    """The edits cannot be applied to the text (they overlap, or reach past it)."""


def apply(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with ``edits`` made, last first so that positions stay valid."""
    starts = _line_starts(text)
    spans = sorted((_offset(starts, text, e.line, e.column), _offset(starts, text, e.end_line, e.end_column), e) for e in edits)
    for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
        if start < end:
            raise FixConflict("two fixes change the same text")
    for start, end, edit in reversed(spans):
        if end < start:
            raise FixConflict("an edit ends before it starts")
        text = text[:start] + edit.content + text[end:]
    return text


def _line_starts(text: str) -> List[int]:
    starts = [0]
    for number, char in enumerate(text):
        if char == "\n":
            starts.append(number + 1)
    return starts


def _offset(starts: Sequence[int], text: str, line: int, column: int) -> int:
    if not 1 <= line <= len(starts):
        raise FixConflict(f"line {line} is past the end of the file")
    offset = starts[line - 1] + column - 1
    line_end = starts[line] if line < len(starts) else len(text)
    if column < 1 or offset > line_end:
        raise FixConflict(f"column {column} is past the end of line {line}")
    return offset


def chosen(fixes: Iterable[Optional[Fix]], unsafe: bool) -> List[Fix]:
    """The fixes to apply: the safe ones, and with ``unsafe`` the others too."""
    return [fix for fix in fixes if fix is not None and (fix.safe or unsafe)]


def fixed_text(text: str, fixes: Sequence[Fix]) -> str:
    return apply(text, (edit for fix in fixes for edit in fix.edits))


def unified_diff(path: str, before: str, after: str) -> str:
    """What ``--fix-diff`` prints for one file."""
    import difflib  # here: every run imports this module, few print diffs

    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )


def write_atomically(path: str, text: str, expected: bytes) -> None:
    """Replace ``path``'s content with ``text`` (UTF-8), unless it no longer
    holds ``expected`` (changed since it was read) or is a symbolic link:
    then ``OSError``.  The
    new content is written beside it and renamed over it, with its mode."""
    if os.path.islink(path):  # replacing it would turn the link into a file
        raise OSError(f"{path} is a symbolic link")
    with open(path, "rb") as handle:
        if handle.read() != expected:
            raise OSError(f"{path} changed while it was being checked")
    status = os.stat(path)
    mode = stat.S_IMODE(status.st_mode)
    # By its mode, not os.access: root may write anything, a read-only file is still meant to stay.
    if not mode & 0o222 or not os.access(path, os.W_OK):
        raise PermissionError(f"{path} is read-only")
    if status.st_nlink > 1:  # replacing it would split it from its other names
        raise OSError(f"{path} has other hard links")
    import tempfile  # here: every run imports this module, few fix files

    directory = os.path.dirname(os.path.abspath(path))
    handle_number, temporary = tempfile.mkstemp(prefix=".idemlint-fix-", dir=directory)
    try:
        with os.fdopen(handle_number, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(temporary, mode)
        if hasattr(os, "chown") and os.geteuid() == 0:
            os.chown(temporary, status.st_uid, status.st_gid)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


@dataclass(frozen=True)
class FileFixes:
    """What fixing one file did: ``before`` and ``after`` its text, how
    many fixes were applied, or why the file was left as it was."""

    path: str
    before: str
    after: str
    applied: int
    problem: Optional[str] = None


def plan(path: str, fixes: Sequence[Fix]) -> FileFixes:
    """The file's text with as many of ``fixes`` as do not overlap one
    another made, in the order of their first edits (those left out are
    found again by the next analysis); nothing, with a reason, when the
    file cannot be read as UTF-8 or an edit does not fit it."""
    from idemlint.cache import content_hash

    try:
        with open(path, "rb") as handle:
            raw = handle.read()
        before = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return FileFixes(path, "", "", 0, f"not fixed: {error}")
    if any(fix.digest and fix.digest != content_hash(raw) for fix in fixes):
        return FileFixes(path, before, before, 0, "not fixed: it changed after it was analysed")
    if re.search("\r(?!\n)", before):
        return FileFixes(path, before, before, 0, "not fixed: it ends lines with a lone carriage return")
    # Positions count from after a byte order mark, as the analysis read the file.
    mark = "\ufeff" if before.startswith("\ufeff") else ""
    body = before[len(mark) :]
    taken: List[Fix] = []
    for fix in sorted(fixes, key=lambda f: min(f.edits)):
        try:
            made = fixed_text(body, [*taken, fix])
        except FixConflict:
            continue
        if not _parses(made):  # a last line of defence: a fix never writes broken code
            continue
        taken.append(fix)
    if not taken and fixes:
        return FileFixes(path, before, before, 0, "not fixed: the fixes do not fit the file as it is")
    return FileFixes(path, before, mark + fixed_text(body, taken), len(taken))


def _parses(text: str) -> bool:
    """Whether the running Python parses ``text``."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<fixed>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def write(planned: FileFixes) -> Optional[str]:
    """Write a planned file; why not, when it cannot be."""
    if planned.problem is not None or planned.after == planned.before:
        return planned.problem
    try:
        write_atomically(planned.path, planned.after, planned.before.encode("utf-8"))
    except OSError as error:
        return f"not fixed: {error.strerror or error}"
    return None


def by_file(fixes: Iterable[Tuple[str, Fix]]) -> Dict[str, List[Fix]]:
    grouped: Dict[str, List[Fix]] = {}
    for path, fix in fixes:
        grouped.setdefault(path, []).append(fix)
    return grouped
