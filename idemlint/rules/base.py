"""What a rule is: metadata for docs and reports, and a check over a trace."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterator

import libcst as cst

from idemlint.analysis import Event, Trace
from idemlint.effects import Knowledge
from idemlint.tasks import Decorators, ModuleIndex


@dataclass(frozen=True)
class Violation:
    """A rule's raw result: the node to report and the finding's message."""

    node: cst.CSTNode
    message: str


class Rule:
    """A rule: one code and its documentation.

    ``why`` and ``fix`` follow ruff's documentation sections ("Why is this
    bad?", "Use instead"); ``example`` and ``use_instead`` are code.  The
    README table, ``docs/rules/`` and ``idemlint explain`` are generated from
    these attributes.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    what: ClassVar[str]
    why: ClassVar[str]
    fix: ClassVar[str]
    example: ClassVar[str]
    use_instead: ClassVar[str]
    limits: ClassVar[str] = ""


class TaskRule(Rule):
    """A rule over what one task does: :meth:`check` reads the task's trace."""

    def check(self, trace: Trace, knowledge: Knowledge) -> Iterator[Violation]:
        raise NotImplementedError


class ModuleRule(Rule):
    """A rule over module-level code (configuration), outside any task."""

    def check_module(
        self, module: cst.Module, index: ModuleIndex, task_decorators: Decorators
    ) -> Iterator[Violation]:
        """``task_decorators``: configured decorators and the project's wrappers."""
        raise NotImplementedError


def where(event: Event, task: str) -> str:
    """Where the event runs, for messages: the task, or the helper and its call chain."""
    scope = event.scope
    if scope.is_task:
        return f"task `{task}`"
    return f"`{scope.chain[-1]}` (called from task `{task}`: {' -> '.join(scope.chain)})"
