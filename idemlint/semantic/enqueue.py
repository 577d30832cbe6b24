"""Which project tasks a call hands to a queue: enqueueing as one concept.

A call enqueues (or runs) project tasks when it is

- a task object's own verb: ``t.delay()``, ``t.apply_async()``, Dramatiq's
  ``t.send()``, taskiq's ``t.kiq()``, ``t.run()``;
- the same verb on a Celery signature or canvas holding tasks:
  ``t.s(x)``, ``t.si(x)``, ``signature("name")``, ``group(...)``,
  ``chain(...)``, ``chord(...)``, ``a.s() | b.si()``, kept in a local
  first or not; or such a value called (``chord(header)(body)``);
- a queue's call naming the function in an argument (RQ's
  ``queue.enqueue(f, ...)`` and its relatives), by the function or by its
  dotted path;
- Celery's ``send_task(name)``, where the name is a task's dotted path or
  the name it is registered under (``@app.task(name=...)``), spelled as a
  literal, a constant, a class attribute or an enum member's ``.value``:
  whatever text the evaluator of values gives it on every path.

A project wrapper that forwards a task or its name (``def later(task,
*args): task.delay(*args)``) is seen where the walk enters it: the
parameter holds what the caller passed.  A name that is not spelled out
on every path, or that no task is registered under, hands nothing known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.semantic.resolution import Calls, Definition
from idemlint.names import argument
from idemlint.semantic.values import Library, ModuleLevel, Values, Walked, possibilities

if TYPE_CHECKING:
    from idemlint.semantic.trace import FunctionScope
    from idemlint.project import Lookup, Project

# How many bindings are followed from a name to the signature it holds.
MAX_HOPS = 8


def _distinct(definitions: Iterable[Definition]) -> List[Definition]:
    seen: Dict[int, Definition] = {}
    for definition in definitions:
        seen.setdefault(id(definition.function), definition)
    return list(seen.values())


class Held:
    """The project tasks an expression holds, and whether it is a
    signature or canvas of them (whose call runs them) rather than a task
    (whose call is an ordinary function call, followed by the walk)."""

    __slots__ = ("tasks", "signature")

    def __init__(self, tasks: Sequence[Definition] = (), signature: bool = False) -> None:
        self.tasks: Tuple[Definition, ...] = tuple(_distinct(tasks))
        self.signature = signature

    def __add__(self, other: "Held") -> "Held":
        return Held((*self.tasks, *other.tasks), self.signature or other.signature)


NOTHING = Held()


class Enqueues:
    """Answers :meth:`handed` for the calls of one trace."""

    def __init__(self, calls: Calls, values: Values, project: Optional["Project"]) -> None:
        self.calls = calls
        self.values = values
        self.project = project
        # Each name's tasks, with what finding them looked up (recorded again on reuse).
        self._registered: Dict[str, Tuple[Tuple[Definition, ...], List["Lookup"]]] = {}
        # What each expression holds, within one question (names bound on
        # many branches are read once).
        self._holding: Dict[Tuple[int, int], Held] = {}

    def handed(self, call: cst.Call, scope: "FunctionScope") -> Tuple[Definition, ...]:
        """The project tasks ``call`` enqueues or runs (none when it is no
        such call, or hands what the analysis cannot tell)."""
        self._holding = {}
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in catalog.SEND_BY_NAME_METHODS:
                sent = argument(call, 0, ("name",))
                return self._named(sent, scope) if sent is not None else ()
            if method in catalog.TASK_OBJECT_METHODS:
                held = self._held(func.value, scope, 0)
                if held.signature and method not in catalog.SIGNATURE_RUNNERS:
                    return ()
                return held.tasks
            queue = next((e for e in catalog.QUEUE_ENQUEUE_CALLS if e.method == method and not e.by_name), None)
            if queue is not None:
                given = argument(call, queue.function_position, queue.function_keyword)
                return self._function(given, scope) if given is not None else ()
        if not _may_hold_a_signature(func, scope):
            return ()  # a task called is a function called: the walk follows it
        held = self._held(func, scope, 0)
        if not held.signature:
            return ()
        for arg in call.args:  # ``chord(header)(body)``
            held = held + self._held(arg.value, scope, 0)
        return held.tasks

    def builds(self, call: cst.Call, scope: "FunctionScope") -> bool:
        """Whether ``call`` builds a signature or canvas of project tasks
        (``t.s(x)``, ``group(...)``): Celery's code, which runs nothing yet."""
        self._holding = {}
        return bool(self._made(call, scope, 0).tasks)

    def sends_an_unknown_name(self, call: cst.Call, scope: "FunctionScope") -> bool:
        """Whether ``call`` sends Celery a task by a name the analysis cannot
        spell out on every path: it may run any task, the project's too."""
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in catalog.SEND_BY_NAME_METHODS:
            return False
        sent = argument(call, 0, ("name",))
        return sent is None or self.values.texts(sent, Walked(scope)) is None

    # -- what an expression holds -----------------------------------------

    def _held(self, expression: cst.BaseExpression, scope: "FunctionScope", hops: int) -> Held:
        key = (id(expression), id(scope))
        if key in self._holding:
            return self._holding[key]  # also what is being read: a name built on itself
        if hops > MAX_HOPS:
            return NOTHING
        self._holding[key] = NOTHING
        held = self._held_now(expression, scope, hops + 1)
        self._holding[key] = held
        return held

    def _held_now(self, expression: cst.BaseExpression, scope: "FunctionScope", hops: int) -> Held:
        if isinstance(expression, (cst.Name, cst.Attribute)):
            found = self.calls.value_of(expression, scope)
            if isinstance(found, Definition):
                return Held((found,)) if _is_task(found) else NOTHING
            if isinstance(expression, cst.Name):
                return self._bound(expression.value, scope, hops)
            return NOTHING
        if isinstance(expression, cst.NamedExpr):
            return self._held(expression.value, scope, hops)
        if isinstance(expression, cst.BinaryOperation) and isinstance(expression.operator, cst.BitOr):
            held = self._held(expression.left, scope, hops) + self._held(expression.right, scope, hops)
            return Held(held.tasks, signature=bool(held.tasks))
        if isinstance(expression, (cst.List, cst.Tuple, cst.Set)):
            return _union(self._held(element.value, scope, hops) for element in expression.elements)
        if isinstance(expression, (cst.GeneratorExp, cst.ListComp, cst.SetComp)):
            return self._held(expression.elt, scope, hops)
        if isinstance(expression, cst.Call):
            return self._made(expression, scope, hops)
        return NOTHING

    def _made(self, call: cst.Call, scope: "FunctionScope", hops: int) -> Held:
        """What a call makes: a signature of the task it is made from, a
        signature kept as it was, or a canvas of its arguments."""
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in catalog.SIGNATURE_METHODS:
            made = self._held(func.value, scope, hops)
            if made.tasks:
                return Held(made.tasks, signature=True)
        if isinstance(func, cst.Attribute) and func.attr.value in catalog.SIGNATURE_KEEPING_METHODS:
            return self._held(func.value, scope, hops)
        if not self._is_canvas(func, scope):
            return NOTHING
        held = _union(self._held(arg.value, scope, hops) for arg in call.args if not arg.keyword)
        first = argument(call, 0, ("varies", "task"))
        if not held.tasks and first is not None:  # ``signature("pkg.tasks.send")``
            held = Held(self._named(first, scope))
        return Held(held.tasks, signature=bool(held.tasks))

    def _is_canvas(self, func: cst.BaseExpression, scope: "FunctionScope") -> bool:
        """Whether ``func`` is Celery's signature or canvas constructor
        (imported, or an app's ``signature``)."""
        if catalog.matches_any(catalog.CANVAS_CALLS, scope.resolver.resolve(func)):
            return True
        denoted = self.values.denote(func, Walked(scope))
        return any(
            catalog.matches_any(catalog.CANVAS_CALLS, member.name)
            for member in possibilities(denoted)
            if isinstance(member, Library)
        )

    def _bound(self, name: str, scope: "FunctionScope", hops: int) -> Held:
        """What a local name holds: each value the walk saw assigned, or
        each argument a walked caller passed its parameter."""
        current: Optional["FunctionScope"] = scope
        while current is not None:
            if name in current.values:
                return _union(self._held(value, current, hops) for value in current.values[name])
            if name in current.parameters:
                return _union(self._held(value, caller, hops) for value, caller in current.arguments.get(name, ()))
            current = current.enclosing
        return NOTHING

    def _function(self, given: cst.BaseExpression, scope: "FunctionScope") -> Tuple[Definition, ...]:
        """The project function a queue is handed: RQ runs any function,
        decorated or not, given itself or by its dotted path."""
        found = self.calls.value_of(given, scope)
        if isinstance(found, Definition):
            return (found,)
        texts = self.values.texts(given, Walked(scope)) if self.project is not None else None
        if texts is None or self.project is None:
            return ()
        return tuple(_distinct(d for text in texts for d in self._dotted(text)))

    # -- tasks by name ------------------------------------------------------

    def _named(self, sent: cst.BaseExpression, scope: "FunctionScope") -> Tuple[Definition, ...]:
        """The tasks a name sent to Celery runs, every text it may have; a
        name not spelled out on some path names nothing known."""
        if self.project is None:
            return ()
        texts = self.values.texts(sent, Walked(scope))
        if texts is None:
            return ()
        return tuple(_distinct(d for text in texts for d in self._registered_as(text)))

    def _registered_as(self, text: str) -> Tuple[Definition, ...]:
        """The task registered under ``text``: the function at that dotted
        path, else each task whose ``name=`` gives that text."""
        dotted = self._dotted(text)
        if dotted:
            return dotted
        project = self.project
        assert project is not None
        if text not in self._registered:
            start = len(project.lookups)
            found = tuple(self._by_option(text))
            self._registered[text] = (found, project.lookups[start:])
        else:
            project.lookups += self._registered[text][1]
        return self._registered[text][0]

    def _dotted(self, text: str) -> Tuple[Definition, ...]:
        assert self.project is not None
        if "." not in text.strip("."):
            return ()
        found = self.project.function(text)
        if found is None or found[1] is not None:
            return ()
        function, _, module = found
        return (Definition(function, None, module),)

    def _by_option(self, text: str) -> Iterator[Definition]:
        assert self.project is not None
        for module in self.project.modules_naming_tasks():
            for task in self.project.tasks_in(module):
                option = task.options.get("name")
                if task.owner is not None or option is None:
                    continue
                if text in (self.values.texts(option, ModuleLevel(module)) or ()):
                    yield Definition(task.function, None, module)


def _may_hold_a_signature(func: cst.BaseExpression, scope: "FunctionScope") -> bool:
    """Whether a callee may be a signature or canvas called to run it: one
    made in place (``chord(header)(body)``, ``(a | b)()``) or held in a
    local or a parameter; a module-level name or an attribute is a
    function, a class or a method, which the walk resolves."""
    if isinstance(func, cst.Call):  # ``chord(header)(body)``: a constructor called, called
        return isinstance(func.func, (cst.Name, cst.Attribute))
    if isinstance(func, cst.BinaryOperation):
        return isinstance(func.operator, cst.BitOr)
    return isinstance(func, cst.Name) and (func.value in scope.values or func.value in scope.parameters)


def _is_task(definition: Definition) -> bool:
    """A module-level function a decorator makes a task of."""
    return definition.owner is None and bool(definition.function.decorators)


def _union(helds: Iterable[Held]) -> Held:
    total = NOTHING
    for held in helds:
        total = total + held
    return total
