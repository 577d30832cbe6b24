"""What opens a database transaction: one concept, every spelling.

A transaction is opened by

- a context manager or decorator the catalogue names
  (:data:`idemlint.catalog.TRANSACTION_CONTEXTS`: Django's ``atomic``,
  SQLAlchemy's ``begin()``, the ``transaction`` package's manager,
  Pyramid's ``request.tm``...), spelled directly or held in a name, an
  attribute or a parameter whose value the evaluator knows;
- a project context manager whose body opens one around its ``yield``
  (``@contextmanager def unit_of_work(): with atomic(): yield``);
- a project decorator whose body opens one (the wrapper it returns runs
  the function inside it);
- a task class whose ``__call__`` or ``__new__`` opens one around the
  body: the task's whole body runs inside it.

Each answer carries how a message names the transaction.  Project code is
read a few wrappers deep, no further (:data:`MAX_WRAPPERS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.semantic.resolution import Calls, Definition, ProjectClass
from idemlint.names import Resolver, argument, descendants, dotted_name
from idemlint.semantic.values import Defined, Environment, Library, ProjectValue, Values, Walked, possibilities

if TYPE_CHECKING:
    from idemlint.semantic.trace import FunctionScope
    from idemlint.project import LoadedModule, Lookup
    from idemlint.tasks import Task

# How many project wrappers (a context manager in a context manager) are read.
MAX_WRAPPERS = 3
# The methods of a task class that run the task's body around it (``run``
# is the body itself: a task function replaces it, a class-based task's
# own ``run`` is walked as the task).
TASK_RUNNERS = ("__call__", "__new__")


@dataclass(frozen=True)
class Opened:
    """A transaction a context, a decorator or a task class opens: how a
    message names it, and whether it is an atomic block of Django's
    default database (which ``connection.in_atomic_block`` reports)."""

    label: str
    default_atomic: bool = False
    # The catalogued opener at the bottom of the wrappers (``transaction.atomic()``).
    opener: str = ""

    def wrapped_by(self, label: str) -> "Opened":
        """The same transaction, opened through a project wrapper ``label``."""
        return Opened(f"{label}, which opens `{self.opener}`", self.default_atomic, self.opener)


class Transactions:
    """Answers, for one trace, what opens a transaction."""

    def __init__(self, calls: Calls, values: Values) -> None:
        self.calls = calls
        self.values = values
        # Each wrapper's answer at the depth it was read at, with what reading
        # it looked up in the project (recorded again whenever it is reused).
        self._wrappers: Dict[Tuple[int, bool, int], Tuple[Optional[Opened], List["Lookup"]]] = {}

    def context(self, manager: cst.BaseExpression, scope: "FunctionScope") -> Optional[Opened]:
        """The transaction ``with manager:`` opens in a walked scope."""
        return self._context(manager, scope.resolver, Walked(scope), 0)

    def decorator(self, decorator: cst.BaseExpression, scope: "FunctionScope") -> Optional[Opened]:
        """The transaction a function decorated with ``decorator`` runs in."""
        spelled = decorator.func if isinstance(decorator, cst.Call) else decorator
        shown = f"`@{dotted_name(spelled) or 'decorator'}{'()' if isinstance(decorator, cst.Call) else ''}`"
        on = f"{shown} on `{scope.qualified_name}`"
        if catalog.matches_any(catalog.TRANSACTION_CONTEXTS, scope.resolver.resolve(decorator)):
            return Opened(on, _default_atomic(decorator, scope.resolver), _code(decorator))
        wrapper = self.calls.module_value(spelled, scope.module)
        if isinstance(wrapper, Definition):
            inner = self._wrapping(wrapper, around_yield=False, depth=0)
            if inner is not None:
                return inner.wrapped_by(on)
        return None

    def task_class(self, task: "Task", module: "LoadedModule") -> Optional[Opened]:
        """The transaction the task's class runs its body in: its
        ``base=`` class's, or its own class's for a class-based task."""
        base = task.options.get("base")
        klass = self.calls.module_value(base, module) if base is not None else None
        if task.owner is not None:
            klass = ProjectClass(module, task.owner.name.value, task.owner)
        if not isinstance(klass, ProjectClass):
            return None
        for owner in self.calls.method_order(klass):
            for name in TASK_RUNNERS:
                method = self.calls.method(owner, name)
                if method is None or method.owner is None or method.owner.name.value != owner.name:
                    continue
                inner = self._wrapping(method, around_yield=False, depth=0)
                if inner is not None:
                    return inner.wrapped_by(f"task class `{klass.name}`")
        return None

    # -- reading ---------------------------------------------------------------

    def _context(
        self, manager: cst.BaseExpression, resolver: Resolver, where: Environment, depth: int
    ) -> Optional[Opened]:
        code = _code(manager)
        shown = f"`with {code}`"
        if catalog.matches_any(catalog.TRANSACTION_CONTEXTS, resolver.resolve(manager)):
            return Opened(shown, _default_atomic(manager, resolver), code)
        denoted = self.values.denote(manager, where)
        members = possibilities(denoted)
        names = [m.name for m in members if isinstance(m, Library)]
        if names and len(names) == len(members) and all(
            catalog.matches_any(catalog.TRANSACTION_CONTEXTS, name) for name in names
        ):
            return Opened(f"{shown}, which is `{names[0]}`", False, names[0])
        if isinstance(manager, cst.Call) and depth < MAX_WRAPPERS:
            function = self.values.denote(manager.func, where)
            if isinstance(function, ProjectValue) and isinstance(function.value, Definition):
                inner = self._wrapping(function.value, around_yield=True, depth=depth + 1)
                if inner is not None:
                    return inner.wrapped_by(shown)
        return None

    def _wrapping(self, definition: Definition, around_yield: bool, depth: int) -> Optional[Opened]:
        """The transaction a project function's body opens around what it
        wraps (its ``yield``, for a context manager; a call of the function
        it was given, for a decorator; any call, for a task class's runner),
        in it or in a function it nests."""
        project = self.calls.project
        key = (id(definition.function), around_yield, depth)
        if key in self._wrappers:
            opened, lookups = self._wrappers[key]
            if project is not None:
                project.lookups += lookups
            return opened
        self._wrappers[key] = (None, [])  # a wrapper that uses itself opens nothing more
        start = len(project.lookups) if project is not None else 0
        opened = self._first_opened(definition, around_yield, depth)
        self._wrappers[key] = (opened, project.lookups[start:] if project is not None else [])
        return opened

    def _first_opened(self, definition: Definition, around_yield: bool, depth: int) -> Optional[Opened]:
        resolver = definition.module.index.resolver()
        where = Defined(definition.function, definition.module, definition.instance, definition.owner)
        wrapped = _parameter_names(definition.function) if definition.owner is None and not around_yield else None
        for node in _withs(definition.function):
            if not _runs_what_it_wraps(node, around_yield, wrapped):
                continue
            for item in node.items:
                opened = self._context(item.item, resolver, where, depth)
                if opened is not None:
                    return opened
        return None


def _runs_what_it_wraps(node: cst.With, around_yield: bool, wrapped: Optional[FrozenSet[str]]) -> bool:
    """Whether a ``with`` block of a wrapper runs what the wrapper wraps:
    a context manager's ``yield``, a decorator's call of the function it was
    given (``wrapped``: its parameters), a task class runner's calls."""
    inner = list(descendants(node.body))
    if around_yield:
        return any(isinstance(child, cst.Yield) for child in inner)
    calls = [child for child in inner if isinstance(child, cst.Call)]
    if wrapped is None:
        return bool(calls)
    return any(isinstance(call.func, cst.Name) and call.func.value in wrapped for call in calls)


def _parameter_names(function: cst.FunctionDef) -> FrozenSet[str]:
    """The parameters of a decorator and of the functions it nests (a
    decorator factory's inner decorator is given the function)."""
    names: Set[str] = set()
    for node in (function, *descendants(function.body)):
        if isinstance(node, cst.FunctionDef):
            params = node.params
            names.update(p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params))
    return frozenset(names)


def _withs(function: cst.FunctionDef) -> Iterator[cst.With]:
    for node in descendants(function.body):
        if isinstance(node, cst.With):
            yield node


def _default_atomic(opener: cst.BaseExpression, resolver: Resolver) -> bool:
    """Whether a decorator or context opens an atomic block of Django's
    default database: ``atomic`` with no database named."""
    if not catalog.matches_any(catalog.DEFAULT_ATOMIC_BLOCKS, resolver.resolve(opener)):
        return False
    return not isinstance(opener, cst.Call) or argument(opener, 0, "using") is None


def _code(node: cst.BaseExpression) -> str:
    text = cst.Module([]).code_for_node(node)
    return text if len(text) <= 60 else f"{text[:57]}..."
