"""What enqueueing a project task amounts to: the side effects it makes unguarded.

A task that enqueues another project task (``send_mail.delay(...)``,
``queue.enqueue(send_mail, ...)``, or runs it inline where the walk stops,
``send_mail.run(...)`` past the depth limits) makes, at that call, the side
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

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple

from idemlint.analysis import Event, Summaries, TraceBuilder
from idemlint.calls import Calls, Definition
from idemlint.effects import Knowledge, SubTaskEffect
from idemlint.guards import Guards, message_effect
from idemlint.settings import Settings
from idemlint.tasks import Task

if TYPE_CHECKING:
    from idemlint.project import LoadedModule, Lookup, Project

# How many enqueues deep one task's effects are looked for (a task that
# enqueues a task that enqueues the mailer).
MAX_SUB_TASK_DEPTH = 3


class SubTasks:
    """The unguarded side effects of enqueued project tasks, for one run.

    ``tasks_of`` gives the tasks detection finds in a module (a task's
    options, such as ``bind``, shape its trace).  What computing an
    answer looked up in the project is recorded again each time the
    answer is reused, as helper summaries do, so that a cached result
    depends on the modules the enqueued task reads.
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
        self._tasks: Dict[int, Sequence[Task]] = {}
        self._found: Dict[int, Tuple[Tuple[SubTaskEffect, ...], List["Lookup"]]] = {}
        self._running: List[int] = []
        self._cuts = 0  # answers left short by a cycle, which callers must not keep

    def effects(self, definition: Definition, calls: Calls) -> Tuple[SubTaskEffect, ...]:
        """The side effects the task ``definition`` is makes unguarded."""
        key = id(definition.function)
        if key in self._found:
            effects, lookups = self._found[key]
            if self.project is not None:
                self.project.lookups += lookups
            return effects
        if key in self._running or len(self._running) >= MAX_SUB_TASK_DEPTH:
            self._cuts += 1
            return ()
        start = len(self.project.lookups) if self.project is not None else 0
        cuts = self._cuts
        self._running.append(key)
        try:
            effects = self._unguarded(definition, calls)
        finally:
            self._running.pop()
        if self._cuts == cuts:
            lookups = self.project.lookups[start:] if self.project is not None else []
            self._found[key] = (effects, lookups)
        return effects

    def _unguarded(self, definition: Definition, calls: Calls) -> Tuple[SubTaskEffect, ...]:
        task = self._task(definition)
        trace = TraceBuilder(definition.module, task, self.project, self.summaries, calls).build()
        knowledge = Knowledge(
            trace, definition.module.index.constants, self.settings, calls,
            sub_tasks=lambda enqueued: self.effects(enqueued, calls),
        )
        guards = Guards.of(trace, knowledge)
        name = f"{definition.module.name}.{task.name}" if definition.module.name else task.name
        after_commit = calls.waits_for_commit(definition, task.options.get("base"))
        found: Dict[Tuple[str, bool], SubTaskEffect] = {}
        for event in trace.calls():
            for effect in _effects_of(event, knowledge, name):
                if (effect.label, effect.message) in found:
                    continue
                if guards.checked_before(event) is None and guards.claimed_before(event) is None:
                    found[(effect.label, effect.message)] = replace(effect, after_commit=after_commit)
        return tuple(found.values())

    def _task(self, definition: Definition) -> Task:
        """The task detection finds for ``definition``; a function only
        handed to a queue, or with a decorator detection does not know,
        is a task of its own all the same."""
        module = definition.module
        if id(module) not in self._tasks:
            self._tasks[id(module)] = self._tasks_of(module)
        function = definition.function
        for task in self._tasks[id(module)]:
            if task.owner is None and task.function.name.value == function.name.value:
                return task
        framework = "celery" if function.decorators else "rq"
        return Task(function.name.value, function, framework, {}, recognised="enqueued by a task")


def _effects_of(event: Event, knowledge: Knowledge, task: str) -> List[SubTaskEffect]:
    """The side effects one call of the enqueued task ``task`` makes."""
    message = message_effect(knowledge, event)
    if message is not None:
        return [SubTaskEffect(task, message.label, True, f"sends the {message.label}", event)]
    keyable = knowledge.keyable_effect(event)
    if keyable is not None and not knowledge.has_idempotency_key(event, keyable):
        return [SubTaskEffect(task, keyable.label, False, f"makes the unkeyed {keyable.label} call", event)]
    # A task it enqueues in turn: the effect is still this task's doing.
    return [
        SubTaskEffect(task, effect.label, effect.message, effect.consequence, effect.event)
        for effect in knowledge.enqueued_effects(event)
    ]
