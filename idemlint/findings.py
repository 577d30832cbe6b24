"""The values the engine produces: findings and per-file problems."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from idemlint.fixes import Fix

# How many tasks a message names before it counts the rest.
TASKS_NAMED = 2


@dataclass(frozen=True, order=True)
class Related:
    """A place that explains a finding: a task's call on the way to it, a
    hop between helpers, the check a race slips past.  Line and column are
    1-based, as in :class:`Finding`."""

    path: str
    line: int
    column: int
    note: str

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "column": self.column, "note": self.note}


# Why a call was not followed (:class:`UnfollowedCall`): past the share of a
# task's event budget the call was given (there is no depth limit).
PAST_EVENTS = "events"
UNFOLLOWED_REASONS = (PAST_EVENTS,)


@dataclass(frozen=True, order=True)
class UnfollowedCall:
    """A call the analysis did not follow, or followed only in part,
    because a budget ran out: ``reason`` is :data:`PAST_EVENTS`.  A call
    is named by its module's path, the
    function making it (dotted within the module) and its code, not by its
    position: positioning every call cut costs more than counting them is
    worth (two calls of the same code in one function count once)."""

    path: str
    function: str
    call: str
    reason: str


@dataclass(frozen=True, order=True)
class Finding:
    """One review comment on one line of one file.

    Lines are 1-based, columns 1-based (the flake8/ruff text convention).
    ``tasks`` names (dotted, as ``idemlint tasks`` lists them, sorted) every
    task whose execution reaches the reported code; ``callers`` those of
    them that reach it through calls, which the message names at its end
    (see :func:`reach_suffix`); ``task`` is the short name of the task the
    message was written for.  ``related`` holds each caller's own call that
    leads here, the hops between, and rule-specific places, sorted.
    """

    path: str
    line: int
    column: int
    code: str
    end_line: int
    end_column: int
    rule: str
    message: str
    why: str
    fix: str
    task: str
    tasks: Tuple[str, ...] = ()
    callers: Tuple[str, ...] = ()
    related: Tuple[Related, ...] = ()
    # The change that resolves it, when the rule can make one here.
    suggestion: Optional[Fix] = field(default=None, compare=False)

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "rule": self.rule,
            "message": self.message,
            "why": self.why,
            "fix": self.fix,
            "task": self.task,
            "tasks": list(self.tasks),
            "related": [place.as_dict() for place in self.related],
            "suggestion": self.suggestion.as_dict() if self.suggestion is not None else None,
        }


def reach_suffix(callers: Sequence[str]) -> str:
    """What a message ends with for the tasks that reach it through calls:
    `` (called from tasks `a`, `b` and 3 more)``; empty without one."""
    if not callers:
        return ""
    named = [f"`{name}`" for name in callers[:TASKS_NAMED]]
    rest = len(callers) - len(named)
    if len(callers) == 1:
        return f" (called from task {named[0]})"
    if rest == 0:
        return f" (called from tasks {', '.join(named[:-1])} and {named[-1]})"
    return f" (called from tasks {', '.join(named)} and {rest} more)"


def base_message(finding: Finding) -> str:
    """The message without what :func:`reach_suffix` added to it."""
    suffix = reach_suffix(finding.callers)
    if suffix and finding.message.endswith(suffix):
        return finding.message[: -len(suffix)]
    return finding.message


def merged(findings: Iterable[Finding]) -> List[Finding]:
    """One finding per place and code, naming every task that reaches it.

    The message, ``task`` and end position are those of the finding whose
    first task sorts first (whatever order the findings come in, so whatever
    the order of the files or of the worker processes); tasks, callers and
    related places are the sorted union.  The result is sorted by place.
    """
    groups: Dict[Tuple[str, int, int, str], List[Finding]] = {}
    for finding in findings:
        groups.setdefault((finding.path, finding.line, finding.column, finding.code), []).append(finding)
    return [_merged_group(group) for _, group in sorted(groups.items())]


def _merged_group(group: List[Finding]) -> Finding:
    first = min(group, key=lambda f: (f.tasks, f.task, f.message, f.end_line, f.end_column))
    if len(group) == 1:
        return first
    callers = tuple(sorted({name for f in group for name in f.callers}))
    return replace(
        first,
        message=base_message(first) + reach_suffix(callers),
        tasks=tuple(sorted({name for f in group for name in f.tasks})),
        callers=callers,
        related=tuple(sorted({place for f in group for place in f.related})),
    )


@dataclass(frozen=True, order=True)
class FileProblem:
    """A file that could not be analysed: unreadable, undecodable or unparsable.

    ``code`` is ``E902`` for an input/output problem and ``E999`` for a file
    that is not valid Python, the codes flake8 uses for the same situations.
    """

    path: str
    line: int
    column: int
    code: str
    message: str

    # A problem is a place, not a range: it ends where it starts.
    @property
    def end_line(self) -> int:
        return self.line

    @property
    def end_column(self) -> int:
        return self.column
