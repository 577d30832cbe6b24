"""A task's execution as an ordered list of events.

For each task, :class:`TraceBuilder` walks the task body once, in execution
order, and follows calls into the project definitions they run, as
:mod:`idemlint.semantic.resolution` resolves them: of the same module and, with a
:class:`~idemlint.project.Project`, of the project's other modules (however
deep, within the task's event budget, no recursion; a call not followed for
the budget is recorded in :attr:`Trace.unfollowed`).  It records every call,
assignment and parameter binding as an :class:`Event` carrying a *path*:
where in the nested blocks the event happens.  Rules read events, never the
syntax tree again, and ask :func:`happens_before` whether one event can run
after another in one execution (``if``/``else`` branches exclude each
other; a ``return`` ends a block).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple, Union, cast

import libcst as cst

from idemlint import catalog
from idemlint.semantic.resolution import Calls, Definition, Instance, ProjectClass, bind_arguments, closure_context, known_parameters
from idemlint.semantic.resolution import fetched_instance, keywords_collected, known_truth, note_assigned
from idemlint.semantic.resolution import annotated_type, bound_locally, is_self, parameters, spelled_head
from idemlint.semantic.dispatch import NOTHING, Picked, candidates, method_candidates
from idemlint.findings import PAST_EVENTS
from idemlint.names import Resolver, children, descendants, dotted_name, import_bindings, literal_text
from idemlint.semantic import reach
from idemlint.semantic.enqueue import Enqueues
from idemlint.semantic.transactions import Opened, Transactions
from idemlint.semantic.registries import is_named_lookup
from idemlint.semantic.values import NONE, Library, ProjectValue, Value, Values, Walked, possibilities, runs_library_code
from idemlint.statements import is_exit
from idemlint.tasks import ModuleIndex, Task

if TYPE_CHECKING:
    from idemlint.project import LoadedModule, Lookup, Project

# How many links of a chained receiver are read for a lookup by a class.
MAX_LOOKUP_LINKS = 6
# The work a task's trace may hold, in events.  There is no depth limit:
# a call into project code is followed however deep it is, and may spend
# the largest power of two not above three quarters of what its caller has
# left (about half; a power of two so that the walks of a helper at
# different calls are often given the same share, and one summary serves
# them all), so that a wide helper (one that notifies on every error path,
# say) cannot starve the statements after it: the task's own effects are
# always seen.  A chain of calls so ends on its own, ever shorter of
# budget, about twelve calls below the task.  The budget is per task, not
# per run, so that what a task's trace holds does not depend on which tasks
# ran before it (``--jobs``, order).
MAX_EVENTS_PER_TASK = 40_000
# A call whose share is smaller is not followed: too little to walk anything.
MIN_CALLEE_EVENTS = 8
NO_EXIT = 1 << 30


@dataclass(frozen=True)
class Step:
    """One level of an event's position: statement ``index`` of a block.

    ``container`` identifies the compound statement (or function body) owning
    the block, ``branch`` which of its blocks (``body``, ``orelse``,
    ``handler0``...).  ``next_exit`` is the index of the first unconditional
    ``return``/``raise`` after ``index`` in that block, ``next_skip`` of the
    first ``continue``/``break``, which ends the block and the iteration of
    the loop around it, not what follows that loop.  ``boundary`` marks a
    function body: a ``return`` there ends only the helper, not the caller.
    """

    container: int
    kind: str
    branch: str
    index: int
    next_exit: int
    boundary: bool = False
    next_skip: int = NO_EXIT


@dataclass
class FunctionScope:
    """A function as executed inside one task: its module and name resolution.

    ``chain`` is how the task reaches it: ``("charge_order", "billing.capture")``.
    ``owner`` is the class whose body defines the method (as parsed: a
    class may be parsed with only the method asked for, see
    :meth:`idemlint.segments.Later.parse_member`), ``instance`` the class of
    the instance it runs for, with its module, ``enclosing`` the scope a closure was defined in,
    ``assigned`` the names the walk has seen assigned so far, and ``known``
    the truth of the parameters the call passed a literal for or left at
    a literal default.
    """

    function: cst.FunctionDef
    qualified_name: str
    resolver: Resolver
    owner: Optional[cst.ClassDef]
    parameters: Tuple[str, ...]
    is_task: bool
    module: "LoadedModule"
    chain: Tuple[str, ...]
    instance: Optional[ProjectClass] = None
    enclosing: Optional["FunctionScope"] = None
    assigned: Set[str] = field(default_factory=set)
    known: Dict[str, bool] = field(default_factory=dict)
    # The values the walk has seen assigned to each local name so far, those
    # a later assignment of the same block has not replaced, and the block
    # of each (its statements' containers and branches).
    values: Dict[str, List[cst.BaseExpression]] = field(default_factory=dict)
    value_blocks: Dict[str, List[Tuple[Tuple[int, str], ...]]] = field(default_factory=dict)
    # The parameters a statement of the function's own body (not one in a
    # nested block) has assigned again so far, with the value: every path
    # on from there holds that value, not what was passed.
    replaced: Dict[str, cst.BaseExpression] = field(default_factory=dict)
    # The arguments each walked call passed a parameter, with the caller's scope.
    arguments: Dict[str, List[Tuple[cst.BaseExpression, "FunctionScope"]]] = field(default_factory=dict)
    # The parameters a walked call left out, with their defaults (read at
    # module level, where Python evaluates them).
    defaults_left: Dict[str, cst.BaseExpression] = field(default_factory=dict)
    # The context managers each ``with ... as name`` entered so far.
    entered: Dict[str, List[cst.BaseExpression]] = field(default_factory=dict)
    # What each ``for name in ...`` iterated over so far, with how deep in
    # the element the name is unpacked (``for key, value in rows``: 1).
    iterated: Dict[str, List[Tuple[cst.BaseExpression, int]]] = field(default_factory=dict)

    @property
    def index(self) -> ModuleIndex:
        return self.module.index


# What names spelled in a call's keywords or a dict literal's entries held
# at that point of the walk, by keyword or entry key.
Held = Tuple[Tuple[str, Tuple[cst.BaseExpression, ...]], ...]


@dataclass(frozen=True)
class Event:
    """Something a task does, in execution order.

    ``kind`` is ``call`` (``node`` is the Call; ``discarded`` when it is a
    statement of its own, its result unused), ``assign`` (``node`` is the
    statement; ``targets`` and ``value``), ``bind`` (a helper parameter bound
    to an argument evaluated in ``value_scope``), ``return`` (a helper
    returns ``value`` to ``call_site``), ``check`` (``node`` is an ``if``
    whose test is ``value``; ``exits`` when its body ends the task early),
    or ``loop`` (``node`` is a ``for`` over ``value``, before its body).
    ``caught`` names the exceptions handled by the ``try`` blocks around it.
    """

    kind: str
    node: cst.CSTNode
    scope: FunctionScope
    path: Tuple[Step, ...]
    seq: int
    callee: Optional[str] = None
    targets: Tuple[cst.BaseExpression, ...] = ()
    value: Optional[cst.BaseExpression] = None
    value_scope: Optional[FunctionScope] = None
    call_site: Optional[cst.Call] = None
    transaction: Optional[int] = None
    discarded: bool = False
    exits: bool = False
    caught: Tuple[str, ...] = ()
    followed: bool = False  # a call into project code the trace walks
    # The project tasks the call enqueues, or runs inline where the walk
    # does not follow it (see idemlint.subtasks, idemlint.semantic.enqueue).
    enqueued: Tuple[Definition, ...] = ()
    # How the call resolved, when the summaries ask (idemlint.semantic.reach).
    resolution: str = ""
    # What each keyword argument that is a local name held when the call
    # ran (``idempotency_key=key``): the values assigned to it so far; for a
    # dict literal assigned, or the ``**kwargs`` a call fills, each entry's.
    held: Held = ()

    @property
    def call(self) -> Optional[cst.Call]:
        """The call the event makes, when its node is one."""
        return self.node if isinstance(self.node, cst.Call) else None


@dataclass(frozen=True)
class Unfollowed:
    """A call the walk did not follow, or followed only in part, for a budget.

    ``reason`` is ``PAST_EVENTS``: the call's share of the event budget
    was too small to walk it, or ran out while walking what ``node`` runs
    (the call into the helper, or the task's own definition when its body
    ran it out).  ``module`` holds ``node``.
    """

    node: cst.CSTNode
    module: "LoadedModule"
    function: str  # the function making the call, dotted within its module
    reason: str


@dataclass
class _Budget:
    """A walk's share of its task's event budget: the trace may hold
    ``limit`` events before the walk ends.  ``start``: how many it held
    when the walk began; ``need``: how many events the walk has needed so
    far, counted from ``start``, to be walked as it is (every statement's
    start within its share, and each call made given a share that holds
    what that call needed); ``spent``: whether it ran out."""

    limit: int
    start: int
    need: int = 0
    spent: bool = False


@dataclass
class Trace:
    task: Task
    module: "LoadedModule"
    events: List[Event] = field(default_factory=list)
    unfollowed: List[Unfollowed] = field(default_factory=list)
    # id(node) -> its module, built on the first question: a rule asks once
    # per finding, and a scan of the events each time is quadratic.
    _modules: Dict[int, "LoadedModule"] = field(default_factory=dict, repr=False, compare=False)
    _modules_seen: int = field(default=0, repr=False, compare=False)
    # How a message names each transaction the trace opened, by the id of
    # the ``with`` statement or the function (a replayed walk's come with
    # its summary).
    transactions: Dict[int, str] = field(default_factory=dict, repr=False, compare=False)

    def calls(self) -> Iterator[Event]:
        return (e for e in self.events if e.kind == "call")

    def after(self, event: Event) -> Sequence[Event]:
        """The events emitted after ``event`` (events are stored in ``seq`` order)."""
        return self.events[event.seq + 1 :]

    def module_of(self, node: cst.CSTNode) -> "LoadedModule":
        """The module holding a node an event refers to (a helper's may be another file)."""
        if self._modules_seen != len(self.events):
            self._modules.clear()
            for event in reversed(self.events):  # the first event naming a node wins
                self._modules[id(event.node)] = event.scope.module
            self._modules_seen = len(self.events)
        return self._modules.get(id(node), self.module)


# Which branches of one compound statement follow which; a missing pair is
# mutually exclusive (``if`` body vs ``else``, two ``except`` handlers).
def _branch_follows(kind: str, first: str, second: str) -> bool:
    order = {
        "If": {("test", "body"), ("test", "orelse")},
        "Loop": {("test", "body"), ("test", "orelse"), ("body", "orelse")},
        "With": {("items", "body")},
        "Match": {("subject", "case")},
        "Pick": set(),  # the candidates of a call whose callee is picked at run time
        "Try": {("body", "handler"), ("body", "orelse"), ("body", "finalbody"),
                ("handler", "finalbody"), ("orelse", "finalbody")},
        "Call": set(),
    }.get(kind, set())
    return (_family(first), _family(second)) in order


def _family(branch: str) -> str:
    return branch.rstrip("0123456789")


def happens_before(first: Event, second: Event) -> bool:
    """Whether ``second`` can run after ``first`` in one execution."""
    for level, (a, b) in enumerate(zip(first.path, second.path)):
        if a == b:
            continue
        if a.container != b.container:
            return first.seq < second.seq
        if a.branch != b.branch:
            if not _branch_follows(a.kind, a.branch, b.branch):
                return False
            return not _exits_after(first.path[level + 1 :])
        if b.index <= a.index:
            return False
        if a.next_exit < b.index or a.next_skip < b.index:
            return False
        return not _exits_after(first.path[level + 1 :])
    return first.seq < second.seq


def in_a_handler(event: Event) -> bool:
    """Whether ``event`` runs in an ``except`` handler (of its function or
    of a caller's call that leads to it)."""
    return any(step.kind == "Try" and step.branch.startswith("handler") for step in event.path)


def _exits_after(deeper: Sequence[Step]) -> bool:
    """Whether the block holding an event ends with a return/raise after
    it, or with a ``continue``/``break`` of a loop that ``deeper`` is not
    inside (the rest of that loop's iteration does not run)."""
    in_a_loop = False
    for step in deeper:
        if step.boundary:
            return False
        if step.next_exit != NO_EXIT:
            return True
        # A ``continue`` in this loop's own body, or in a block inside it, ends its iteration only.
        in_a_loop = in_a_loop or (step.kind == "Loop" and step.branch == "body")
        if step.next_skip != NO_EXIT and not in_a_loop:
            return True
    return False


@dataclass
class Summary:
    """A helper's events from one walk, to be replayed at another call.

    ``context`` is the transaction around that call and how many caught
    exceptions surrounded it; events inside inherit the new call's instead.
    """

    scope: FunctionScope
    call: cst.Call
    prefix: int
    context: Tuple[Optional[int], int]
    events: List[Event]
    lookups: List["Lookup"]
    # Whether an atomic block of the default database was open around the
    # walk, when a branch in it asked (``if connection.in_atomic_block:``);
    # None when none did.
    in_transaction: Optional[bool] = None
    # How a message names each transaction the walk opened (Trace.transactions).
    transactions: Dict[int, str] = field(default_factory=dict)
    # The share of the event budget the walk was given, and whether the
    # budget cut it (then its calls not followed are in ``unfollowed``, and
    # it serves only a call given the same share); if not, the smallest
    # share it needs to be walked as it was (_Budget.need), and it serves
    # any call given that much.
    share: int = 0
    cut_by_budget: bool = False
    need: int = 0
    # The calls not followed below the helper's own call, and whether its
    # own walk ran out (recorded at the call it is replayed for).
    unfollowed: List[Unfollowed] = field(default_factory=list)
    spent: bool = False
    # The functions the walk ran (a replay where one of them is being
    # walked would be cut there as recursion), the task it was walked for,
    # and the tasks its calls named as enqueued (each left out in its own
    # trace: a task enqueueing itself is not its own side effect).
    entered: FrozenSet[int] = frozenset()
    task: int = 0
    tasks_named: FrozenSet[int] = frozenset()

    def serves(self, share: int, stack: Sequence[cst.FunctionDef], task: int) -> bool:
        """Whether walking the helper with ``share``, inside the functions
        of ``stack``, for the task ``task``, gives this walk's events."""
        if self.cut_by_budget:
            fits = share == self.share
        else:
            fits = share == self.share or share >= self.need
        return (
            fits
            and (task == self.task or self.tasks_named.isdisjoint((task, self.task)))
            and not any(id(function) in self.entered for function in stack)
        )

    def scope_for(self, caller_chain: Tuple[str, ...]) -> FunctionScope:
        return replace(self.scope, chain=caller_chain + self.scope.chain[-1:])

    def scopes_under(self, root: FunctionScope) -> Dict[int, FunctionScope]:
        """The summary's scopes (the helper's and nested helpers') with chains
        that start at ``root``'s caller."""
        depth = len(self.scope.chain)
        mapped: Dict[int, FunctionScope] = {id(self.scope): root}
        for event in self.events:
            scope = event.scope
            if id(scope) not in mapped:
                mapped[id(scope)] = replace(scope, chain=root.chain + scope.chain[depth:])
        return mapped

    def relative_path(self, event: Event, call: int, moved: Dict[int, Step]) -> Tuple[Step, ...]:
        """The event's path below the call it was walked at, as it stands
        below ``call``; ``moved`` keeps each step moved there once for the
        replay (every event's path starts at the same call boundary)."""
        original = id(self.call)
        return tuple(
            _moved(step, call, moved) if step.container == original else step
            for step in event.path[self.prefix :]
        )


class Summaries:
    """Helper summaries of one run, shared by every task.  ``resolving``:
    the traces that share them record how each call resolved
    (:mod:`idemlint.semantic.reach`; ``idemlint tasks`` asks, ``check``
    does not), so that every summary replayed holds it too."""

    def __init__(self, resolving: bool = False) -> None:
        self._store: Dict[Tuple[object, ...], List[Summary]] = {}
        self.resolving = resolving

    def get(
        self,
        key: Tuple[object, ...],
        in_transaction: bool,
        share: int,
        stack: Sequence[cst.FunctionDef],
        task: int,
    ) -> Optional[Summary]:
        """A summary of the walk ``key`` names that a call given ``share``
        of the event budget, inside ``stack``, for ``task``, would walk
        alike, in or out of a transaction as the call is, should its walk
        have asked."""
        return next(
            (
                s for s in self._store.get(key, ())
                if s.serves(share, stack, task) and s.in_transaction in (None, in_transaction)
            ),
            None,
        )

    def put(self, key: Tuple[object, ...], summary: Summary) -> None:
        self._store.setdefault(key, []).append(summary)


class TraceBuilder:
    """Builds the :class:`Trace` of one task."""

    def __init__(
        self,
        module: "LoadedModule",
        task: Task,
        project: Optional["Project"] = None,
        summaries: Optional["Summaries"] = None,
        calls: Optional[Calls] = None,
    ) -> None:
        self.module = module
        self.project = project
        self.calls = calls if calls is not None else Calls(project)
        self.summaries = summaries if summaries is not None else Summaries()
        self._values = Values(self.calls)  # what a call the walk did not resolve denotes
        self._enqueues = Enqueues(self.calls, self._values, project)
        self._tx = Transactions(self.calls, self._values)
        self.task = task
        # Set when a walk skipped a call for a reason its caller's context
        # decides (recursion): such a walk is not reusable.
        self._cut = False
        # Set when the budget cut a walk: it is reusable at the same share.
        self._budget_cut = False
        # The share of the budget given to what the call being read runs.
        self._share = 0
        # The tasks the calls of the walk in progress named as enqueued.
        self._tasks_named: Set[int] = set()
        # Of each walk or replay in progress, the task's first: its share of
        # the event budget, and what walking it has needed so far.
        self._budgets: List[_Budget] = [_Budget(MAX_EVENTS_PER_TASK, 0)]
        # Set when a walk took a branch because a transaction was open (or
        # not) around it: its summary serves only where that is the same.
        self._asked_transaction = False
        self.trace = Trace(task, module)
        self._seq = itertools.count()
        self._stack: List[cst.FunctionDef] = []
        self._transactions: List[int] = []
        # How many of them are atomic blocks of Django's default database.
        self._default_atomic = 0
        self._call_sites: List[Optional[cst.Call]] = []
        self._caught: List[str] = []
        # What each walk or replay in progress runs for: the call into it
        # (the task's own definition first), and the module holding that.
        self._running: List[Tuple[cst.CSTNode, "LoadedModule", str]] = [
            (task.owner or task.function, module, _definition_name(task))
        ]

    def build(self) -> Trace:
        owner = self.task.owner
        instance = ProjectClass(self.module, owner.name.value, owner) if owner is not None else None
        scope = self._scope(Definition(self.task.function, owner, self.module, instance), ())
        self._function(scope, (), None)
        return self.trace

    # -- scopes -----------------------------------------------------------

    def _scope(self, definition: Definition, caller_chain: Tuple[str, ...]) -> FunctionScope:
        """A scope for ``definition``; a task's when ``caller_chain`` is empty."""
        function, module, enclosing = definition.function, definition.module, definition.enclosing
        parent = enclosing.resolver if enclosing is not None else module.index.resolver()
        resolver = parent.child()
        params = function.params
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        for param in every:
            typed = annotated_type(param.annotation.annotation, resolver) if param.annotation is not None else None
            annotation = resolver.resolve(typed) if typed is not None else None
            if annotation is not None:
                resolver.bindings[param.name.value] = f"{annotation}()"
        instance = definition.instance
        owner = definition.owner
        name = function.name.value
        if enclosing is not None:
            name = f"{enclosing.qualified_name}.{name}"
        elif definition.owner is not None:
            name = f"{definition.owner.name.value}.{name}"
        names = tuple(p.name.value for p in every)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                names += (star.name.value,)
        if instance is not None and enclosing is None:
            # ``self.session = requests.Session()`` anywhere in the class:
            # ``self.session.post`` resolves to ``requests.Session().post``.
            resolver.bindings.update(self.calls.instance_bindings(instance))
        shown = name if module is self.module else f"{module.name}.{name}"
        return FunctionScope(
            function, name, resolver, owner, names, not caller_chain, module, caller_chain + (shown,),
            instance=instance, enclosing=enclosing,
        )

    def _function(
        self,
        scope: FunctionScope,
        path: Tuple[Step, ...],
        call: Optional[cst.Call],
    ) -> None:
        self._stack.append(scope.function)
        self._call_sites.append(call)
        opened = self._opened_around(scope)
        default = opened is not None and opened.default_atomic
        if opened is not None:
            self._transactions.append(id(scope.function))
            self.trace.transactions[id(scope.function)] = opened.label
        self._default_atomic += default
        statements: Sequence[Union[cst.BaseStatement, cst.BaseSmallStatement]] = (
            scope.function.body.body
        )
        container = id(call) if call is not None else id(scope.function)
        self._block(statements, container, "Call", "body", path, scope, boundary=True)
        self._default_atomic -= default
        if opened is not None:
            self._transactions.pop()
        self._call_sites.pop()
        self._stack.pop()

    def _opened_around(self, scope: FunctionScope) -> Optional[Opened]:
        """The transaction a function runs in by its decorators, or, for
        the task itself, by the task class that runs its body."""
        for decorator in scope.function.decorators:
            opened = self._tx.decorator(decorator.decorator, scope)
            if opened is not None:
                return opened
        if scope.is_task:
            return self._tx.task_class(self.task, self.module)
        return None

    # -- statements -------------------------------------------------------

    def _block(
        self,
        statements: Sequence[Union[cst.BaseStatement, cst.BaseSmallStatement]],
        container: int,
        kind: str,
        branch: str,
        path: Tuple[Step, ...],
        scope: FunctionScope,
        boundary: bool = False,
    ) -> None:
        exits = [i for i, s in enumerate(statements) if is_exit(s)]
        skips = [i for i, s in enumerate(statements) if _is_skip(s)]
        for i, statement in enumerate(statements):
            if self._out_of_budget():
                return
            next_exit = next((e for e in exits if e > i), NO_EXIT)
            next_skip = next((e for e in skips if e > i), NO_EXIT)
            step = Step(container, kind, branch, i, next_exit, boundary, next_skip)
            self._statement(statement, path + (step,), scope)

    def _statement(
        self,
        statement: Union[cst.BaseStatement, cst.BaseSmallStatement],
        path: Tuple[Step, ...],
        scope: FunctionScope,
    ) -> None:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self._small(small, path, scope)
        elif isinstance(statement, cst.BaseSmallStatement):
            self._small(statement, path, scope)
        elif isinstance(statement, cst.If):
            self._if(statement, path, scope)
        elif isinstance(statement, (cst.For, cst.While)):
            self._loop(statement, path, scope)
        elif isinstance(statement, cst.With):
            self._with(statement, path, scope)
        elif isinstance(statement, (cst.Try, cst.TryStar)):
            self._try(statement, path, scope)
        elif isinstance(statement, cst.Match):
            self._match(statement, path, scope)
        # Nested function and class definitions do not run here.

    def _small(
        self, small: cst.BaseSmallStatement, path: Tuple[Step, ...], scope: FunctionScope
    ) -> None:
        if isinstance(small, cst.Assign):
            self._expression(small.value, path, scope)
            targets = tuple(t.target for t in small.targets)
            self._assign(small, targets, small.value, path, scope)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self._expression(small.value, path, scope)
                self._assign(small, (small.target,), small.value, path, scope)
        elif isinstance(small, cst.AugAssign):
            self._expression(small.value, path, scope)
            self._emit("assign", small, scope, path, targets=(small.target,), value=small.value)
        elif isinstance(small, cst.Return):
            if small.value is not None:
                self._expression(small.value, path, scope)
                self._emit("return", small, scope, path, value=small.value)
        elif isinstance(small, (cst.Import, cst.ImportFrom)):
            scope.resolver.bindings.update(import_bindings(small, scope.index.package))
        elif isinstance(small, cst.Expr):
            value = small.value.expression if isinstance(small.value, cst.Await) else small.value
            self._expression(small.value, path, scope, discarded=value)
        elif isinstance(small, (cst.Raise, cst.Assert, cst.Del)):
            for child in children(small):
                if isinstance(child, cst.BaseExpression):
                    self._expression(child, path, scope)

    def _assign(
        self,
        node: cst.CSTNode,
        targets: Tuple[cst.BaseExpression, ...],
        value: cst.BaseExpression,
        path: Tuple[Step, ...],
        scope: FunctionScope,
    ) -> None:
        self._emit("assign", node, scope, path, targets=targets, value=value, held=_held_by_entries(value, scope))
        fetched = fetched_instance(scope.resolver, value)
        for target in targets:
            note_assigned(scope.assigned, target)
            if isinstance(target, cst.Name) and fetched is not None:
                scope.resolver.bindings[target.value] = fetched
            elif isinstance(target, cst.Name):
                scope.resolver.bind(target.value, value)
            if isinstance(target, cst.Name):
                _replace_value(scope, target.value, value, path)
                if _replaces_the_parameter(node, target.value, path, scope):
                    scope.replaced[target.value] = value

    def _if(self, node: cst.If, path: Tuple[Step, ...], scope: FunctionScope) -> None:
        test_path = path + (self._branch(node, "If", "test"),)
        self._expression(node.test, test_path, scope)
        exits = any(is_exit(statement) for statement in node.body.body)
        self._emit("check", node, scope, test_path, value=node.test, exits=exits)
        # A branch a literal argument or default rules out does not run; nor
        # one an open transaction (or none) rules out.
        truth = known_truth(node.test, scope.known, scope.assigned)
        if truth is None:
            truth = self._transaction_truth(node.test, scope)
        if truth is not False:
            self._block(node.body.body, id(node), "If", "body", path, scope)
        orelse = node.orelse
        if truth is True:
            return
        if isinstance(orelse, cst.If):
            self._block([orelse], id(node), "If", "orelse", path, scope)
        elif isinstance(orelse, cst.Else):
            self._block(orelse.body.body, id(node), "If", "orelse", path, scope)

    def _transaction_truth(self, test: cst.BaseExpression, scope: FunctionScope) -> Optional[bool]:
        """Whether ``if connection.in_atomic_block:`` (or its ``not``) holds:
        it does where the trace has opened an atomic block of Django's
        default database around the walk (:data:`catalog.ATOMIC_BLOCK_FLAGS`)."""
        negated = False
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, not negated
        if not catalog.matches_any(catalog.ATOMIC_BLOCK_FLAGS, scope.resolver.resolve(test)):
            return None
        if isinstance(test, cst.Attribute) and isinstance(test.value, cst.Call) and test.value.args:
            return None  # ``get_connection("other")``
        self._asked_transaction = True
        return (self._default_atomic > 0) != negated

    def _loop(
        self, node: Union[cst.For, cst.While], path: Tuple[Step, ...], scope: FunctionScope
    ) -> None:
        header = node.iter if isinstance(node, cst.For) else node.test
        test_path = path + (self._branch(node, "Loop", "test"),)
        self._expression(header, test_path, scope)
        if isinstance(node, cst.For):
            self._emit("loop", node, scope, test_path, value=node.iter)
            note_assigned(scope.assigned, node.target)
            if isinstance(node.target, cst.Name):
                self._bind_element(node.target.value, node.iter, scope)
            else:
                for name, depth in _unpacked_names(node.target):
                    scope.iterated.setdefault(name, []).append((node.iter, depth))
                    scope.resolver.bindings.pop(name, None)
        self._block(node.body.body, id(node), "Loop", "body", path, scope)
        if node.orelse is not None:
            self._block(node.orelse.body.body, id(node), "Loop", "orelse", path, scope)

    def _bind_element(self, name: str, iterated: cst.BaseExpression, scope: FunctionScope) -> None:
        """``for order in Order.objects.filter(...)``: each ``order`` is a
        model instance the query fetched, spelled as the ORM call that
        fetches one (``order.m()`` runs ``Order.m``)."""
        scope.iterated.setdefault(name, []).append((iterated, 0))
        while isinstance(iterated, cst.Subscript) and all(isinstance(i.slice, cst.Slice) for i in iterated.slice):
            iterated = iterated.value  # ``rows[:100]``: the rows still
        element = self._values.element(self._values.denote(iterated, Walked(scope)))
        resolved = scope.resolver.resolve(iterated)
        if isinstance(element, ProjectValue) and isinstance(element.value, Instance) and resolved is not None:
            scope.resolver.bindings[name] = f"{resolved}.get()"
        else:
            scope.resolver.bindings.pop(name, None)  # no longer what it was bound to before the loop

    def _with(self, node: cst.With, path: Tuple[Step, ...], scope: FunctionScope) -> None:
        transactional = default = False
        for item in node.items:
            self._expression(item.item, path + (self._branch(node, "With", "items"),), scope)
            opened = self._tx.context(item.item, scope)
            if opened is not None:
                transactional = True
                default = default or opened.default_atomic
                self.trace.transactions.setdefault(id(node), opened.label)
            if item.asname is not None:
                note_assigned(scope.assigned, item.asname.name)
                if isinstance(item.asname.name, cst.Name):
                    scope.resolver.bind(item.asname.name.value, item.item)
                    scope.entered.setdefault(item.asname.name.value, []).append(item.item)
        if transactional:
            self._transactions.append(id(node))
        self._default_atomic += default
        self._block(node.body.body, id(node), "With", "body", path, scope)
        self._default_atomic -= default
        if transactional:
            self._transactions.pop()

    def _try(
        self, node: Union[cst.Try, cst.TryStar], path: Tuple[Step, ...], scope: FunctionScope
    ) -> None:
        handlers: Sequence[Union[cst.ExceptHandler, cst.ExceptStarHandler]] = node.handlers
        caught = [name for handler in handlers for name in _caught_names(handler, scope.resolver)]
        self._caught.extend(caught)
        self._block(node.body.body, id(node), "Try", "body", path, scope)
        del self._caught[len(self._caught) - len(caught) :]
        for number, handler in enumerate(handlers):
            self._block(handler.body.body, id(node), "Try", f"handler{number}", path, scope)
        if node.orelse is not None:
            self._block(node.orelse.body.body, id(node), "Try", "orelse", path, scope)
        if node.finalbody is not None:
            self._block(node.finalbody.body.body, id(node), "Try", "finalbody", path, scope)

    def _match(self, node: cst.Match, path: Tuple[Step, ...], scope: FunctionScope) -> None:
        self._expression(node.subject, path + (self._branch(node, "Match", "subject"),), scope)
        for number, case in enumerate(node.cases):
            self._block(case.body.body, id(node), "Match", f"case{number}", path, scope)

    @staticmethod
    def _branch(node: cst.CSTNode, kind: str, branch: str) -> Step:
        return Step(id(node), kind, branch, 0, NO_EXIT)

    # -- expressions ------------------------------------------------------

    def _expression(
        self,
        node: cst.BaseExpression,
        path: Tuple[Step, ...],
        scope: FunctionScope,
        discarded: Optional[cst.BaseExpression] = None,
    ) -> None:
        calls, walruses = _evaluated(node)
        for call in calls:
            callee = scope.resolver.resolve(call.func)
            cuts = len(self.trace.unfollowed)
            # The share of the budget each project definition the call may
            # run is given, decided here, before the call's own events: the
            # candidates of a picked callee exclude each other, each gets it.
            self._share = self._callee_share()
            # A module-level receiver the branches of an ``if`` bind to
            # different project instances runs one of their methods.
            picked = self._picked_method(call, scope)
            helper = self._helper(call, scope) if not picked.complete else None
            if helper is None and not picked.complete:
                picked = self._picked(call, scope)
            denoted = self._denoted(call.func, scope) if helper is None and not picked.complete else None
            if denoted is not None and not picked.definitions:
                # What the evaluator says the callee is: a method of what a
                # lookup by a class gave (``find_service(IMailer).send``),
                # each implementation of an interface's.
                picked = self._denoted_choices(call, denoted, scope)
            if helper is None and not picked.complete:
                # A library object built in another project module
                # (``from app.extensions import mail``) is called as the library's.
                # So is a method a project class inherits from a library's.
                # Else what the evaluator says it is, when a library's: a
                # parameter's annotated class, ``self.http`` a constructor
                # set from one, what a project function returns.
                callee = (
                    self.calls.library_callee(call.func, scope)
                    or self.calls.inherited_library_method(call.func, scope)
                    or _library_name(denoted)
                    or callee
                )
            enqueued = self._enqueued(call, scope) if helper is None and not picked.complete else ()
            followed = helper is not None or picked.complete
            resolution = ""
            if self.summaries.resolving:
                resolution = self._resolution(call, scope, callee, followed, enqueued, cuts)
            self._emit(
                "call", call, scope, path, callee=callee, discarded=call is discarded,
                followed=followed, enqueued=enqueued, resolution=resolution, held=_held_by_keywords(call, scope),
            )
            share = self._share
            if helper is not None:
                self._enter_helper(call, helper, path, scope, share)
            for number, choice in enumerate(picked.definitions):
                # Each candidate on a path of its own: they exclude each other.
                choice_path = path + (self._branch(call, "Pick", f"choice{number}"),)
                self._enter_helper(call, choice, choice_path, scope, share)
        # ``if handler := HANDLERS.get(kind):`` binds as an assignment does,
        # once the calls that compute the value have run.
        for named in walruses:
            self._assign(named, (named.target,), named.value, path, scope)

    def _denoted(self, func: cst.BaseExpression, scope: FunctionScope) -> Optional[Value]:
        """What the evaluator says a callee is, when it is a method called
        on a value the walk's own resolution does not name: a local name
        (a parameter, an assignment, ``self``) or a call's result."""
        if not isinstance(func, cst.Attribute):
            return None
        head = spelled_head(func)
        local = head is not None and (bound_locally(scope, head) or is_self(scope, head))
        if not local and not self._looks_up_in_chain(func.value, scope):
            # A module-level dotted name: Calls.library_callee has followed
            # it, without loading what it did not need.
            return None
        return self._values.denote(func, Walked(scope))

    def _looks_up_in_chain(self, node: cst.BaseExpression, scope: FunctionScope) -> bool:
        """Whether a receiver is reached through a call that may look an
        object up by its class (``find_service(IMailer)``, ``get(Notifier)``):
        one given a project class as a positional argument, a class by
        the name a registry keeps it under (``apps.get_model(...)``), or an
        object by the name the project registers it under (a ``name=``
        alone, see :class:`idemlint.semantic.registries.NamedRegistrations`), among
        the links nearest the call (a lookup's result is used at once)."""
        for _ in range(MAX_LOOKUP_LINKS):
            if not isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
                break
            if isinstance(node, cst.Call):
                if scope.resolver.resolve(node.func) in catalog.APP_MODEL_LOOKUPS:
                    return True  # ``apps.get_model("orders", "Order")``: a class by its registered name
                if is_named_lookup(node):
                    return True  # ``registry.lookup(name="mailer")``: an object by the name it is registered under
                for arg in node.args:
                    if arg.keyword is None and not arg.star and isinstance(arg.value, (cst.Name, cst.Attribute)):
                        if isinstance(self.calls.value_of(arg.value, scope), ProjectClass):
                            return True
                node = node.func
            else:
                node = node.value
        return False

    def _denoted_choices(self, call: cst.Call, denoted: Value, scope: FunctionScope) -> Picked:
        """The project function the evaluator says a call runs, or each
        implementation's method when it is called on an interface, those
        ours to follow.  A union of what a factory may return is left to
        the resolution that reads the factory's arguments (which declines
        when they do not decide it)."""
        # A member of None fails: nothing runs on that path (``Optional[...]``).
        members = [m for m in possibilities(denoted) if m != NONE]
        found = [m.value for m in members if isinstance(m, ProjectValue) and isinstance(m.value, Definition)]
        if not found or len(found) != len(members):
            return NOTHING
        if len(found) > 1 and not self._on_an_interface(call, scope):
            return NOTHING
        followable = [self._followable(choice, call, scope) for choice in found]
        chosen = tuple(choice for choice in followable if choice is not None)
        return Picked(chosen, len(chosen) == len(found))

    def _on_an_interface(self, call: cst.Call, scope: FunctionScope) -> bool:
        """Whether a method is called on an object known only by the
        interface it provides (``find_service(IMailer).send``)."""
        assert isinstance(call.func, cst.Attribute)
        receiver = self._values.denote(call.func.value, Walked(scope))
        return (
            isinstance(receiver, ProjectValue)
            and isinstance(receiver.value, Instance)
            and self._values.is_interface(receiver.value.of)
        )

    def _resolution(
        self,
        call: cst.Call,
        scope: FunctionScope,
        callee: Optional[str],
        followed: bool,
        enqueued: Tuple[Definition, ...],
        cuts: int,
    ) -> str:
        """How a call resolved (see :mod:`idemlint.semantic.reach`);
        ``cuts``: how many calls the trace had cut before it."""
        if followed:
            return reach.FOLLOWED
        if enqueued:
            return reach.ENQUEUED
        if any(cut.node is call for cut in self.trace.unfollowed[cuts:]):
            return reach.CUT
        if self._enqueues.handed(call, scope):
            return reach.ENQUEUED  # the task itself, again: a retry or a continuation
        if self._enqueues.sends_an_unknown_name(call, scope):
            return reach.UNRESOLVED
        if self._enqueues.builds(call, scope):
            return reach.LIBRARY
        return reach.unfollowed_call(self._values, call, scope, callee, self._framework_object(scope))

    def _framework_object(self, scope: FunctionScope) -> Optional[str]:
        """The parameter a bound function task's framework fills with its
        own task object (``self``), in the task's scope."""
        task = self.task
        if not scope.is_task or not scope.parameters or not task.bound or task.owner is not None:
            return None
        return scope.parameters[0]

    def _enqueued(self, call: cst.Call, scope: FunctionScope) -> Tuple[Definition, ...]:
        """The project tasks a call enqueues (or runs inline, unfollowed),
        other than the task this trace is of (a task enqueueing itself
        retries or continues: IDM008's concern)."""
        found = self._enqueues.handed(call, scope)
        self._tasks_named.update(id(task.function) for task in found)
        return tuple(task for task in found if task.function is not self.task.function)

    def _helper(self, call: cst.Call, scope: FunctionScope) -> Optional[Definition]:
        """The project definition a call runs (see :mod:`idemlint.semantic.resolution`),
        when it is ours to follow: not back into a function being walked."""
        found = self.calls.resolve(call, scope)
        return self._followable(found, call, scope) if found is not None else None

    def _picked(self, call: cst.Call, scope: FunctionScope) -> Picked:
        """The candidates of a call that picks its callee from a table or an
        alias (see :mod:`idemlint.semantic.dispatch`) that are ours to follow; the
        call is followed when they are all it may run."""
        if not isinstance(call.func, (cst.Subscript, cst.Call, cst.Name)):
            return NOTHING
        found = candidates(self.calls, call, scope)
        followable = [self._followable(choice, call, scope) for choice in found.definitions]
        return Picked(
            tuple(choice for choice in followable if choice is not None),
            found.complete and None not in followable,
        )

    def _picked_method(self, call: cst.Call, scope: FunctionScope) -> Picked:
        """The methods a call may run through a module-level receiver bound
        on several branches (see :func:`idemlint.semantic.dispatch.method_candidates`),
        when they are all ours to follow."""
        if not isinstance(call.func, cst.Attribute):
            return NOTHING
        found = method_candidates(self.calls, call, scope)
        if not found.complete:
            return NOTHING
        # Any candidate not followed here (recursion, too small a share)
        # leaves the call to the usual resolution, which records the cut.
        if self._share < MIN_CALLEE_EVENTS or any(choice.function in self._stack for choice in found.definitions):
            return NOTHING
        return found

    def _followable(self, found: Definition, call: cst.Call, scope: FunctionScope) -> Optional[Definition]:
        """``found``, unless it is being walked already (recursion, cut) or
        its share of the event budget is too small to walk anything in
        (recorded as not followed; the call stays, unfollowed, in the trace,
        and counts by its name or as the task it runs inline)."""
        if found.function in self._stack:
            self._cut = True
            return None
        if self._share < MIN_CALLEE_EVENTS:
            self._budget_cut = True
            self._unfollowed(call, scope.module, scope.qualified_name, PAST_EVENTS)
            return None
        return found

    def _unfollowed(self, node: cst.CSTNode, module: "LoadedModule", function: str, reason: str) -> None:
        self.trace.unfollowed.append(Unfollowed(node, module, function, reason))

    def _out_of_budget(self) -> bool:
        """Whether the walk in progress has spent its share of the event
        budget; if so it ends, cut, and what it runs for is recorded as not
        followed (once a walk: each statement after it asks again)."""
        budget, held = self._budgets[-1], len(self.trace.events)
        budget.need = max(budget.need, held - budget.start + 1)
        if held < budget.limit:
            return False
        self._budget_cut = True
        if not budget.spent:
            budget.spent = True
            self._unfollowed(*self._running[-1], PAST_EVENTS)
        return True

    def _callee_share(self) -> int:
        """How many events a call into project code made now may add: its
        share of what is left (see MAX_EVENTS_PER_TASK)."""
        left = max(0, self._budgets[-1].limit - len(self.trace.events))
        return _power_of_two_below(3 * left // 4)

    def _enter_budget(self, share: int) -> None:
        held = len(self.trace.events)
        self._budgets.append(_Budget(held + share, held))

    def _leave_budget(self) -> None:
        """End a call's share, and count what it needed in its caller's."""
        callee = self._budgets.pop()
        caller = self._budgets[-1]
        # The caller's events left for the call's share to hold what it
        # needed: a share is at least three eighths of what is left.
        wanted = -(-8 * max(callee.need, MIN_CALLEE_EVENTS) // 3)
        caller.need = max(caller.need, callee.start - caller.start + wanted)

    def _enter_helper(
        self,
        call: cst.Call,
        helper: Definition,
        path: Tuple[Step, ...],
        caller: FunctionScope,
        share: int,
    ) -> None:
        """Run a helper at ``call``, given ``share`` of the event budget:
        from its summary when one fits, else walk it.

        A helper's summary is its events, walked once and reused by every
        task (and call) that reaches it with arguments that resolve alike
        (and the same flags passed or parameters left at their defaults), for the same class
        of instance, with the same names bound around a
        closure.
        """
        named = parameters(helper)
        arguments = list(bind_arguments(named, call))
        collected = keywords_collected(helper.function, named, call)
        known = known_parameters(helper.function, call, arguments)
        key = (
            id(helper.function),
            tuple((name, caller.resolver.resolve(value) or _literal_key(value)) for name, value in arguments),
            tuple(sorted(known.items())),
            any(arg.star for arg in call.args),
            helper.instance.key if helper.instance is not None else None,
            closure_context(helper.enclosing),
        )
        summary = self.summaries.get(
            key, self._default_atomic > 0, share, self._stack, id(self.task.function)
        )
        scope = (
            summary.scope_for(caller.chain)
            if summary is not None
            else self._scope(helper, caller.chain)
        )
        if summary is None:
            scope.known.update(known)
        boundary = Step(id(call), "Call", "call", 0, NO_EXIT, boundary=True)
        for name, value in arguments:
            self._emit(
                "bind", value, scope, path + (boundary,), targets=(cst.Name(name),),
                value=value, value_scope=caller,
            )
            scope.arguments.setdefault(name, []).append((value, caller))
            if summary is None:
                scope.resolver.bind(name, value)
        if not any(arg.star for arg in call.args):
            # A parameter the call leaves out holds its default (``key=None``).
            passed = {name for name, _ in arguments}
            for name, default in _defaults(helper.function):
                if name not in passed and (collected is None or name != collected[0]):
                    scope.defaults_left.setdefault(name, default)
        if collected is not None:
            self._emit(
                "bind", collected[1], scope, path + (boundary,), targets=(cst.Name(collected[0]),),
                value=collected[1], value_scope=caller, held=_held_by_keywords(call, caller),
            )
        self._running.append((call, caller.module, caller.qualified_name))
        self._enter_budget(share)
        if summary is not None:
            self._asked_transaction = self._asked_transaction or summary.in_transaction is not None
            self._budgets[-1].need = summary.need
            self._budget_cut = self._budget_cut or summary.cut_by_budget
            self._replay(summary, scope, path, call)
        else:
            self._walk(key, scope, path, call, share)
        self._leave_budget()
        self._running.pop()

    def _walk(
        self,
        key: Tuple[object, ...],
        scope: FunctionScope,
        path: Tuple[Step, ...],
        call: cst.Call,
        share: int,
    ) -> None:
        """Walk a helper given ``share`` of the event budget, and keep its
        summary unless recursion cut it (its caller's stack decides that)."""
        start, cut, self._cut = len(self.trace.events), self._cut, False
        budget_cut, self._budget_cut = self._budget_cut, False
        named, self._tasks_named = self._tasks_named, set()
        unfollowed = len(self.trace.unfollowed)
        asked, self._asked_transaction = self._asked_transaction, False
        looked_up = len(self.project.lookups) if self.project is not None else 0
        context = (self._transactions[-1] if self._transactions else None, len(self._caught))
        in_transaction = self._default_atomic > 0
        labels = dict(self.trace.transactions)
        self._function(scope, path, call)
        if not self._cut:
            lookups = self.project.lookups[looked_up:] if self.project is not None else []
            events = self.trace.events[start:]
            cuts = self.trace.unfollowed[unfollowed:]
            below = [u for u in cuts if u.node is not call]
            summary = Summary(
                scope, call, len(path), context, events, lookups,
                in_transaction if self._asked_transaction else None,
                {k: v for k, v in self.trace.transactions.items() if labels.get(k) != v},
                share, self._budget_cut, self._budgets[-1].need,
                below, any(u.node is call for u in cuts),
                frozenset({id(scope.function)} | {id(event.scope.function) for event in events}),
                id(self.task.function), frozenset(self._tasks_named),
            )
            self.summaries.put(key, summary)
        self._cut = self._cut or cut
        self._budget_cut = self._budget_cut or budget_cut
        self._tasks_named |= named
        self._asked_transaction = self._asked_transaction or asked

    def _replay(
        self, summary: "Summary", scope: FunctionScope, path: Tuple[Step, ...], call: cst.Call
    ) -> None:
        if self.project is not None:
            self.project.lookups += summary.lookups  # replaying depends on what walking did
        for opened, label in summary.transactions.items():
            self.trace.transactions.setdefault(opened, label)
        self._replay_events(summary, scope, path, call)
        self.trace.unfollowed += summary.unfollowed
        if summary.spent:
            self._unfollowed(*self._running[-1], PAST_EVENTS)
        self._tasks_named |= summary.tasks_named

    def _replay_events(
        self, summary: "Summary", scope: FunctionScope, path: Tuple[Step, ...], call: cst.Call
    ) -> None:
        transaction = self._transactions[-1] if self._transactions else None
        scopes = summary.scopes_under(scope)
        moved: Dict[int, Step] = {}
        caught = tuple(self._caught)
        for event in summary.events:  # it fits: the caller's share holds its need
            own_transaction = event.transaction != summary.context[0]
            self.trace.events.append(
                _replayed(
                    event,
                    scope=scopes.get(id(event.scope), event.scope),
                    value_scope=(
                        scopes.get(id(event.value_scope), event.value_scope)
                        if event.value_scope is not None
                        else None
                    ),
                    path=path + summary.relative_path(event, id(call), moved),
                    seq=next(self._seq),
                    transaction=event.transaction if own_transaction else transaction,
                    caught=caught + event.caught[summary.context[1] :],
                    call_site=call if event.call_site is summary.call else event.call_site,
                )
            )

    def _emit(
        self,
        kind: str,
        node: cst.CSTNode,
        scope: FunctionScope,
        path: Tuple[Step, ...],
        **fields: object,
    ) -> None:
        call_site = self._call_sites[-1] if kind == "return" else None
        self.trace.events.append(
            Event(
                kind=kind,
                node=node,
                scope=scope,
                path=path,
                seq=next(self._seq),
                call_site=call_site,
                transaction=self._transactions[-1] if self._transactions else None,
                caught=tuple(self._caught),
                **fields,  # type: ignore[arg-type]
            )
        )


def _moved(step: Step, container: int, moved: Dict[int, Step]) -> Step:
    known = moved.get(id(step))
    if known is None:
        known = moved[id(step)] = replace(step, container=container)
    return known


def _replayed(
    event: Event,
    *,
    scope: FunctionScope,
    value_scope: Optional[FunctionScope],
    path: Tuple[Step, ...],
    seq: int,
    transaction: Optional[int],
    caught: Tuple[str, ...],
    call_site: Optional[cst.Call],
) -> Event:
    """``dataclasses.replace`` of an event, for a replay: every other field
    kept as it is, without ``replace``'s checks and a frozen ``__init__``
    (thousands of events are replayed a run)."""
    moved = Event.__new__(Event)
    fields = moved.__dict__
    fields.update(event.__dict__)
    fields.update(
        scope=scope, value_scope=value_scope, path=path, seq=seq, transaction=transaction,
        caught=caught, call_site=call_site,
    )
    return moved


def _held_by_keywords(call: cst.Call, scope: FunctionScope) -> Held:
    """What each keyword argument spelled as a local name holds now, and
    each entry of a dict literal the call passes (``**{"key": key}``,
    ``headers={"Idempotency-Key": key}``), by its key."""
    named = [(arg.keyword.value, arg.value) for arg in call.args if arg.keyword is not None]
    for arg in call.args:
        if isinstance(arg.value, cst.Dict) and (arg.star == "**" or arg.keyword is not None):
            named += _named_entries(arg.value)
    return _held(named, scope)


def _held_by_entries(value: cst.BaseExpression, scope: FunctionScope) -> Held:
    """What each entry of a dict literal spelled as a local name holds now
    (``options = {"idempotency_key": key}``), by the entry's key."""
    return _held(_named_entries(value), scope) if isinstance(value, cst.Dict) else ()


def _named_entries(mapping: cst.Dict) -> List[Tuple[str, cst.BaseExpression]]:
    return [
        (text, element.value)
        for element in mapping.elements
        if isinstance(element, cst.DictElement)
        and isinstance(element.key, cst.SimpleString)
        and (text := literal_text(element.key)) is not None
    ]


def _held(named: Sequence[Tuple[str, cst.BaseExpression]], scope: FunctionScope) -> Held:
    return tuple(
        (label, tuple(scope.values[value.value]))
        for label, value in named
        if isinstance(value, cst.Name) and value.value in scope.values
    )


def _literal_key(value: cst.BaseExpression) -> Optional[str]:
    """A literal argument's code, so that a walk that read it (a task's
    name, a flag) is not reused for a call passing another."""
    if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float)):
        return _CODEGEN.code_for_node(value)
    return None


def _replace_value(scope: FunctionScope, name: str, value: cst.BaseExpression, path: Tuple[Step, ...]) -> None:
    """Record ``name = value`` at ``path``: it replaces what the same block
    (or a block nested in it) assigned before, which no path after this
    statement can see (``key = None`` then ``key = make_key()``); what
    another branch assigned stays a possibility."""
    block = tuple((step.container, step.branch) for step in path)
    values = scope.values.setdefault(name, [])
    blocks = scope.value_blocks.setdefault(name, [])
    kept = [n for n, earlier in enumerate(blocks) if earlier[: len(block)] != block]
    scope.values[name] = [values[n] for n in kept] + [value]
    scope.value_blocks[name] = [blocks[n] for n in kept] + [block]


def _replaces_the_parameter(node: cst.CSTNode, name: str, path: Tuple[Step, ...], scope: FunctionScope) -> bool:
    """Whether ``name = value`` replaces what was passed for the parameter
    ``name`` on every path on from it: an assignment statement (not a
    walrus, which may run conditionally) of the function's own body, not
    of a nested block, with no statement before it reading the name
    (``payload = json.loads(payload)`` first thing).  Any earlier read may
    be asked about later, or hold the passed value under another name."""
    if name not in scope.parameters or not isinstance(node, (cst.Assign, cst.AnnAssign)):
        return False
    if not path or not path[-1].boundary:
        return False
    earlier = scope.function.body.body[: path[-1].index]
    return not any(
        isinstance(part, cst.Name) and part.value == name for statement in earlier for part in descendants(statement)
    )


def _unpacked_names(target: cst.BaseExpression, depth: int = 1) -> Iterator[Tuple[str, int]]:
    """The names a tuple or list target unpacks, each with how many
    elements deep it is (``for i, (key, value) in ...``: ``i`` 1, ``key``
    2); a starred name holds a list, not an element, and is left out."""
    if not isinstance(target, (cst.Tuple, cst.List)):
        return
    for element in target.elements:
        if isinstance(element, cst.StarredElement):
            continue
        if isinstance(element.value, cst.Name):
            yield element.value.value, depth
        else:
            yield from _unpacked_names(element.value, depth + 1)


def _defaults(function: cst.FunctionDef) -> Iterator[Tuple[str, cst.BaseExpression]]:
    """Each parameter with a default, and the default."""
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.default is not None:
            yield param.name.value, param.default


def _power_of_two_below(count: int) -> int:
    """The largest power of two not above ``count`` (0 for 0)."""
    return 1 << (count.bit_length() - 1) if count > 0 else 0


def _library_name(denoted: Optional[Value]) -> Optional[str]:
    """The library name of a callee the evaluator names as a library's
    function or method, one name on every path."""
    if isinstance(denoted, Library) and runs_library_code(denoted):
        return denoted.name
    return None


def _caught_names(
    handler: Union[cst.ExceptHandler, cst.ExceptStarHandler], resolver: Resolver
) -> List[str]:
    """``django.db.IntegrityError`` for ``except IntegrityError``; ``*`` for a bare except."""
    if handler.type is None:
        return ["*"]
    types = handler.type.elements if isinstance(handler.type, cst.Tuple) else None
    names = [e.value for e in types] if types is not None else [handler.type]
    return [resolver.resolve(name) or "?" for name in names]


def _definition_name(task: Task) -> str:
    """The task's definition, dotted within its module (``Sync.run``)."""
    name = task.function.name.value
    return f"{task.owner.name.value}.{name}" if task.owner is not None else name


def _is_skip(statement: Union[cst.BaseStatement, cst.BaseSmallStatement]) -> bool:
    if isinstance(statement, cst.SimpleStatementLine):
        return any(isinstance(s, (cst.Continue, cst.Break)) for s in statement.body)
    return isinstance(statement, (cst.Continue, cst.Break))


def _evaluated(node: cst.CSTNode) -> Tuple[List[cst.Call], List[cst.NamedExpr]]:
    """The calls and the walruses (``:=``) inside an expression, each inner
    before outer, in one walk; lambdas do not run."""
    calls: List[cst.Call] = []
    walruses: List[cst.NamedExpr] = []
    _collect_calls(node, calls, walruses)
    return calls, walruses


# Node kinds are told apart by their exact type, a dict lookup: libcst's
# classes are ABCs, and ``isinstance`` against one that does not match runs
# ``ABCMeta.__instancecheck__`` in Python, a cost paid on every node walked.
# Each kind below is a concrete class that libcst never subclasses.
_NOT_RUN = frozenset({cst.Lambda, cst.FunctionDef, cst.ClassDef})


def _collect_calls(node: cst.CSTNode, found: List[cst.Call], walruses: List[cst.NamedExpr]) -> None:
    kind = type(node)
    if kind in _NOT_RUN:
        return
    for child in _sub_expressions(node):
        _collect_calls(child, found, walruses)
    if kind is cst.Call:
        found.append(cast(cst.Call, node))
    elif kind is cst.NamedExpr:
        walruses.append(cast(cst.NamedExpr, node))


def _sub_expressions(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """The child expressions of a node in the order they are evaluated: the
    usual shapes spelled out (an ``IfExp`` tests before it picks a side),
    the rest in source order."""
    read = _EVALUATED.get(type(node))
    return read(node) if read is not None else children(node)


def _call_parts(node: Any) -> Sequence[cst.CSTNode]:
    return (node.func, *(arg.value for arg in node.args))


def _elements(node: Any) -> Sequence[cst.CSTNode]:
    return tuple(element.value for element in node.elements)


_EVALUATED: Dict[type, Callable[[Any], Sequence[cst.CSTNode]]] = {
    cst.Name: lambda node: (),
    cst.SimpleString: lambda node: (),
    cst.Integer: lambda node: (),
    cst.Float: lambda node: (),
    cst.Call: _call_parts,
    cst.Attribute: lambda node: (node.value,),
    cst.Await: lambda node: (node.expression,),
    cst.BinaryOperation: lambda node: (node.left, node.right),
    cst.BooleanOperation: lambda node: (node.left, node.right),
    cst.Comparison: lambda node: (node.left, *(c.comparator for c in node.comparisons)),
    cst.UnaryOperation: lambda node: (node.expression,),
    cst.List: _elements,
    cst.Tuple: _elements,
    cst.Set: _elements,
    cst.FormattedString: lambda node: tuple(
        part.expression for part in node.parts if isinstance(part, cst.FormattedStringExpression)
    ),
    cst.Subscript: lambda node: (node.value, *(e.slice for e in node.slice)),
    cst.Index: lambda node: (node.value,),
    cst.IfExp: lambda node: (node.test, node.body, node.orelse),
}


def call_label(call: cst.Call) -> str:
    """How a message names a call: ``stripe.Charge.create()``,
    ``EmailMessage(...).send()``."""
    func = call.func
    spelled = dotted_name(func)
    if spelled is None and isinstance(func, cst.Attribute):
        receiver = func.value
        if isinstance(receiver, cst.Call) and dotted_name(receiver.func):
            spelled = f"{dotted_name(receiver.func)}(...).{func.attr.value}"
    return f"{spelled or source_text(func, 40)}()"


_CODEGEN = cst.Module(body=[])


def source_text(node: cst.CSTNode, limit: Optional[int] = None) -> str:
    """A node's code on one line, shortened to ``limit`` characters for messages."""
    text = " ".join(_CODEGEN.code_for_node(node).split())
    if limit is not None and len(text) > limit:
        text = text[: limit - 3] + "..."
    return text
