"""The values the engine produces: findings and per-file problems."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Finding:
    """One review comment on one line of one file.

    Lines are 1-based, columns 1-based (the flake8/ruff text convention).
    ``task`` names the task whose execution reaches the reported code.
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
        }


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
