"""The source a finding points at, and identities that survive line shifts.

A fingerprint (SARIF, GitLab, JSON) and a baseline entry name a finding by
what it is, not where it is: its file, code and the offending source with
whitespace collapsed, plus an occurrence number when the same text offends
twice in one file.  A file that could not be analysed is named the same way,
by the line its problem is on (none, for a file that cannot be read).  Inserting a line above a finding changes its line
number, not its identity; nor does a task that starts (or stops) reaching
it: the place is what needs the fix, whichever tasks run it.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Dict, List, Optional, Protocol, Sequence, Tuple
from idemlint.escape import valid_unicode
from idemlint.reading import decode, read_regular

_WHITESPACE = re.compile(r"\s+")


def source_lines(path: str) -> List[str]:
    """The file's lines as the engine split them ([] when it cannot be read)."""
    try:
        status = os.stat(path)
    except OSError:
        return []
    if not stat.S_ISREG(status.st_mode):  # a FIFO would block, a device never end
        return []
    return list(_lines(os.path.realpath(path), status.st_mtime_ns, status.st_size))


@lru_cache(maxsize=64)
def _lines(path: str, mtime_ns: int, size: int) -> Tuple[str, ...]:
    try:
        text = decode(read_regular(path), path)
    except OSError:
        return ()
    if not isinstance(text, str):
        return ()
    return tuple(io.StringIO(text, newline="").readlines())


class Reported(Protocol):
    """What has an identity: a :class:`idemlint.findings.Finding` or a
    :class:`idemlint.findings.FileProblem`."""

    @property
    def path(self) -> str: ...

    @property
    def code(self) -> str: ...

    @property
    def line(self) -> int: ...

    @property
    def end_line(self) -> int: ...


def offending_source(finding: Reported) -> str:
    """The reported lines, whitespace collapsed (what a baseline matches on)."""
    lines = source_lines(finding.path)
    reported = lines[finding.line - 1 : max(finding.end_line, finding.line)]
    return _WHITESPACE.sub(" ", "".join(reported)).strip()


def source_hash(finding: Reported) -> str:
    return hashlib.sha256(offending_source(finding).encode("utf-8")).hexdigest()[:16]


Identity = Tuple[str, str, str]


def identities(
    findings: Sequence[Reported], relative: Callable[[str], str]
) -> List[Tuple[Identity, int]]:
    """For each finding: (path, code, source hash) and its occurrence
    number among findings with the same identity (0 for the first)."""
    seen: Dict[Identity, int] = {}
    result = []
    for finding in findings:
        # valid_unicode: an undecodable file-name byte must not stop a baseline being written.
        path = valid_unicode(relative(finding.path))
        identity = (path, finding.code, source_hash(finding))
        occurrence = seen.get(identity, 0)
        seen[identity] = occurrence + 1
        result.append((identity, occurrence))
    return result


def fingerprints(findings: Sequence[Reported], relative: Callable[[str], str]) -> List[str]:
    """One stable hash per finding, in the order given."""
    return [
        hashlib.sha256("\0".join([*identity, str(occurrence)]).encode("utf-8")).hexdigest()
        for identity, occurrence in identities(findings, relative)
    ]


@dataclass(frozen=True)
class ReportPaths:
    """Where reports say a file is: relative to a root, as the user named it.

    The path a file was named or found by is kept as it is, symbolic links
    included: ``repo/helpers.py`` linked to ``../elsewhere/helpers.py`` is
    reported as ``helpers.py``, where the reader (and GitHub, GitLab,
    reviewdog) looks for it.  Only the directories above the file are
    resolved, and only when the path as named is not under the root, which
    happens when the root was reached through a link (``/tmp`` and
    ``/private/tmp``).  A file outside the root has no relative path: each
    format says what it does with it.
    """

    root: str
    real_root: str

    @classmethod
    def under(cls, root: str) -> "ReportPaths":
        return cls(root=os.path.abspath(root), real_root=os.path.realpath(root))

    def inside(self, path: str) -> Optional[str]:
        """``path`` relative to the root with forward slashes, or None when it is outside."""
        named = os.path.abspath(path)
        for candidate, base in (
            (named, self.root),
            (named, self.real_root),
            (_with_real_directory(named), self.real_root),
        ):
            relative = _within(candidate, base)
            if relative is not None:
                return relative
        return None

    def inside_from(self, path: str, directory: str) -> Optional[str]:
        """``path`` relative to ``directory`` (a directory under the root, ``..``
        allowed), or None when the file is outside the root."""
        inside = self.inside(path)
        if inside is None:
            return None
        located = os.path.join(self.real_root, *inside.split("/"))
        return os.path.relpath(located, os.path.realpath(directory)).replace(os.sep, "/")

    def relative(self, path: str) -> str:
        """``path`` relative to the root, with ``..`` when it is outside (for identities)."""
        inside = self.inside(path)
        if inside is not None:
            return inside
        outside = _with_real_directory(os.path.abspath(path))
        try:
            return os.path.relpath(outside, self.real_root).replace(os.sep, "/")
        except ValueError:  # another drive: no relative path exists
            return outside.replace(os.sep, "/")


def _with_real_directory(path: str) -> str:
    """``path`` with the directories above it resolved, its own name kept."""
    directory, name = os.path.split(path)
    return os.path.join(os.path.realpath(directory), name)


def _within(path: str, base: str) -> Optional[str]:
    try:
        relative = os.path.relpath(path, base)
    except ValueError:  # another drive
        return None
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return None
    return relative.replace(os.sep, "/")


def relative_to(root: str) -> Callable[[str], str]:
    """``path`` relative to ``root`` with forward slashes (the form identities use)."""
    return ReportPaths.under(root).relative


def utf8_column(finding_path: str, line: int, column: int) -> int:
    """A 1-based character column as a 1-based UTF-8 byte column."""
    lines = source_lines(finding_path)
    if not 0 < line <= len(lines):
        return column
    return len(lines[line - 1][: column - 1].encode("utf-8")) + 1
