"""Effects inside a database transaction (IDM010).

A side effect made while a transaction is open cannot be rolled back with
it: if the transaction rolls back, or the worker dies before the commit,
the effect stands, its record is lost, and the redelivered task makes it
again.  :func:`effects_in_transactions` finds the catalogued effects, and
the enqueues and runs of project tasks that make one unguarded, inside a
transaction the trace opened (:mod:`idemlint.semantic.transactions` says
what opens one), and, where Django's ``on_commit`` can make the same call
after the commit, the code that would.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, List, Optional, Tuple

import libcst as cst

from idemlint.semantic.trace import Event, Trace
from idemlint.semantic.resolution import assigned_in
from idemlint.effects import Knowledge, SubTaskEffect, starts_task
from idemlint.names import Resolver, descendants
from idemlint.statements import alone_on_its_line, is_call_statement, placed_with

if TYPE_CHECKING:
    from idemlint.facts import TaskFacts


@dataclass(frozen=True)
class EffectInTransaction:
    """A call inside the transaction ``opened`` (how a message names it):
    a catalogued effect (``kind``: ``Stripe``, ``HTTP``, ``email``), or the
    enqueue or run of a task whose unguarded effects are ``enqueued``.
    ``deferred`` is the same call handed to Django's ``on_commit`` (spelled
    ``hook`` in the module), as code, where that is the same call made later."""

    event: Event
    opened: str
    kind: Optional[str] = None
    enqueued: Tuple[SubTaskEffect, ...] = ()
    deferred: Optional[str] = None
    hook: Optional[str] = None


def effects_in_transactions(facts: "TaskFacts") -> Tuple[EffectInTransaction, ...]:
    """The task's effects made inside a transaction, in order."""
    trace, knowledge = facts.trace, facts.knowledge
    found: List[EffectInTransaction] = []
    for event in trace.calls():
        if event.transaction is None:
            continue
        kind = _effect_kind(event, knowledge)
        enqueued = _enqueued_in_transaction(event, knowledge) if kind is None else ()
        if kind is None and not enqueued:
            continue
        opened = trace.transactions.get(event.transaction, "a database transaction")
        hook = _on_commit_hook(event, trace) if not enqueued else None
        deferred = f"{hook}(lambda: {cst.Module([]).code_for_node(event.node)})" if hook is not None else None
        found.append(EffectInTransaction(event, opened, kind, enqueued, deferred, hook))
    return tuple(found)


def _effect_kind(event: Event, knowledge: Knowledge) -> Optional[str]:
    """``Stripe``, ``HTTP``, ``email``: what the side effect is, or None."""
    keyable = knowledge.keyable_effect(event)
    if keyable is not None:
        return keyable.label
    non_keyable = knowledge.non_keyable_effect(event)
    return non_keyable.label if non_keyable is not None else None


def _enqueued_in_transaction(event: Event, knowledge: Knowledge) -> Tuple[SubTaskEffect, ...]:
    """The effects of the task this call enqueues, unless its class puts
    the enqueue off until the transaction commits (a run is never put off)."""
    effects = knowledge.enqueued_effects(event)
    if effects and effects[0].after_commit and starts_task(event) == "enqueues":
        return ()
    return effects


def _on_commit_hook(event: Event, trace: Trace) -> Optional[str]:
    """How the module spells Django's ``on_commit``, where handing it the
    call (``transaction.on_commit(lambda: ...)``) makes the same call later:
    a statement of its own, alone
    on its line, whose result nothing reads, and the last of the block of
    a transaction Django's ``atomic`` opened in the same function (nothing
    runs between it and the commit that could change what the lambda
    reads); outside any loop (a lambda would see the loop variable's last
    value); and with ``on_commit`` reachable by a name the module already
    imports.  None where that would not be the same call."""
    call = event.node
    if not isinstance(call, cst.Call) or not event.discarded:
        return None
    if any(step.kind == "Loop" and step.branch == "body" for step in event.path):
        return None
    # What a lambda cannot hold (``await``, ``yield``) or would take from the
    # function (``n := ...``), and exceptions handled around it (unbound at commit).
    if any(isinstance(node, (cst.Await, cst.Yield, cst.NamedExpr)) for node in descendants(call)):
        return None
    if any(step.kind == "Try" and step.branch.startswith("handler") for step in event.path):
        return None
    if not _opened_by_django(event, trace) or not alone_on_its_line(event.scope.function, call):
        return None
    if not _last_in_the_transaction(event, call):
        return None
    hook = _on_commit_name(event.scope.resolver)
    if hook is None or _shadowed_locally(hook.split(".", 1)[0], event.scope.function):
        return None
    return hook


def _last_in_the_transaction(event: Event, call: cst.Call) -> bool:
    """Whether the call is the last statement of the block the transaction
    is (the ``with atomic():`` body, the item alone, or the decorated
    function's body), in the same function: nothing then runs between it
    and the commit that could change what the deferred lambda reads."""
    function = event.scope.function
    if id(function) == event.transaction:
        block = function.body
    else:
        placed = placed_with(function, event.transaction) if event.transaction is not None else None
        # Another item of the ``with`` (a file) would close before the commit.
        if placed is None or len(placed.node.items) != 1:
            return False
        block = placed.node.body
    return isinstance(block, cst.IndentedBlock) and bool(block.body) and is_call_statement(block.body[-1], call)


def _opened_by_django(event: Event, trace: Trace) -> bool:
    """Whether the transaction the event runs in is Django's ``atomic`` on
    the default database (``on_commit`` without ``using=`` hooks that one),
    and the only one open: an enclosing ``atomic`` would defer the call to
    its own commit, after code the lambda's names may see change."""
    opened = [
        other
        for other in trace.events
        if other.kind == "call"
        and (other.callee or "").startswith(_DJANGO_ATOMIC)
        and any(step.kind == "With" and step.branch == "items" for step in other.path)
    ]
    containers = {step.container for step in event.path if step.kind == "With" and step.branch == "body"}
    around = [
        other for other in opened
        if any(step.container in containers for step in other.path if step.kind == "With" and step.branch == "items")
    ]
    decorated = [
        d for d in event.scope.function.decorators
        if (event.scope.resolver.resolve(d.decorator) or "").startswith(_DJANGO_ATOMIC)
    ]
    if len(around) + len(decorated) != 1:
        return False
    if decorated:
        spelled = decorated[0].decorator
        return id(event.scope.function) == event.transaction and not (isinstance(spelled, cst.Call) and spelled.args)
    call = around[0].node
    return isinstance(call, cst.Call) and not call.args and any(
        step.kind == "With" and step.branch == "items" and step.container == event.transaction for step in around[0].path
    )


def _shadowed_locally(name: str, function: cst.FunctionDef) -> bool:
    """A parameter or local of the function with the name the fix would call through."""
    params = function.params
    spelled = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    spelled |= {p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)}
    return name in spelled or name in assigned_in(function)


def _on_commit_name(resolver: Resolver) -> Optional[str]:
    """How the module spells Django's ``on_commit``: ``transaction.on_commit``, or an imported ``on_commit``."""
    for name, bound in sorted(resolver.imports.items()):
        if bound == "django.db.transaction":
            return f"{name}.on_commit"
        if bound == "django.db.transaction.on_commit":
            return name
    return None


_DJANGO_ATOMIC = "django.db.transaction.atomic"
