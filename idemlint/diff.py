"""Which lines a change touched: ``--diff REV`` (git) or ``--diff -`` (a unified diff).

Analysis still covers the whole project (a changed helper can create a
finding in a task); only reporting is narrowed to the touched lines: those
of a finding, or of one of its related places (each task's call on the way
to a finding in a helper, the hops between, the check a race slips past).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, Optional, Set, Tuple

from idemlint.findings import FileProblem, Finding
from idemlint.git import GitError, neutral_filters, repo_root, run_git

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,(?P<count>\d+))? @@")


class DiffError(Exception):
    """No repository, an unknown revision or an unreadable diff; one line for the user."""


@dataclass(frozen=True)
class ChangedLines:
    """Real paths of touched files and their added or changed lines."""

    lines: Dict[str, FrozenSet[int]]
    whole_files: FrozenSet[str] = frozenset()  # untracked: every line is new

    def touches_file(self, path: str) -> bool:
        real = os.path.realpath(path)
        return real in self.lines or real in self.whole_files

    def touches(self, finding: Finding) -> bool:
        """Whether the change touches the finding's lines or the line of one
        of its related places: a task added that calls a helper with a
        finding brings that finding into the change."""
        if self._touches_lines(finding.path, finding.line, max(finding.end_line, finding.line)):
            return True
        return any(self._touches_lines(place.path, place.line, place.line) for place in finding.related)

    def _touches_lines(self, path: str, first: int, last: int) -> bool:
        real = os.path.realpath(path)
        if real in self.whole_files:
            return True
        touched = self.lines.get(real, frozenset())
        return any(line in touched for line in range(first, last + 1))

    def keep_findings(self, findings: Iterable[Finding]) -> Tuple[Finding, ...]:
        return tuple(f for f in findings if self.touches(f))

    def keep_problems(self, problems: Iterable[FileProblem]) -> Tuple[FileProblem, ...]:
        return tuple(p for p in problems if self.touches_file(p.path))


def changed_since(revision: str, paths: Iterable[str]) -> ChangedLines:
    """Lines changed in the work tree since ``revision``, in the repository of ``paths``."""
    first = next(iter(paths), ".")
    start = first if os.path.isdir(first) else os.path.dirname(os.path.abspath(first))
    root = repo_root(start)
    if root is None:
        raise DiffError(f"--diff {revision}: {first} is not inside a git repository")
    try:
        run_git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}"], root)
    except GitError:
        raise DiffError(f"--diff: unknown git revision {revision!r}") from None
    try:
        diff = run_git(
            # --text: a `-diff` or `binary` attribute in the repository's own
            # .gitattributes would otherwise reduce a changed file to "Binary
            # files differ", with no lines, and hide its findings.
            [*neutral_filters(root), "-c", "core.quotePath=false", "diff", "--unified=0",
             "--text", "--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=all",
             "--no-renames", "--src-prefix=a/", "--dst-prefix=b/", revision, "--"],
            root,
        )
        untracked = run_git(["ls-files", "-z", "--others", "--exclude-standard"], root)
    except GitError as error:
        raise DiffError(f"--diff {revision}: {error}") from None
    changed = parse_unified_diff(diff, root)
    return ChangedLines(
        lines=changed.lines,
        whole_files=frozenset(
            os.path.realpath(os.path.join(root, name)) for name in untracked.split("\0") if name
        ),
    )


def changed_in_patch(patch: str) -> ChangedLines:
    """Lines a unified diff (``git diff`` output, read from stdin) adds or changes.

    Its paths are relative to the repository root, or to the current directory
    outside a repository.
    """
    return parse_unified_diff(patch, repo_root(os.getcwd()) or os.getcwd())


def parse_unified_diff(patch: str, root: str) -> ChangedLines:
    lines: Dict[str, Set[int]] = {}
    current: Optional[Set[int]] = None
    for text in patch.splitlines():
        if text.startswith("+++ "):
            name = _target_name(text[4:])
            current = None if name is None else lines.setdefault(
                os.path.realpath(os.path.join(root, name)), set()
            )
            continue
        match = _HUNK.match(text)
        if match is None or current is None:
            continue
        start = int(match.group("start"))
        count = int(match.group("count") or 1)
        if count:
            current.update(range(start, start + count))
        else:  # a pure deletion: the lines on either side of it changed meaning
            current.update((start, start + 1))
    return ChangedLines(lines={path: frozenset(numbers) for path, numbers in lines.items()})


def _target_name(field: str) -> Optional[str]:
    """The new file's name from a ``+++`` line; None for a deleted file."""
    field = field.rstrip("\n").split("\t")[0]
    if field.startswith('"') and field.endswith('"') and len(field) > 1:
        field = _unquoted(field[1:-1])
    if field == "/dev/null":
        return None
    return field[2:] if field.startswith("b/") else field


# git's C-style quoting of a name holding a quote, a backslash or a control
# character (and, unless core.quotePath is false, any byte above 0x7f): these
# escapes and three-digit octal bytes; other bytes stand for themselves.
_QUOTED = re.compile(rb'\\([0-7]{3}|[abtnvfr"\\])')
_ESCAPES = {b"a": b"\a", b"b": b"\b", b"t": b"\t", b"n": b"\n", b"v": b"\v", b"f": b"\f",
            b"r": b"\r", b'"': b'"', b"\\": b"\\"}


def _unquoted(quoted: str) -> str:
    def byte(match: "re.Match[bytes]") -> bytes:
        escape = match.group(1)
        return bytes([int(escape, 8) & 0xFF]) if len(escape) == 3 else _ESCAPES[escape]

    raw = _QUOTED.sub(byte, quoted.encode("utf-8", "surrogateescape"))
    return raw.decode("utf-8", "surrogateescape")
