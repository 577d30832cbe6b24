"""The source a finding points at, and identities that survive line shifts.

A fingerprint (SARIF, GitLab) and a baseline entry name a finding by what it
is, not where it is: its file, code, task and the offending source with
whitespace collapsed, plus an occurrence number when the same text offends
twice in one file.  Inserting a line above a finding changes its line
number, not its identity.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
from functools import lru_cache
from typing import Callable, Dict, List, Sequence, Tuple

from idemlint.findings import Finding
from idemlint.reading import read_regular

_WHITESPACE = re.compile(r"\s+")


def source_lines(path: str) -> List[str]:
    """The file's lines as the engine split them ([] when it cannot be read)."""
    try:
        status = os.stat(path)
    except OSError:
        return []
    return list(_lines(os.path.realpath(path), status.st_mtime_ns, status.st_size))


@lru_cache(maxsize=64)
def _lines(path: str, mtime_ns: int, size: int) -> Tuple[str, ...]:
    from idemlint.project import decode

    try:
        text = decode(read_regular(path), path)
    except OSError:
        return ()
    if not isinstance(text, str):
        return ()
    return tuple(io.StringIO(text, newline="").readlines())


def offending_source(finding: Finding) -> str:
    """The reported lines, whitespace collapsed (what a baseline matches on)."""
    lines = source_lines(finding.path)
    reported = lines[finding.line - 1 : max(finding.end_line, finding.line)]
    return _WHITESPACE.sub(" ", "".join(reported)).strip()


def source_hash(finding: Finding) -> str:
    return hashlib.sha256(offending_source(finding).encode("utf-8")).hexdigest()[:16]


Identity = Tuple[str, str, str, str]


def identities(
    findings: Sequence[Finding], relative: Callable[[str], str]
) -> List[Tuple[Identity, int]]:
    """For each finding: (path, code, task, source hash) and its occurrence
    number among findings with the same identity (0 for the first)."""
    seen: Dict[Identity, int] = {}
    result = []
    for finding in findings:
        identity = (relative(finding.path), finding.code, finding.task, source_hash(finding))
        occurrence = seen.get(identity, 0)
        seen[identity] = occurrence + 1
        result.append((identity, occurrence))
    return result


def fingerprints(findings: Sequence[Finding], relative: Callable[[str], str]) -> List[str]:
    """One stable hash per finding, in the order given."""
    return [
        hashlib.sha256("\0".join([*identity, str(occurrence)]).encode("utf-8")).hexdigest()
        for identity, occurrence in identities(findings, relative)
    ]


def relative_to(root: str) -> Callable[[str], str]:
    """``path`` relative to ``root`` with forward slashes (the form reports use)."""
    real_root = os.path.realpath(root)

    def relative(path: str) -> str:
        return os.path.relpath(os.path.realpath(path), real_root).replace(os.sep, "/")

    return relative


def utf8_column(finding_path: str, line: int, column: int) -> int:
    """A 1-based character column as a 1-based UTF-8 byte column."""
    lines = source_lines(finding_path)
    if not 0 < line <= len(lines):
        return column
    return len(lines[line - 1][: column - 1].encode("utf-8")) + 1
