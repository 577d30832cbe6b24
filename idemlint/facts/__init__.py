"""The facts layer: what one task does, answered once, for the rules to read.

A rule asks :class:`TaskFacts` (or, for configuration, :class:`ModuleFacts`)
and nothing below it.  Each fact is built on first use and kept for the
task's other rules:

- the trace of the task (:mod:`idemlint.semantic.trace`) and what each call in it
  is to the outside world (:class:`idemlint.effects.Knowledge`, the
  catalogue applied);
- the done-checks and claims on its paths (:class:`idemlint.guards.Guards`);
- :mod:`~idemlint.facts.random_keys`: keys built from a value new on every run;
- :mod:`~idemlint.facts.markers`: done-markers written before their work;
- :mod:`~idemlint.facts.releases`: lock deletes that check no ownership;
- :mod:`~idemlint.facts.self_enqueue`: the task run again with changed arguments;
- :mod:`~idemlint.facts.in_transaction`: effects inside a database transaction;
- :mod:`~idemlint.facts.unique_inserts`: row writes whose duplicate error is caught;
- :mod:`~idemlint.facts.lock_results`: lock acquisitions whose answer is not acted on;
- Celery's late acks without reject-on-worker-lost
  (:mod:`idemlint.frameworks.celery_acks`), per module.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Dict, List, Mapping, Optional, Tuple

import libcst as cst

from idemlint.semantic.trace import Event, Trace
from idemlint.effects import Knowledge
from idemlint.facts.in_transaction import EffectInTransaction, effects_in_transactions
from idemlint.facts.lock_results import IgnoredLockResult, ignored_lock_results
from idemlint.facts.markers import EarlyMarker, early_markers, watermark_bounds
from idemlint.facts.random_keys import RandomKey, random_keys
from idemlint.facts.releases import KeyOrigins, UnsafeRelease, released_after, unsafe_releases
from idemlint.facts.self_enqueue import SelfEnqueue, self_enqueues
from idemlint.facts.unique_inserts import UniqueInsert, unique_inserts
from idemlint.frameworks.celery_acks import LateAcks, copied_by_in_process_workers, late_acks_without_reject
from idemlint.guards import Guards
from idemlint.names import Resolver, descendants
from idemlint.tasks import Decorators, ModuleIndex, Task


@dataclass(frozen=True)
class TaskFacts:
    """The facts of one task: built once per task, read by every task rule."""

    trace: Trace
    knowledge: Knowledge

    @property
    def task(self) -> Task:
        return self.trace.task

    @cached_property
    def guards(self) -> Guards:
        """The done-checks and claims on the task's paths."""
        return Guards(self.trace, self.knowledge)

    @cached_property
    def side_effects(self) -> Tuple[Event, ...]:
        """The calls that are side effects (catalogued or declared), in order."""
        return tuple(e for e in self.trace.calls() if self.knowledge.is_side_effect(e))

    @cached_property
    def checks_by_node(self) -> Mapping[int, Event]:
        """Each ``if`` statement's check event, by the id of the statement."""
        return {id(e.node): e for e in self.trace.events if e.kind == "check"}

    @cached_property
    def watermark_bounds(self) -> Dict[Tuple[int, str], List[int]]:
        """(scope, field) -> where a local read from that field bounds a query's range."""
        return watermark_bounds(self.trace)

    @cached_property
    def early_markers(self) -> Tuple[EarlyMarker, ...]:
        """The done-markers written before the work they record (IDM003)."""
        return early_markers(self)

    @cached_property
    def self_enqueues(self) -> Tuple[SelfEnqueue, ...]:
        """The calls that run the task itself again with changed arguments (IDM008)."""
        return self_enqueues(self)

    @cached_property
    def key_origins(self) -> KeyOrigins:
        """Where each key expression of the trace comes from, to tell two
        spellings of one lock key (IDM005, and a lock let go after a send)."""
        return KeyOrigins(self.trace, self.knowledge)

    @cached_property
    def unsafe_releases(self) -> Tuple[UnsafeRelease, ...]:
        """The lock releases that check no ownership (IDM005)."""
        return unsafe_releases(self)

    def lock_let_go_around(self, effect: Event) -> Optional[Event]:
        """The lock around ``effect`` when every claim covering it is let go
        after it on the success path (a lock that keeps out only a run at
        the same time); None when none covers it or one outlasts it."""
        claims = self.guards.claims_covering(effect)
        if claims and all(released_after(self, claim, effect) for claim in claims):
            return claims[0]
        return None

    @cached_property
    def ignored_lock_results(self) -> Tuple[IgnoredLockResult, ...]:
        """The lock acquisitions whose answer the task does not act on (IDM012)."""
        return ignored_lock_results(self)

    @cached_property
    def random_keys(self) -> Tuple[RandomKey, ...]:
        """The nondeterministic calls that reach a key (IDM001)."""
        return random_keys(self)

    @cached_property
    def effects_in_transactions(self) -> Tuple[EffectInTransaction, ...]:
        """The effects made inside a database transaction (IDM010)."""
        return effects_in_transactions(self)

    @cached_property
    def unique_inserts(self) -> Tuple[UniqueInsert, ...]:
        """The row writes whose duplicate error a handler catches (IDM011)."""
        return unique_inserts(self)


