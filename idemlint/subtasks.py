"""What enqueueing a project task amounts to: the side effects it makes unguarded.

A task that enqueues another project task (``send_mail.delay(...)``,
``queue.enqueue(send_mail, ...)``, or runs it inline where the walk stops,
``send_mail.run(...)`` past the event budget) makes, at that call, the side
effects the other task makes with no done-check or claim of its own: a
sweeper that fans out e-mail through a mailer task sends e-mail, and its
redelivery sends it again, whatever the mailer does per delivery.

The enqueued task's trace is built as the task's own (it is also analysed
on its own), once a run, and read with the same guards the rules use.  An
effect the enqueued task guards itself (a sent-check, a claim) is not
passed on: a duplicate enqueue is then dropped there.

How the two are reported, so that each comment is a place that needs a
fix: the enqueued task's own findings stay at its effects (a redelivery of
*it* sends again); each task that enqueues it unguarded gets its finding at
the enqueue (a redelivery of the *caller* enqueues, and so sends, again),
naming the enqueued task, with the effect as a related place.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from idemlint.semantic.trace import Event, Summaries, TraceBuilder
from idemlint.semantic.resolution import Calls, Definition
from idemlint.effects import Knowledge, SubTaskEffect
from idemlint.facts import TaskFacts
from idemlint.guards import message_effect
from idemlint.settings import Settings
from idemlint.tasks import Task

if TYPE_CHECKING:
    from idemlint.project import LoadedModule, Lookup, Project


@dataclass(frozen=True)
class _Reading:
    """What one enqueued task's own trace says: the effects it makes with
    no check or claim before them, the project tasks it enqueues that way,
    whether its class enqueues it only after the caller's commit, and what
    reading it looked up in the project."""

    name: str
    effects: Tuple[SubTaskEffect, ...]
    enqueues: Tuple[Definition, ...]
    after_commit: bool
    lookups: Tuple["Lookup", ...]


class SubTasks:
    """The unguarded side effects of enqueued project tasks, for one run.

    Each task is read once (its trace, its guards); what it makes through
    the tasks it enqueues in turn is gathered over those readings, any
    number of enqueues deep, cycles included, so the answer does not
    depend on which task asked first.  ``tasks_of`` gives the tasks
    detection finds in a module (a task's options, such as ``bind``, shape
    its trace).  What an answer looked up in the project is recorded again
    each time it is reused, as helper summaries do, so that a cached result
    depends on the modules the enqueued tasks read.
    """

    def __init__(
        self,
        project: Optional["Project"],
        settings: Settings,
        summaries: Summaries,
        tasks_of: Callable[["LoadedModule"], Sequence[Task]],
    ) -> None:
        self.project = project
        self.settings = settings
        self.summaries = summaries
        self._tasks_of = tasks_of
        self._tasks: Dict[int, Tuple[Sequence[Task], List["Lookup"]]] = {}
        self._readings: Dict[int, _Reading] = {}
        self._answers: Dict[Tuple[int, int], Tuple[Tuple[SubTaskEffect, ...], Tuple["Lookup", ...]]] = {}

    def effects(
        self, definition: Definition, root: Optional[cst.FunctionDef] = None
    ) -> Tuple[SubTaskEffect, ...]:
        """The side effects the task ``definition`` makes unguarded, itself
        or through the tasks it enqueues unguarded; ``root`` is the task
        whose trace asks, whose own effects are its own trace's to report."""
        key = (id(definition.function), id(root))
        if key not in self._answers:
            self._answers[key] = self._gathered(definition, root)
        effects, lookups = self._answers[key]
        if self.project is not None:
            self.project.lookups += lookups
        return effects

    def _gathered(
        self, definition: Definition, root: Optional[cst.FunctionDef]
    ) -> Tuple[Tuple[SubTaskEffect, ...], Tuple["Lookup", ...]]:
        first = self._reading(definition)
        found: Dict[Tuple[str, bool], SubTaskEffect] = {}
        lookups: List["Lookup"] = []
        seen = {id(definition.function)}
        waiting = [definition]
        while waiting:
            reading = self._reading(waiting.pop(0))
            lookups += reading.lookups
            for effect in reading.effects:
                found.setdefault((effect.label, effect.message), effect)
            for enqueued in reading.enqueues:
                if id(enqueued.function) not in seen and enqueued.function is not root:
                    seen.add(id(enqueued.function))
                    waiting.append(enqueued)
        effects = tuple(replace(e, task=first.name, after_commit=first.after_commit) for e in found.values())
        return effects, tuple(dict.fromkeys(lookups))

    def _reading(self, definition: Definition) -> _Reading:
        key = id(definition.function)
        if key not in self._readings:
            self._readings[key] = self._read(definition)
        return self._readings[key]

    def _read(self, definition: Definition) -> _Reading:
        start = len(self.project.lookups) if self.project is not None else 0
        task = self._task(definition)
        # Resolution of its own, so that every lookup it makes is this reading's.
        calls = Calls(self.project, self.settings.effect_methods())
        trace = TraceBuilder(definition.module, task, self.project, self.summaries, calls).build()
        knowledge = Knowledge(trace, definition.module.index.constants, self.settings, calls)
        facts = TaskFacts(trace, knowledge)
        guards = facts.guards
        name = f"{definition.module.name}.{task.name}" if definition.module.name else task.name
        effects: Dict[Tuple[str, bool], SubTaskEffect] = {}
        enqueues: Dict[int, Definition] = {}
        for event in trace.calls():
            effect = _effect_of(event, knowledge, name)
            if effect is None and not event.enqueued:
                continue
            if guards.checked_before(event) is not None:
                continue
            if guards.claimed_before(event) is not None and facts.lock_let_go_around(event) is None:
                continue  # a claim that outlasts the effect; a lock let go after it is none
            if effect is not None:
                effects.setdefault((effect.label, effect.message), effect)
            for enqueued in event.enqueued:
                enqueues.setdefault(id(enqueued.function), enqueued)
        after_commit = calls.waits_for_commit(definition, task.options.get("base"))
        lookups = tuple(self.project.lookups[start:]) if self.project is not None else ()
        return _Reading(name, tuple(effects.values()), tuple(enqueues.values()), after_commit, lookups)

    def _task(self, definition: Definition) -> Task:
        """The task detection finds for ``definition``; a function only
        handed to a queue, or with a decorator detection does not know,
        is a task of its own all the same."""
        module = definition.module
        if id(module) not in self._tasks:
            start = len(self.project.lookups) if self.project is not None else 0
            tasks = self._tasks_of(module)
            self._tasks[id(module)] = (tasks, self.project.lookups[start:] if self.project is not None else [])
        tasks, lookups = self._tasks[id(module)]
        if self.project is not None:
            self.project.lookups += lookups
        function = definition.function
        for task in tasks:
            if task.function is function:
                return task
        for task in tasks:
            if task.owner is None and task.function.name.value == function.name.value:
                return task  # the same function, parsed again for its module's index
        framework = HANDED_TO_A_QUEUE if not function.decorators else ENQUEUED_BY_ITS_METHODS
        return Task(function.name.value, function, framework, {}, recognised="enqueued by a task")


# The framework of a task detection does not list: a function handed to
# ``queue.enqueue`` is RQ's; one enqueued through ``.delay()`` and its
# relatives is a Celery-style task.
HANDED_TO_A_QUEUE = "rq"
ENQUEUED_BY_ITS_METHODS = "celery"


def _effect_of(event: Event, knowledge: Knowledge, task: str) -> Optional[SubTaskEffect]:
    """The side effect one call of the enqueued task ``task`` makes."""
    message = message_effect(knowledge, event)
    if message is not None:
        return SubTaskEffect(task, message.label, True, f"sends the {message.label}", event)
    keyable = knowledge.keyable_effect(event)
    if keyable is not None and not knowledge.has_idempotency_key(event, keyable):
        return SubTaskEffect(task, keyable.label, False, f"makes the unkeyed {keyable.label} call", event)
    return None
