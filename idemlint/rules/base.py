"""What a rule is: metadata for docs and reports, and a check over a trace."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterator, Optional, Tuple

import libcst as cst

from idemlint.semantic.trace import Event
from idemlint.facts import ModuleFacts, TaskFacts


@dataclass(frozen=True)
class NodeEdit:
    """Text to put ``before`` a node, ``after`` it, or in its place (``replace``)."""

    node: cst.CSTNode
    text: str
    where: str = "replace"


@dataclass(frozen=True)
class SuggestedFix:
    """A rule's fix, by the nodes it changes; the engine positions it
    (:class:`idemlint.fixes.Fix`).  ``applicability`` is ``safe`` or ``unsafe``."""

    title: str
    applicability: str
    edits: Tuple[NodeEdit, ...]


@dataclass(frozen=True)
class Violation:
    """A rule's raw result: the node to report and the finding's message.

    ``event`` is the event the message places with :func:`where`: the
    engine follows its path back to the task (each call on the way is a
    related place).  ``related`` holds the rule's own places, each an event
    and what it is to the finding (IDM007: the check the race slips past).
    """

    node: cst.CSTNode
    message: str
    event: Optional[Event] = None
    related: Tuple[Tuple[Event, str], ...] = ()
    fix: Optional[SuggestedFix] = None


class Rule:
    """A rule: one code and its documentation.

    ``why`` and ``fix`` follow ruff's documentation sections ("Why is this
    bad?", "Use instead"); ``example`` and ``use_instead`` are code;
    ``fix_availability`` is ruff's "Fix availability".  The
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
    # What ``--fix`` does for it, and whether it is safe; empty: no fix yet.
    fix_availability: ClassVar[str] = ""


class TaskRule(Rule):
    """A rule over what one task does: :meth:`check` reads the task's facts."""

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        raise NotImplementedError


class ModuleRule(Rule):
    """A rule over module-level code (configuration), outside any task."""

    def check_module(self, facts: ModuleFacts) -> Iterator[Violation]:
        raise NotImplementedError


def where(event: Event, task: str) -> str:
    """Where the event runs, for messages: the task, or the helper.

    A helper is named alone, whichever task reaches it: the engine ends the
    message with every task that does (idemlint.findings.reach_suffix) and
    lists the calls on the way as related places.
    """
    scope = event.scope
    if scope.is_task:
        return f"task `{task}`"
    return f"`{scope.qualified_name}`"