@dataclass(frozen=True)
class ModuleContext:
    """What a module rule may ask of the project around a module: the
    module's dotted name, and the worker pools of the configuration modules
    that copy a setting from it (:meth:`idemlint.project.Project.pools_copying`;
    None when the module is linted alone)."""

    module: str = ""
    pools_copying: Optional[Callable[[str, str], List[Optional[str]]]] = None
    healing: Optional[Callable[[str, cst.FunctionDef, Resolver], Optional[str]]] = None


@dataclass(frozen=True)
class ModuleFacts:
    """The facts of one module's configuration, for the module rules: the
    module, its index, the task decorators it may use (configured ones and
    the project's wrappers), and the project around it."""

    module: cst.Module
    index: ModuleIndex
    task_decorators: Decorators
    context: ModuleContext = ModuleContext()

    @cached_property
    def late_acks(self) -> Tuple[LateAcks, ...]:
        """Celery late acks turned on where nothing turns reject on (IDM009);
        not a shared configuration module's setting that every worker
        configuration copying it runs in the worker process."""
        return tuple(
            late
            for late in late_acks_without_reject(self.module, self.index, self.task_decorators)
            if not (late.app_wide and copied_by_in_process_workers(late.setting, self.context))
            and not self._run_again(late)
        )

    def _run_again(self, late: LateAcks) -> bool:
        """Whether every task a late-acks setting covers is run again when
        it is lost with its worker: by its own schedule, or by a scheduled
        sweep (see :mod:`idemlint.frameworks.schedules`).  Only a task
        decorator's setting, or a decorator bound once in this module, has
        tasks known; an app-wide or class setting is always reported."""
        if late.own_schedule:
            return True
        healing, module = self.context.healing, self.context.module
        if healing is None or not module:
            return False
        covers = late.covers or self._decorated_by(late.binding)
        if not covers:
            return False
        resolver = self.index.resolver()
        return all(healing(f"{module}.{task.name.value}", task, resolver) is not None for task in covers)

    def _decorated_by(self, binding: Optional[str]) -> Tuple[cst.FunctionDef, ...]:
        """The module's functions decorated by ``binding`` (``@retrying``,
        ``@retrying(...)``)."""
        if binding is None:
            return ()
        functions = self.index.functions
        found: List[cst.FunctionDef] = []
        for name in functions:
            outline = functions.outline(name)  # a definition left as text: read by CPython first
            if outline is not None and not any(
                _ast_decorator_name(d) == binding for d in getattr(outline.statement, "decorator_list", ())
            ):
                continue
            function = functions.get(name)
            if function is not None and any(_decorator_name(d.decorator) == binding for d in function.decorators):
                found.append(function)
        # Used otherwise too (``charge = retrying(_charge)``, on a method): tasks not known.
        return tuple(found) if self._uses(binding) == 1 + len(found) else ()

    def _uses(self, name: str) -> int:
        """How often the module spells ``name`` (its definitions left as text read by CPython)."""
        count = sum(1 for node in descendants(self.module) if isinstance(node, cst.Name) and node.value == name)
        for definitions in (self.index.functions, self.index.classes):
            for defined in definitions:
                outline = definitions.outline(defined)
                if outline is not None:
                    count += sum(
                        1 for n in ast.walk(outline.statement) if isinstance(n, ast.Name) and n.id == name
                    )
        return count


def _decorator_name(expression: cst.BaseExpression) -> Optional[str]:
    if isinstance(expression, cst.Call):
        expression = expression.func
    return expression.value if isinstance(expression, cst.Name) else None


def _ast_decorator_name(expression: ast.expr) -> Optional[str]:
    if isinstance(expression, ast.Call):
        expression = expression.func
    return expression.id if isinstance(expression, ast.Name) else None
