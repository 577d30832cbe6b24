"""Where a task's analysis reaches, and where it stops.

Every call on a task's paths (the task's own and those of the project code
the trace follows) is one of:

- ``followed``: project code the trace walks (or is walking: recursion);
- ``enqueued``: it hands a project task to a queue, linked to that task;
- ``library``: code outside the project, named as the catalogue names it:
  a name an import binds to a module the project does not hold (or a value
  made from one: ``requests.Session().post``), a builtin or a literal's
  method, Django's QuerySet API on a project model, the framework's own
  attributes of a bound task (``self.retry``), a project class with no
  constructor of its own;
- ``cut``: project code the trace would follow but did not, for a budget
  (its share of the task's event budget was too small to walk it in);
- ``unresolved``: what the analysis cannot tell: a method of a parameter or
  of a value it does not know, a name bound nowhere it can see.

Unknown is a value here, never a guess: an unresolved call is neither
followed nor taken for a library's.  ``idemlint tasks --format json``
shows the counts and each unresolved call site, so that a user sees where
the analysis stops (and may declare an effect there, in
``[tool.idemlint.side-effects]``).

The trace builder answers at each call as it walks, when its summaries ask
for it (:attr:`idemlint.semantic.trace.Summaries.resolving`): what a name denotes
there is what it is bound to at that point of the walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.semantic.resolution import Definition, ProjectClass, Rows, defines
from idemlint.semantic.values import ProjectValue, Values, Walked, runs_library_code

if TYPE_CHECKING:
    from idemlint.semantic.trace import FunctionScope, Trace
    from idemlint.semantic.resolution import Calls
    from idemlint.effects import Knowledge
    from idemlint.project import LoadedModule

FOLLOWED = "followed"
ENQUEUED = "enqueued"
LIBRARY = "library"
CUT = "cut"
UNRESOLVED = "unresolved"
# In the order ``idemlint tasks`` lists them.
RESOLUTIONS = (FOLLOWED, ENQUEUED, LIBRARY, CUT, UNRESOLVED)


def unfollowed_call(
    values: Values, call: cst.Call, scope: "FunctionScope", callee: Optional[str], framework_object: Optional[str]
) -> str:
    """What a call the walk neither followed, enqueued nor cut runs:
    ``library``, ``followed`` (a function being walked: recursion) or
    ``unresolved``.  ``callee`` is the dotted name the walk gave it;
    ``framework_object`` the task's parameter that holds the framework's
    own task object (a bound task's ``self``), in the task's own scope.
    What the callee is, when the walk's own resolution did not say, is
    the evaluator's answer (:mod:`idemlint.semantic.values`)."""
    calls = values.calls
    if framework_object is not None and _framework_attribute(call.func, framework_object):
        return LIBRARY  # ``self.retry()``, ``self.request.id``
    value = calls.value_of(call.func, scope)
    if value is None:
        denoted = values.denote(call.func, Walked(scope))
        if isinstance(denoted, ProjectValue) and isinstance(denoted.value, (ProjectClass, Rows)):
            value = denoted.value  # ``cls(...)`` in a classmethod; a model's manager
        elif runs_library_code(denoted):
            return LIBRARY  # a library's or a builtin object's method, a library function
    if isinstance(value, Definition):
        return FOLLOWED  # resolved, and not walked again here: it is on the stack
    if isinstance(value, (ProjectClass, Rows)):
        return LIBRARY  # a constructor none of the project's classes defines; the ORM
    if value is None and callee is not None and _django_queryset(callee, scope, calls):
        return LIBRARY
    return UNRESOLVED  # an instance or module called, a value the evaluator does not know


def _framework_attribute(func: cst.BaseExpression, framework_object: str) -> bool:
    """``self.retry``, ``self.request.id``...: an attribute the framework's
    own task object has (:data:`catalog.BOUND_TASK_ATTRIBUTES`) read from
    the parameter it fills; any other (a project base's method) is not."""
    node = func
    while isinstance(node, (cst.Attribute, cst.Call, cst.Subscript)):
        inner = node.func if isinstance(node, cst.Call) else node.value
        if isinstance(node, cst.Attribute) and isinstance(inner, cst.Name):
            return inner.value == framework_object and node.attr.value in catalog.BOUND_TASK_ATTRIBUTES
        node = inner
    return False


def _django_queryset(callee: str, scope: "FunctionScope", calls: "Calls") -> bool:
    """``Order.objects.filter``, ``Order.objects.filter().exclude().count``
    on a project model (a name of the project or of the module): Django's
    QuerySet API (:data:`catalog.DJANGO_QUERYSET_API`)."""
    parts = callee.split(".")
    manager = next((n for n, part in enumerate(parts) if part in catalog.ORM_MANAGERS), None)
    if manager is None or manager == 0:
        return False
    model = ".".join(parts[:manager])
    if not _in_project(model, calls) and not defines(scope.module, parts[0]):
        return False
    chain = parts[manager + 1 :]
    if not chain or any(not part.endswith("()") for part in chain[:-1]):
        return False
    return all(part.removesuffix("()") in catalog.DJANGO_QUERYSET_API for part in chain)


def _in_project(dotted: str, calls: "Calls") -> bool:
    """Whether a dotted name starts with a module of the project."""
    project = calls.project
    if project is None:
        return False
    parts = dotted.split("(", 1)[0].split(".")
    name = ""
    for part in parts:
        name = f"{name}.{part}" if name else part
        if name in project.files:
            return True
    return False


@dataclass(frozen=True)
class CallSite:
    """A call the analysis could not resolve: where, and as written."""

    path: str
    line: int
    column: int
    call: str


@dataclass(frozen=True)
class EffectSite:
    """An effect on a task's paths: ``kind`` is ``keyable`` (an API that
    takes an idempotency key: a charge, an HTTP POST) or ``message`` (one
    that has none: an e-mail, a chat message); ``api`` is the catalogue's
    label of it."""

    kind: str
    api: str
    path: str
    line: int
    column: int
    call: str


@dataclass(frozen=True)
class Reach:
    """A task's calls by resolution (:data:`RESOLUTIONS` order), the
    unresolved ones, and its effects, each in the order the trace meets
    them (a place once)."""

    counts: Tuple[Tuple[str, int], ...]
    unresolved: Tuple[CallSite, ...] = ()
    effects: Tuple[EffectSite, ...] = ()


# Where a node is: (path, line, column), for nodes of the modules a trace walked.
Place = Callable[[cst.CSTNode, "LoadedModule"], Tuple[str, int, int]]
# Each call site counts once, as resolved as any walk found it.
_RANK = {resolution: rank for rank, resolution in enumerate(RESOLUTIONS)}
_LONGEST_CALL = 120


@dataclass(frozen=True)
class Met:
    """What a trace meets, before the places are known: each call site's
    resolution and the effect kinds and APIs at its sites (ids of nodes)."""

    resolutions: Dict[int, str]
    sites: Dict[int, Tuple[cst.Call, "LoadedModule"]]
    effects: Dict[Tuple[int, str], str]

    @classmethod
    def of(cls, trace: "Trace", knowledge: "Knowledge") -> "Met":
        resolutions: Dict[int, str] = {}
        sites: Dict[int, Tuple[cst.Call, "LoadedModule"]] = {}
        effects: Dict[Tuple[int, str], str] = {}
        for event in trace.calls():
            call = event.node
            if not isinstance(call, cst.Call):
                continue
            key = id(call)
            resolution = event.resolution or UNRESOLVED
            if key not in resolutions or _RANK[resolution] < _RANK[resolutions[key]]:
                resolutions[key] = resolution
            sites.setdefault(key, (call, event.scope.module))
            keyable = knowledge.keyable_effect(event)
            if keyable is not None:
                effects.setdefault((key, "keyable"), keyable.label)
            message = knowledge.non_keyable_effect(event)
            if message is not None:
                effects.setdefault((key, "message"), message.label)
        return cls(resolutions, sites, effects)

    def nodes(self) -> List[Tuple[cst.Call, "LoadedModule"]]:
        """The nodes :meth:`reach` asks the places of."""
        wanted = [key for key, resolution in self.resolutions.items() if resolution == UNRESOLVED]
        wanted += [key for key, _ in self.effects]
        return [self.sites[key] for key in dict.fromkeys(wanted)]

    def reach(self, place: Place) -> Reach:
        counts = dict.fromkeys(RESOLUTIONS, 0)
        for resolution in self.resolutions.values():
            counts[resolution] += 1
        unresolved = tuple(
            CallSite(*place(*self.sites[key]), written(self.sites[key][0]))
            for key, resolution in self.resolutions.items()
            if resolution == UNRESOLVED
        )
        effects = tuple(
            EffectSite(kind, api, *place(*self.sites[key]), written(self.sites[key][0]))
            for (key, kind), api in self.effects.items()
        )
        return Reach(tuple(counts.items()), unresolved, effects)


def written(call: cst.Call) -> str:
    """A call as written, on one line, its arguments elided: ``client.post(...)``."""
    func = " ".join(cst.Module([]).code_for_node(call.func).split())
    if len(func) > _LONGEST_CALL:
        func = func[: _LONGEST_CALL - 3] + "..."
    return f"{func}(...)" if call.args else f"{func}()"
