"""Which functions of a module are task entry points, for every framework.

One pass over the module's top-level statements collects what detection
needs: the import alias table, functions and classes, module-level bindings,
and the calls that register a function as a task (``app.task(func)``,
``queue.enqueue(func)``, ``arq.func(func)``).  Detection itself is then a lookup against
:mod:`idemlint.catalog`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import (
    AbstractSet,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
)

import libcst as cst

from idemlint import catalog, segments
from idemlint.names import Resolver, argument, descendants, dotted_name, import_bindings, literal_text
from idemlint.segments import MAX_ALIAS_DEPTH, Constants, Definitions, Later, Outline, Segment
from idemlint.splats import MODULE_SCOPE, Scope, Splat, entry, reached, returned_dicts, scope_of


@dataclass(frozen=True)
class Task:
    """A task entry point.

    ``options`` holds the keyword arguments of the decorator or registration
    call (``bind``, ``acks_late``, ``time_limit``...) and what a Celery task
    gets from its ``Task`` class (:class:`TaskClasses`) unless the decorator
    sets it, with ``origins`` naming the class that writes each of those.
    ``owner`` is the class of a class-based task, whose ``run`` method is
    ``function``.
    ``recognised`` says how detection found it and ``schedule`` is the
    schedule a periodic task's decorator is given positionally (huey's
    ``periodic_task(crontab(...))``): both for ``idemlint tasks``, never
    compared.
    """

    name: str
    function: cst.FunctionDef
    framework: str
    options: Mapping[str, cst.BaseExpression]
    owner: Optional[cst.ClassDef] = None
    recognised: str = field(default="", compare=False)
    schedule: Optional[cst.BaseExpression] = field(default=None, compare=False)
    # Option -> where it came from, for the options a Task class gives
    # (``"base RetryingTask"``): for ``idemlint tasks``, never compared.
    origins: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def bound(self) -> bool:
        """Whether the first parameter is the task instance (``self``)."""
        if self.owner is not None:
            return True
        bind = self.options.get("bind")
        return isinstance(bind, cst.Name) and bind.value == "True"

    @property
    def positional_arguments(self) -> Tuple[str, ...]:
        """Positional parameters a caller fills in: not a bound task's ``self``
        nor the context arq passes first."""
        params = self.function.params
        names = [p.name.value for p in (*params.posonly_params, *params.params)]
        drop = 1 if self.bound or self.framework in catalog.CONTEXT_FIRST_FRAMEWORKS else 0
        return tuple(names[drop:])

    @property
    def arguments(self) -> Tuple[str, ...]:
        """Every named parameter a caller fills in, positional then keyword-only."""
        keyword_only = tuple(p.name.value for p in self.function.params.kwonly_params)
        return self.positional_arguments + keyword_only


# What a task decorator makes: the framework and the options it sets.
Made = Tuple[str, Dict[str, cst.BaseExpression]]

PARTIALS = frozenset({"functools.partial"})


def _no_project_decorator(qualified: str) -> Optional[Made]:
    return None


def _no_binding(name: str) -> Optional[Made]:
    return None


def _no_task_base(qualified: str) -> bool:
    return False


@dataclass(frozen=True)
class Inherited:
    """An option a Celery task gets from an attribute of its ``Task`` class
    (or of one of that class's project bases): its value and the class that
    writes it."""

    value: cst.BaseExpression
    origin: str


ClassOptions = Mapping[str, Inherited]


def _no_class_options(qualified: str) -> Optional[ClassOptions]:
    return None


def _no_app_task_class(app: str) -> Optional[ClassOptions]:
    return None


@dataclass(frozen=True)
class Decorators:
    """The task decorators a module may use beyond the catalogue's.

    ``names``: configured names, matched by spelling (they make ``custom``
    tasks); ``bound``: what a module-level name makes when it is a wrapper
    of a decorator or bound to a decorator, an instance of one or a
    ``partial`` of one (see :class:`BoundDecorators`); ``project``:
    what a name imported from another project module makes (see
    :meth:`idemlint.project.Project.task_decorator`).  Both are asked only
    about names that decorate something, so that no other module is parsed
    for a name that cannot make a task.
    """

    names: Tuple[str, ...] = ()
    bound: Callable[[str], Optional[Made]] = _no_binding
    project: Callable[[str], Optional[Made]] = _no_project_decorator
    # Whether a class imported from another project module is a Celery
    # ``Task`` subclass (see :meth:`idemlint.project.Project.is_task_base`).
    task_base: Callable[[str], bool] = _no_task_base
    # The options a project class sets as attributes, through its project
    # bases (see :meth:`idemlint.project.Project.class_options`).
    class_options: Callable[[str], Optional[ClassOptions]] = _no_class_options
    # The options of the default ``Task`` class of the app a qualified name
    # denotes, "" for the project's only app (``@shared_task``); see
    # :meth:`idemlint.project.Project.app_task_class`.
    app_task_class: Callable[[str], Optional[ClassOptions]] = _no_app_task_class
    # The dotted name of the module these decorators are used in ("" when unknown).
    module: str = ""


@dataclass
class ModuleIndex:
    """What one module defines and imports, for tasks and their helpers."""

    package: Optional[str]
    imports: Dict[str, str] = field(default_factory=dict)
    # Detection iterates ``.up_front()``; see idemlint.segments.
    functions: Definitions[cst.FunctionDef] = field(default_factory=Definitions)
    classes: Definitions[cst.ClassDef] = field(default_factory=Definitions)
    constants: Constants = field(default_factory=Constants)
    registrations: List[Tuple[str, str, Mapping[str, cst.BaseExpression]]] = field(
        default_factory=list
    )
    arq_settings: List[cst.ClassDef] = field(default_factory=list)
    # Functions of other project modules handed to RQ here (qualified names),
    # and calls of imported functions with a function-like or dict argument
    # (with the scope of the function they are in): one of them may be the
    # project's own wrapper of ``enqueue``.
    enqueued: List[str] = field(default_factory=list)
    wrapper_calls: List[Tuple[str, cst.Call, Scope]] = field(default_factory=list)
    # Functions of other project modules whose returned job definitions
    # (``{"func": f}`` dicts) a loop here hands RQ, with the keys the
    # callable may be under (see idemlint.splats).
    enqueued_tables: List[Tuple[str, Tuple[str, ...]]] = field(default_factory=list)
    # Classes of the module registered as tasks (``app.register_task(Sync())``).
    registered_classes: List[str] = field(default_factory=list)
    # Dotted task names handed to Celery's ``send_task`` here, and the
    # module-level ``app.Task = X`` statements (the app, the class).
    sent_by_name: List[str] = field(default_factory=list)
    task_class_settings: List[Tuple[cst.BaseExpression, cst.BaseExpression]] = field(
        default_factory=list
    )
    # id(function) -> definition order (the top-level statement's place in the
    # module, then a running count), since libcst nodes carry no positions.
    order: Dict[int, Tuple[int, int]] = field(default_factory=dict)
    _resolver: Optional[Resolver] = field(default=None, repr=False)

    @property
    def alternatives(self) -> Dict[str, List[cst.BaseExpression]]:
        """See :attr:`idemlint.segments.Constants.alternatives`."""
        return self.constants.alternatives

    def resolver(self) -> Resolver:
        """A resolver for module scope; computed once, shared as a parent."""
        if self._resolver is None:
            plain = Resolver(self.imports)
            resolved: Dict[str, str] = {}
            for name, value in self.constants.up_front().items():
                target = plain.resolve(value)
                if target is not None and name not in self.functions:
                    resolved[name] = target
            self._resolver = Resolver(self.imports, resolved)
        return self._resolver

    def methods(
        self, owner: cst.ClassDef, seen: Optional[Set[int]] = None
    ) -> Dict[str, cst.FunctionDef]:
        """Methods of a class, including those of its bases in this module."""
        seen = set() if seen is None else seen
        seen.add(id(owner))
        found: Dict[str, cst.FunctionDef] = {}
        for base in owner.bases:
            base_name = dotted_name(base.value)
            base_class = self.classes.get(base_name or "")
            if base_class is not None and id(base_class) not in seen:
                found.update(self.methods(base_class, seen))
        for statement in owner.body.body:
            if isinstance(statement, cst.FunctionDef):
                found[statement.name.value] = statement
        return found


def build_index(
    module: cst.Module,
    package: Optional[str] = None,
    *,
    scan_bodies: bool = False,
    later: Optional[Later] = None,
    numbers: Optional[Sequence[int]] = None,
) -> ModuleIndex:
    """Index a module from its top-level statements.

    A full traversal of a libcst tree costs about as much as parsing it, so
    the index reads only module-level statements (imports, definitions,
    ``app.task(f)`` registrations).  ``scan_bodies`` also searches function
    bodies for ``queue.enqueue(f)`` calls; the engine sets it only when the
    source mentions ``enqueue``.

    With ``later``, ``module`` holds only the statements parsed up front and
    ``numbers`` their places among the module's top-level statements; the
    definitions ``later`` holds are indexed by name and parsed when asked for.
    """
    index = ModuleIndex(package=package)
    registrations: List[cst.Call] = []
    places = numbers if numbers is not None else range(len(module.body))
    parsed: Dict[int, cst.BaseStatement] = dict(zip(places, module.body))
    waiting = later.waiting if later is not None else {}
    # In the module's order: a later import or binding of a name replaces an earlier one.
    for number in sorted([*parsed, *waiting]):
        if number in parsed:
            _index_top_level(index, [parsed[number]], registrations, number)
        elif later is not None:
            _index_waiting(index, later, waiting[number])
    scoped: List[Tuple[cst.Call, Scope]] = [(call, MODULE_SCOPE) for call in registrations]
    if scan_bodies:
        for function in _all_functions(index):
            scope = scope_of(function)
            scoped.extend((call, scope) for call in _calls_in_statements(function.body.body))
    resolver = index.resolver()
    wrappers = enqueue_wrappers(index) if scan_bodies else {}
    lost: List[Tuple[str, ...]] = []
    for call, scope in scoped:
        if call.args:
            _index_registration(index, resolver, call, wrappers, scope, lost)
    for keys in dict.fromkeys(lost):
        _index_module_tables(index, keys)
    return index


def _index_module_tables(index: ModuleIndex, keys: Tuple[str, ...]) -> None:
    """A loop of this module hands RQ dicts whose origin is not followed
    (``for job in prepared: schedule(job)``, ``prepared`` made from a
    parameter): the job definitions tables that the module's functions
    return (``def definitions(): return [{"func": f, ...}]``) are taken to
    be what it schedules.  Defining the table beside the loop that
    schedules its entries is how rq-scheduler users keep their periodic
    jobs; a table in another module counts only when a loop calls its
    function (:func:`idemlint.splats.reached`)."""
    for name in list(index.functions):
        for dictionary in returned_dicts(index.functions[name]):
            handed = entry(dictionary, keys)
            if handed is not None:
                _index_handed(index, handed)


def _index_top_level(
    index: ModuleIndex,
    statements: Sequence[cst.BaseStatement],
    registrations: List[cst.Call],
    number: int,
    outermost: bool = True,
) -> None:
    for statement in statements:
        if isinstance(statement, cst.FunctionDef):
            index.functions.add(statement.name.value, number, statement)
            index.order[id(statement)] = (number, len(index.order))
        elif isinstance(statement, cst.ClassDef):
            index.classes.add(statement.name.value, number, statement)
            _order_methods(index.order, statement, number)
            if _class_assigns_any(statement, catalog.ARQ_SETTINGS_LISTS):
                index.arq_settings.append(statement)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                _index_small_statement(index, small, registrations)
        elif isinstance(statement, (cst.If, cst.Try)):
            # Conditional definitions (``if TYPE_CHECKING``, ``try: import``).
            # The outermost statement's alternatives account for those
            # nested in it (read before its blocks rebind the names).
            after = _alternatives_after(index, statement) if outermost else {}
            for block in _blocks(statement):
                _index_top_level(index, block, registrations, number, outermost=False)
            index.alternatives.update(after)


def _alternatives_after(
    index: ModuleIndex, statement: Union[cst.If, cst.Try]
) -> Dict[str, List[cst.BaseExpression]]:
    """What each name a module-level ``if`` or ``try`` binds may hold after
    it, when that is more than one value: the value each block binds last,
    and the value from before when a path may leave it (no ``else``, a
    ``try`` whose body fails before binding it, a block, or a block's own
    ``if``, that does not bind it).

    Left out, so that the last binding written stands as before: a name
    whose earlier value is data left as text (parsing it to compare would
    cost what the lazy index saves), and a value that reads the name
    itself (``T = T * 10``: what it was is the question being answered)."""
    found: Dict[str, List[cst.BaseExpression]] = {}
    for name, (values, keeps) in _statement_bindings(statement).items():
        if keeps:
            if index.constants.waiting(name):
                continue
            before = index.alternatives.get(name) or ([index.constants[name]] if name in index.constants else [])
            values = [*before, *values]
        distinct = list({id(value): value for value in values}.values())
        if len(distinct) > 1 and not any(_mentions(value, name) for value in distinct):
            found[name] = distinct
    return found


# Each name a block or statement binds: the values it may leave, and whether
# a path through it may leave the value from before it.
_Bound = Dict[str, Tuple[List[cst.BaseExpression], bool]]


def _statement_bindings(statement: Union[cst.If, cst.Try]) -> _Bound:
    blocks = [_block_bindings(block) for block in _blocks(statement)]
    may_skip = isinstance(statement, cst.Try) or not _has_else_chain(statement)
    found: _Bound = {}
    for name in dict.fromkeys(name for bound in blocks for name in bound):
        values = [value for bound in blocks for value in bound.get(name, ([], True))[0]]
        keeps = may_skip or any(name not in bound or bound[name][1] for bound in blocks)
        found[name] = (values, keeps)
    return found


def _block_bindings(block: Sequence[cst.BaseStatement]) -> _Bound:
    """What a block leaves each name it binds: the last assignment's value,
    or every value a nested ``if``/``try`` may leave, with what was there
    before it when a path through it binds nothing."""
    bound: _Bound = {}
    for statement in block:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                for name, value in _assigned_names(small):
                    bound[name] = ([value], False)
        elif isinstance(statement, (cst.If, cst.Try)):
            for name, (values, keeps) in _statement_bindings(statement).items():
                earlier, earlier_keeps = bound.get(name, ([], True))
                bound[name] = ([*earlier, *values], earlier_keeps) if keeps else (values, False)
    return bound


def _mentions(value: cst.BaseExpression, name: str) -> bool:
    return any(isinstance(node, cst.Name) and node.value == name for node in descendants(value))


def _assigned_names(small: cst.BaseSmallStatement) -> Iterator[Tuple[str, cst.BaseExpression]]:
    if isinstance(small, cst.Assign):
        for target in small.targets:
            if isinstance(target.target, cst.Name):
                yield target.target.value, small.value
    elif isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name):
        yield small.target.value, small.value


def _has_else_chain(statement: cst.If) -> bool:
    """Whether every path through an ``if``/``elif`` chain runs one of its blocks."""
    orelse = statement.orelse
    if isinstance(orelse, cst.If):
        return _has_else_chain(orelse)
    return orelse is not None


def _order_methods(order: Dict[int, Tuple[int, int]], owner: cst.ClassDef, number: int) -> None:
    for member in owner.body.body:
        if isinstance(member, cst.FunctionDef):
            order[id(member)] = (number, len(order))


def _index_waiting(index: ModuleIndex, later: Later, segment: Segment) -> None:
    """A definition or a value left as text: its name now, its node when first asked for."""
    definition = segment.definition()
    if definition is None:
        for statement in segment.imports():
            index.imports.update(segments.import_bindings(statement, index.package))
        _index_waiting_data(index, later, segment)
        return
    # The parsing functions hold the index's order, not the index, which
    # holds them: no cycle, so a dropped project is freed as soon as it is
    # dropped, without waiting for (or costing) a cycle collection.
    order = index.order
    if isinstance(definition, ast.ClassDef):

        def parse_class() -> cst.ClassDef:
            statement = later.parse(segment)
            assert isinstance(statement, cst.ClassDef)
            _order_methods(order, statement, segment.number)
            return statement

        index.classes.add_waiting(
            definition.name, segment.number, parse_class, Outline(definition, later, segment),
            detected=segment.number in later.detected,
        )
    elif definition is not None:

        def parse_function() -> cst.FunctionDef:
            statement = later.parse(segment)
            assert isinstance(statement, cst.FunctionDef)
            order[id(statement)] = (segment.number, len(order))
            return statement

        index.functions.add_waiting(
            definition.name, segment.number, parse_function, Outline(definition, later, segment)
        )


def _index_waiting_data(index: ModuleIndex, later: Later, segment: Segment) -> None:
    parsed: List[cst.BaseExpression] = []  # one parse for all the names it binds

    def parse_value() -> cst.BaseExpression:
        if not parsed:
            parsed.append(later.parse_data(segment))
        return parsed[0]

    for name in segment.data_names():
        index.constants.add_waiting(name, parse_value)
        index.alternatives.pop(name, None)


def _index_small_statement(
    index: ModuleIndex, small: cst.BaseSmallStatement, registrations: List[cst.Call]
) -> None:
    if isinstance(small, (cst.Import, cst.ImportFrom)):
        index.imports.update(import_bindings(small, index.package))
    elif isinstance(small, cst.Assign):
        for target in small.targets:
            if isinstance(target.target, cst.Name):
                index.constants.add(target.target.value, small.value)
                index.alternatives.pop(target.target.value, None)
            elif isinstance(target.target, cst.Attribute) and target.target.attr.value == "Task":
                index.task_class_settings.append((target.target.value, small.value))
    elif isinstance(small, cst.AnnAssign) and small.value is not None:
        if isinstance(small.target, cst.Name):
            index.constants.add(small.target.value, small.value)
            index.alternatives.pop(small.target.value, None)
    value = getattr(small, "value", None)
    if isinstance(value, cst.Call):
        registrations.append(value)


def _blocks(statement: Union[cst.If, cst.Try]) -> Iterator[Sequence[cst.BaseStatement]]:
    """The indented blocks of a module-level ``if`` or ``try``."""
    suites: List[cst.BaseSuite] = [statement.body]
    if isinstance(statement, cst.Try):
        suites += [handler.body for handler in statement.handlers]
    orelse = statement.orelse
    if isinstance(orelse, cst.If):
        suites.append(cst.IndentedBlock(body=[orelse]))
    elif orelse is not None:
        suites.append(orelse.body)
    for suite in suites:
        if isinstance(suite, cst.IndentedBlock):
            yield suite.body


def _all_functions(index: ModuleIndex) -> Iterator[cst.FunctionDef]:
    yield from index.functions.up_front().values()
    for owner in index.classes.up_front().values():
        for member in owner.body.body:
            if isinstance(member, cst.FunctionDef):
                yield member


def _calls_in_statements(statements: Sequence[cst.CSTNode]) -> Iterator[cst.Call]:
    """Calls at the top of each statement and in their arguments (one level)."""
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from _calls_in_statements(statement.body)
            continue
        value = getattr(statement, "value", None)
        if isinstance(value, cst.Await):
            value = value.expression
        if isinstance(value, cst.Call):
            yield value
            yield from (a.value for a in value.args if isinstance(a.value, cst.Call))
        for block in _nested_blocks(statement):
            yield from _calls_in_statements(block)


def _nested_blocks(statement: cst.CSTNode) -> Iterator[Sequence[cst.CSTNode]]:
    body = getattr(statement, "body", None)
    if isinstance(body, cst.BaseSuite):
        yield body.body
    for handler in getattr(statement, "handlers", ()):
        yield handler.body.body
    for name in ("orelse", "finalbody"):
        extra = getattr(statement, name, None)
        if isinstance(extra, cst.If):
            yield [extra]
        elif extra is not None:
            yield extra.body.body


def _class_assigns_any(node: cst.ClassDef, names: Iterable[str]) -> bool:
    wanted = set(names)
    for statement in node.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value in wanted
                    for t in small.targets
                ):
                    return True
    return False


def _index_registration(
    index: ModuleIndex,
    resolver: Resolver,
    call: cst.Call,
    wrappers: Mapping[str, "Handing"],
    scope: Scope = MODULE_SCOPE,
    lost: Optional[List[Tuple[str, ...]]] = None,
) -> None:
    """Record ``app.task(f)``, ``arq.func(f)`` and the calls that hand RQ a
    function (:func:`_handed_function`): one of this module by name
    (``f``, ``Class.method``) in ``registrations``, one of another module
    (imported, ``module.func``) in ``enqueued``."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in catalog.SEND_BY_NAME_METHODS:
        sent = argument(call, 0, ("name",))
        name = literal_text(sent) if sent is not None else None
        if name is not None and "." in name.strip("."):
            index.sent_by_name.append(name)
        return
    handed = _handed_function(call, resolver)
    if isinstance(func, cst.Name) and func.value in wrappers:
        handed = wrappers[func.value].handed(call)
    if isinstance(handed, Splat):
        _index_splat(index, resolver, handed, scope, lost)
        return
    if handed is not None:
        _index_handed(index, handed)
        return
    if isinstance(func, cst.Attribute) and func.attr.value in catalog.ENQUEUE_METHODS:
        return
    if isinstance(func, cst.Attribute) and func.attr.value == "register_task":
        registered = argument(call, 0, ("task",))
        registered = registered.func if isinstance(registered, cst.Call) else registered
        if isinstance(registered, cst.Name):
            index.registered_classes.append(registered.value)
        return
    callee = dotted_name(func)
    if callee is not None and resolver.is_imported(callee.split(".")[0]) and any(
        isinstance(arg.value, (cst.Name, cst.Attribute, cst.Dict)) for arg in call.args
    ):
        qualified = resolver.resolve(func)
        if qualified is not None:
            index.wrapper_calls.append((qualified, call, scope))
    if resolver.resolve(func) in catalog.ARQ_WRAPPERS:
        target = argument(call, 0, ("coroutine",))
        if isinstance(target, cst.Name):
            index.registrations.append((target.value, "arq", _keywords(call)))
        return
    decorator = classify_decorator(func, resolver)
    first = call.args[0]
    if decorator is not None and first.keyword is None and first.star == "":
        if isinstance(first.value, cst.Name):
            framework, options = decorator
            merged = {**options, **_keywords(call)}
            index.registrations.append((first.value.value, framework, merged))


def _index_splat(
    index: ModuleIndex,
    resolver: Resolver,
    splat: Splat,
    scope: Scope,
    lost: Optional[List[Tuple[str, ...]]],
) -> None:
    """The functions in the dicts a splat stands for (see idemlint.splats)."""
    found = reached(splat.value, scope)
    for dictionary in found.dicts:
        handed = entry(dictionary, splat.keys)
        if handed is not None:
            _index_handed(index, handed)
    for table in found.tables:
        if isinstance(table, cst.Name) and table.value in index.functions:
            for dictionary in returned_dicts(index.functions[table.value]):
                handed = entry(dictionary, splat.keys)
                if handed is not None:
                    _index_handed(index, handed)
            continue
        qualified = resolver.resolve(table)
        if qualified is not None and resolver.is_imported((dotted_name(table) or "").split(".")[0]):
            index.enqueued_tables.append((qualified, splat.keys))
    if found.lost and lost is not None:
        lost.append(splat.keys)


def _handed_function(call: cst.Call, resolver: Resolver) -> Union[cst.BaseExpression, Splat, None]:
    """The function a call hands RQ to run: ``queue.enqueue(f)`` and
    friends, ``Job.create(func=f)``, a scheduler's ``schedule(time, f)`` /
    ``cron(spec, func=f)``, ``partial(queue.enqueue, f)``; or the dict
    splatted with ``**`` that holds it under the name the API takes it by.

    Those names, from the signatures: rq's ``Queue.enqueue(f, *args,
    **kwargs)``, ``enqueue_call(func, args=None, ...)``,
    ``enqueue_in(time_delta, func, ...)``, ``enqueue_at(datetime, f, ...)``
    and ``Job.create(func, args=None, ...)`` (rq/queue.py, rq/job.py);
    rq-scheduler's ``Scheduler.schedule(scheduled_time, func, args=None,
    ...)``, ``cron(cron_string, func, ...)``, ``enqueue_at(scheduled_time,
    func, ...)`` and ``enqueue_in(time_delta, func, ...)``
    (rq_scheduler/scheduler.py).  An enqueue method takes either name,
    since a scheduler's methods of the same names take ``func``."""
    func = call.func
    if resolver.resolve(func) in PARTIALS:
        wrapped = _handed_argument(call, 0)
        if isinstance(wrapped, cst.Attribute) and wrapped.attr.value in catalog.ENQUEUE_METHODS:
            return _handed_argument(call, 1 + catalog.ENQUEUE_METHODS[wrapped.attr.value], ("f", "func"))
        return None
    if not isinstance(func, cst.Attribute):
        return None
    method = func.attr.value
    if method in catalog.ENQUEUE_METHODS:
        return _handed_argument(call, catalog.ENQUEUE_METHODS[method], ("f", "func"))
    receiver = (dotted_name(func.value) or "").rpartition(".")[2]
    if method == "create" and receiver == "Job":
        return _handed_argument(call, 0, ("func",))
    if method in catalog.SCHEDULER_METHODS and "scheduler" in receiver.lower():
        return _handed_argument(call, 1, ("func",))
    return None


def _handed_argument(
    call: cst.Call, position: int, keywords: Sequence[str] = ()
) -> Union[cst.BaseExpression, Splat, None]:
    """Like :func:`idemlint.names.argument`, but a positional argument written
    before a ``*args`` splat is known (``queue.enqueue(fn, *args)``), and
    when neither is given, a ``**`` splat may hold it under a keyword."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in keywords:
            return arg.value
    before: List[cst.BaseExpression] = []
    for arg in call.args:
        if arg.star or arg.keyword is not None:
            break
        before.append(arg.value)
    if position < len(before):
        return before[position]
    return _splat_holding(call, tuple(keywords)) if keywords else None


def _splat_holding(call: cst.Call, keys: Tuple[str, ...]) -> Optional[Splat]:
    """The ``**`` argument that may hold the callable: a dict literal with
    one of ``keys``, else the first splat that is no dict literal."""
    splats = [arg.value for arg in call.args if arg.star == "**"]
    for value in splats:
        if isinstance(value, cst.Dict) and entry(value, keys) is not None:
            return Splat(value, keys)
    others = [value for value in splats if not isinstance(value, cst.Dict)]
    return Splat(others[0], keys) if others else None


@dataclass(frozen=True)
class Handing:
    """Where the project's own wrapper of ``enqueue`` takes the function it
    hands RQ (``def run_later(fn, *args): queue.enqueue(fn, *args)``), or
    the dict it splats into such a call (``def schedule(job):
    scheduler.schedule(time, **job)``): then ``keys`` are the entries that
    may hold the function."""

    position: Optional[int]
    keyword: str
    keys: Tuple[str, ...] = ()

    def argument(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        return argument(call, self.position, self.keyword)

    def handed(self, call: cst.Call) -> Union[cst.BaseExpression, Splat, None]:
        """What a call of the wrapper hands RQ: the function, or the dict holding it."""
        given = self.argument(call)
        if given is None or not self.keys:
            return given
        return Splat(given, self.keys)


def enqueue_wrappers(index: ModuleIndex) -> Dict[str, Handing]:
    """The module's functions that hand one of their parameters to RQ."""
    resolver = index.resolver()
    wrappers: Dict[str, Handing] = {}
    for name, function in index.functions.up_front().items():
        params = function.params
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        every = {*positional, *(p.name.value for p in params.kwonly_params)}
        for call in _calls_in_statements(function.body.body):
            handed = _handed_function(call, resolver)
            keys = handed.keys if isinstance(handed, Splat) else ()
            handed = handed.value if isinstance(handed, Splat) else handed
            if isinstance(handed, cst.Name) and handed.value in every:
                parameter = handed.value
                position = positional.index(parameter) if parameter in positional else None
                wrappers[name] = Handing(position, parameter, keys)
                break
    return wrappers


def handed_target(
    index: ModuleIndex, handed: cst.BaseExpression
) -> Optional[Tuple[bool, str]]:
    """Which function an expression handed to RQ names: (True, ``f`` or
    ``Class.method``) for one of this module, (False, its qualified name)
    for one imported from elsewhere, None when it names neither."""
    resolver = index.resolver()
    spelled = dotted_name(handed)
    if spelled is None:
        return None
    first, _, rest = spelled.partition(".")
    if resolver.is_imported(first):
        qualified = resolver.resolve(handed)
        return (False, qualified) if qualified is not None else None
    if (not rest and first not in index.constants) or (first in index.classes and "." not in rest):
        return True, spelled
    return None


def _index_handed(index: ModuleIndex, handed: cst.BaseExpression) -> None:
    target = handed_target(index, handed)
    if target is None:
        return
    local, name = target
    if local:
        index.registrations.append((name, "rq", {}))
    else:
        index.enqueued.append(name)


def _keywords(call: cst.Call) -> Dict[str, cst.BaseExpression]:
    return {a.keyword.value: a.value for a in call.args if a.keyword is not None}


def classify_decorator(
    expression: cst.BaseExpression,
    resolver: Resolver,
    decorators: Decorators = Decorators(),
    local_functions: AbstractSet[str] = frozenset(),
) -> Optional[Made]:
    """(framework, options) when ``expression`` makes a task, else None.

    A name defined by a ``def`` or ``class`` in the module is a task decorator
    only when it wraps one (see :func:`task_decorator_wrappers`); then
    ``decorators.bound`` knows it.  The options of a decorator bound
    once (``decorators.bound``, ``decorators.project``) come first, those
    written at the call override them.
    """
    options: Dict[str, cst.BaseExpression] = {}
    target = expression
    if isinstance(expression, cst.Call):
        options = _keywords(expression)
        target = expression.func
    spelled = dotted_name(target)
    if spelled is None:
        return None
    bound = decorators.bound(spelled) if isinstance(target, cst.Name) else None
    if bound is not None:
        return bound[0], {**bound[1], **options}
    resolved = resolver.resolve(target) or spelled
    if _is_configured(spelled, resolved, decorators.names):
        return "custom", options
    if resolved in catalog.TASK_DECORATORS:
        return _framework(resolved), options
    top = resolved.split(".")[0]
    if top in catalog.NON_QUEUE_MODULES:
        return None
    if resolver.is_imported(spelled.split(".")[0]) and resolved not in catalog.TASK_DECORATORS:
        made = decorators.project(resolved)
        if made is not None:
            return made[0], {**made[1], **options}
    if isinstance(target, cst.Name):
        name = target.value
        if not resolver.is_imported(name):
            if (
                name in catalog.UNIMPORTED_TASK_DECORATOR_NAMES
                and name not in local_functions
                and resolver.lookup(name) is None
            ):
                return "celery", options
            return None
        if resolved.split(".")[-1] in catalog.TASK_DECORATOR_NAMES:
            return "celery", options
        return None
    if isinstance(target, cst.Attribute):
        if target.attr.value in catalog.TASK_DECORATOR_METHODS:
            return _framework(resolved), options
    return None


def _is_configured(spelled: str, resolved: str, extra: Sequence[str]) -> bool:
    for entry in extra:
        if entry == resolved or entry == spelled:
            return True
        if "." not in entry and spelled.split(".")[-1] == entry:
            return True
    return False


def _framework(resolved: str) -> str:
    for prefix, framework in (
        ("dramatiq", "dramatiq"),
        ("huey", "huey"),
        ("rq", "rq"),
        ("django_rq", "rq"),
        ("taskiq", "taskiq"),
        ("arq", "arq"),
    ):
        if resolved == prefix or resolved.startswith(prefix + ".") or (
            "taskiq" in resolved and framework == "taskiq"
        ):
            return framework
    return "celery"


def task_decorator_wrappers(index: ModuleIndex, extra_decorators: Sequence[str] = ()) -> Dict[str, str]:
    """Module functions and classes that wrap a task decorator, so that they
    are one too, each with the framework of the decorator it wraps.

    ``def mytask(**kw): return shared_task(**kw)`` or ``def job(fn): return
    app.task(bind=True)(fn)``: the project's own decorator, recognised without
    configuration; so is a class that subclasses a decorator class
    (``class Job(rq.decorators.job)``) or whose ``__call__`` calls one.
    """
    resolver = index.resolver()
    known = Decorators(tuple(extra_decorators))
    local_functions = set(index.functions)  # once: a module can define thousands
    wrappers: Dict[str, str] = {}
    for name, function in index.functions.up_front().items():
        framework = _wrapped_framework(function, resolver, known, local_functions)
        if framework is not None:
            wrappers[name] = framework
    for name, owner in index.classes.up_front().items():
        call = index.methods(owner).get("__call__")
        for base in owner.bases:
            made = classify_decorator(base.value, resolver, known)
            if made is not None:
                wrappers[name] = made[0]
                break
        else:
            framework = (
                _wrapped_framework(call, resolver, known, local_functions) if call is not None else None
            )
            if framework is not None:
                wrappers[name] = framework
    return wrappers


def _wrapped_framework(
    function: cst.FunctionDef,
    resolver: Resolver,
    known: Decorators,
    local_functions: AbstractSet[str],
) -> Optional[str]:
    """The framework of the first task decorator the function calls, if any."""
    for call in _calls_in_statements(function.body.body):
        target = call.func.func if isinstance(call.func, cst.Call) else call.func
        made = classify_decorator(target, resolver, known, local_functions)
        if made is not None:
            return made[0]
    return None


class BoundDecorators:
    """What the module-level names bound to a task decorator make, worked
    out for a name when first asked.

    The module's wrappers (:func:`task_decorator_wrappers`), an alias
    (``project_task = shared_task``, ``task = app.task``), a
    decorator instance bound once (``retrying_task =
    shared_task(acks_late=True)``: its options count for every task it
    decorates) and a ``functools.partial`` of a decorator or of the
    module's own wrapper, followed as many bindings deep as the segment
    screen follows them (``MAX_ALIAS_DEPTH``; a cycle makes nothing).
    """

    def __init__(
        self,
        index: ModuleIndex,
        names: Sequence[str] = (),
        project: Callable[[str], Optional[Made]] = _no_project_decorator,
        wrappers: Optional[Mapping[str, str]] = None,
    ) -> None:
        """``wrappers``: :func:`task_decorator_wrappers` of the module, when known."""
        self._index = index
        self._local_functions = set(index.functions)
        # What each name is worked out with, but for ``bound`` (a name one
        # binding deeper): not this object, which would make a cycle.
        self._known = Decorators(tuple(names), _no_binding, project)
        self._wrappers = task_decorator_wrappers(index, names) if wrappers is None else wrappers
        self._made: Dict[str, Optional[Made]] = {}

    def __call__(self, name: str) -> Optional[Made]:
        # Only what is asked from the top is remembered: what a name makes
        # never depends on which name was asked first.
        if name not in self._made:
            self._made[name] = self._worked_out(name, MAX_ALIAS_DEPTH)
        return self._made[name]

    def _worked_out(self, name: str, depth: int) -> Optional[Made]:
        if name in self._wrappers:
            return self._wrappers[name], {}
        value = self._index.constants.get(name)
        if value is None or depth == 0 or name in self._local_functions or name in self._index.classes:
            return None
        deeper = replace(self._known, bound=lambda inner: self._worked_out(inner, depth - 1))
        return _made_by(value, self._index.resolver(), deeper, self._local_functions)


def _made_by(
    value: cst.BaseExpression,
    resolver: Resolver,
    known: Decorators,
    local_functions: AbstractSet[str],
) -> Optional[Made]:
    """What a module-level value makes when it is applied to a function."""
    if isinstance(value, (cst.Name, cst.Attribute)):
        return classify_decorator(value, resolver, known, local_functions)
    if not isinstance(value, cst.Call):
        return None
    wrapped: Optional[cst.BaseExpression] = value.func
    if resolver.resolve(value.func) in PARTIALS:
        wrapped = argument(value, 0, ("func",))
    else:
        first = argument(value, 0)
        if isinstance(first, cst.Name) and first.value in local_functions:
            return None  # ``send = app.task(send_mail)``: a registration, not a decorator
    if not isinstance(wrapped, (cst.Name, cst.Attribute)):
        return None
    made = classify_decorator(wrapped, resolver, known, local_functions)
    if made is None:
        return None
    return made[0], {**made[1], **_keywords(value)}


def task_decorators(
    index: ModuleIndex,
    configured: Sequence[str] = (),
    project_decorator: Callable[[str], Optional[Made]] = _no_project_decorator,
    project_task_base: Callable[[str], bool] = _no_task_base,
    *,
    class_options: Callable[[str], Optional[ClassOptions]] = _no_class_options,
    app_task_class: Callable[[str], Optional[ClassOptions]] = _no_app_task_class,
    module: str = "",
) -> Decorators:
    """Decorators beyond the catalogue's: configured ones, the module's own
    wrappers and bindings, and (``project_decorator``) what a name imported
    from another project module makes; ``project_task_base`` says whether
    an imported class is a project ``Task`` subclass; the keywords are the
    whole-project fields of :class:`Decorators` of the same names."""
    names = tuple(configured)
    return Decorators(
        names,
        BoundDecorators(index, names, project_decorator),
        project_decorator,
        project_task_base,
        class_options,
        app_task_class,
        module,
    )


def find_tasks(index: ModuleIndex, decorators: Decorators = Decorators()) -> List[Task]:
    """Every task entry point of the module, in source order.

    ``decorators``: from :func:`task_decorators`.
    """
    resolver = index.resolver()
    local_functions = set(index.functions)
    classes = TaskClasses(index, decorators)
    found: Dict[int, Task] = {}
    for function in index.functions.up_front().values():
        task = _decorated_task(
            function, function.name.value, resolver, decorators, local_functions, index.constants
        )
        if task is not None:
            app = _function_decorator_app(function, index, decorators.module)
            found[id(function)] = classes.given_to(task, app)
    for name, framework, options in index.registrations:
        registered = registered_function(index, name)
        if registered is not None and id(registered) not in found:
            how = "enqueued in this module" if framework == "rq" else "registered by a call in this module"
            task = Task(name, registered, framework, options, recognised=how)
            found[id(registered)] = classes.given_to(task, None)
    for settings in index.arq_settings:
        for name, options in _arq_functions(settings, resolver):
            listed = index.functions.get(name)
            if listed is not None and id(listed) not in found:
                how = f"listed in {settings.name.value}"
                found[id(listed)] = Task(name, listed, "arq", options, recognised=how)
    # A task made inside a function sorts where that function is.
    order = dict(index.order)
    for task, enclosing in _tasks_made_in_bodies(index, resolver, decorators, local_functions):
        if id(task.function) not in found:
            found[id(task.function)] = classes.given_to(task, None)
            order.setdefault(id(task.function), (*index.order.get(id(enclosing), (0, 0))[:1], len(order)))
    for owner in classes.with_run():
        run = index.methods(owner).get("run")
        if run is not None and id(run) not in found:
            how = _task_class_description(index, owner, resolver)
            own = classes.options_of(owner)
            origins = {
                option: f"base {given.origin}"
                for option, given in own.items()
                if given.origin != owner.name.value
            }
            options = {option: given.value for option, given in own.items()}
            found[id(run)] = Task(
                owner.name.value, run, "celery", options, owner=owner, recognised=how, origins=origins
            )
    for owner in index.classes.up_front().values():
        for method in index.methods(owner).values():
            if id(method) in found:
                continue
            task = _decorated_task(
                method,
                f"{owner.name.value}.{method.name.value}",
                resolver,
                decorators,
                local_functions,
                index.constants,
            )
            if task is not None:
                found[id(method)] = classes.given_to(task, None)
    return sorted(found.values(), key=lambda t: order.get(id(t.function), (0, 0)))


def _tasks_made_in_bodies(
    index: ModuleIndex,
    resolver: Resolver,
    decorators: Decorators,
    local_functions: AbstractSet[str],
) -> Iterator[Tuple[Task, cst.FunctionDef]]:
    """Tasks a module function or method makes when it runs: a function it
    defines, decorated (``@app.task`` on a nested ``def``) or registered
    (``cls.run = app.task(bind=True)(execute)`` in ``__init_subclass__``),
    and a module function it registers (``app.task(name=...)(sync)``).

    A function that calls a parameter of a function around it (``def
    _wrapped(*a): return func(*a)`` inside ``def wrapped(func)``) is the
    inside of the project's own task decorator, not a task: what it runs
    is decided by whoever uses that decorator.
    """
    # A call in a body is not followed into other modules (that would load
    # every module whose functions a body calls): the registrations read are
    # by decorators this module knows (its imports, aliases and wrappers).
    calling = replace(decorators, project=_no_project_decorator)
    for owner, function in _functions_with_owner(index):
        if _wrapped_framework(function, resolver, calling, local_functions) is None and not any(
            _decorated_inside(function)
        ):
            continue  # the common case, decided by one shallow scan
        prefix = f"{owner.name.value}.{function.name.value}" if owner else function.name.value
        # A method's ``self`` or ``cls`` is no function being wrapped.
        receiver = _positional_names(function)[:1] if owner is not None else []
        made = _made_inside(
            function, f"{prefix}.<locals>", index, resolver, (decorators, calling), local_functions, receiver
        )
        yield from ((task, function) for task in made)


def _functions_with_owner(
    index: ModuleIndex,
) -> Iterator[Tuple[Optional[cst.ClassDef], cst.FunctionDef]]:
    for function in index.functions.up_front().values():
        yield None, function
    for owner in index.classes.up_front().values():
        for member in owner.body.body:
            if isinstance(member, cst.FunctionDef):
                yield owner, member


def _decorated_inside(function: cst.FunctionDef) -> Iterator[cst.FunctionDef]:
    """The decorated functions defined (at any depth) inside ``function``."""
    for inner in _defined_inside(function):
        if inner.decorators:
            yield inner


def _defined_inside(function: cst.FunctionDef) -> Iterator[cst.FunctionDef]:
    for statement in _statements_inside(function.body.body):
        if isinstance(statement, cst.FunctionDef):
            yield statement
            yield from _defined_inside(statement)


def _statements_inside(statements: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """The statements of a body and of its blocks, not of the functions defined in it."""
    for statement in statements:
        yield statement
        if not isinstance(statement, cst.FunctionDef):
            for block in _nested_blocks(statement):
                yield from _statements_inside(block)


def _made_inside(
    function: cst.FunctionDef,
    prefix: str,
    index: ModuleIndex,
    resolver: Resolver,
    known: Tuple[Decorators, Decorators],
    local_functions: AbstractSet[str],
    not_wrapped: Sequence[str] = (),
    enclosing_parameters: AbstractSet[str] = frozenset(),
) -> Iterator[Task]:
    """``known``: the decorators a nested ``def`` may carry, and those a call may register with."""
    decorators, calling = known
    parameters = enclosing_parameters | (_parameter_names(function) - set(not_wrapped))
    inner = {d.name.value: d for d in _statements_inside(function.body.body) if isinstance(d, cst.FunctionDef)}
    for name, defined in inner.items():
        wraps_a_parameter = _calls_one_of(defined, parameters)
        if not wraps_a_parameter:
            task = _decorated_task(defined, f"{prefix}.{name}", resolver, decorators, local_functions, {})
            if task is not None:
                yield task
        yield from _made_inside(
            defined, f"{prefix}.{name}.<locals>", index, resolver, known, local_functions, (), parameters
        )
    for call in _own_calls(function):
        registered = _registration(call, resolver, calling, local_functions)
        if registered is None:
            continue
        name, made = registered
        if name in inner and not _calls_one_of(inner[name], parameters):
            how = "registered by a call in " + prefix.rpartition(".<locals>")[0]
            yield Task(f"{prefix}.{name}", inner[name], made[0], made[1], recognised=how)
        elif name not in inner and name not in parameters and name in index.functions:
            module_function = index.functions.get(name)
            if module_function is not None:
                how = "registered by a call in " + prefix.rpartition(".<locals>")[0]
                yield Task(name, module_function, made[0], made[1], recognised=how)


def _registration(
    call: cst.Call, resolver: Resolver, decorators: Decorators, local_functions: AbstractSet[str]
) -> Optional[Tuple[str, Made]]:
    """``app.task(f)`` or ``app.task(**options)(f)``: the name registered and what it makes."""
    if not call.args:
        return None
    first = call.args[0]
    if first.keyword is not None or first.star or not isinstance(first.value, cst.Name):
        return None
    made = classify_decorator(call.func, resolver, decorators, local_functions)
    if made is None:
        return None
    options = made[1] if isinstance(call.func, cst.Call) else {**made[1], **_keywords(call)}
    return first.value.value, (made[0], options)


def _own_calls(function: cst.FunctionDef) -> Iterator[cst.Call]:
    """The calls :func:`_calls_in_statements` finds in the function's own
    statements, not in the functions defined inside it."""
    for statement in _statements_inside(function.body.body):
        if isinstance(statement, cst.SimpleStatementLine):
            yield from _calls_in_statements([statement])


def _positional_names(function: cst.FunctionDef) -> List[str]:
    params = function.params
    return [p.name.value for p in (*params.posonly_params, *params.params)]


def _parameter_names(function: cst.FunctionDef) -> Set[str]:
    params = function.params
    names = {*_positional_names(function), *(p.name.value for p in params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    return names


def _calls_one_of(function: cst.FunctionDef, names: AbstractSet[str]) -> bool:
    """Whether the function calls one of ``names`` by its bare name."""
    return any(
        isinstance(call.func, cst.Name) and call.func.value in names
        for call in _calls_in_statements(function.body.body)
    )


class TaskClasses:
    """The module's Celery ``Task`` subclasses and the options task classes
    give, worked out when first asked.

    Celery creates a task as a subclass of its class: ``base=`` of the
    decorator, else its app's ``Task`` (``app.Task = X``,
    ``Celery(task_cls=X)``); the class's attributes (``acks_late = True``),
    its own and those it inherits (the method resolution order, over the
    project's classes), are the task's options unless the decorator sets
    the same option itself.
    """

    def __init__(self, index: ModuleIndex, decorators: Decorators) -> None:
        self._index = index
        self._decorators = decorators
        self._resolver = index.resolver()
        self._classes: Optional[Set[int]] = None

    def holds(self, owner: cst.ClassDef) -> bool:
        """Whether a class of the module is a ``Task`` subclass; all of them
        are worked out (:func:`task_classes`) the first time one is asked about."""
        if self._classes is None:
            found = task_classes(self._index, self._resolver, self._decorators.task_base)
            self._classes = {id(c) for c in found}
        return id(owner) in self._classes

    def with_run(self) -> List[cst.ClassDef]:
        """The ``Task`` subclasses with a ``run`` (class-based tasks); only
        those classes and their bases are examined."""
        index = self._index
        among = [name for name, owner in index.classes.up_front().items() if "run" in index.methods(owner)]
        return task_classes(index, self._resolver, self._decorators.task_base, among=among)

    def options_of(self, owner: cst.ClassDef) -> Dict[str, Inherited]:
        """What a class of this module sets, through its project bases."""
        return class_options(self._index, owner, self._decorators.class_options)

    def base_options(self, expression: cst.BaseExpression) -> Optional[ClassOptions]:
        """The options of the class a ``base=`` names, None when it is no
        project ``Task`` subclass (``base=celery.Task`` gives none)."""
        spelled = dotted_name(expression)
        if spelled is None:
            return None
        if spelled in self._index.classes:
            owner = self._index.classes[spelled]
            return self.options_of(owner) if self.holds(owner) else None
        if not self._resolver.is_imported(spelled.split(".")[0]):
            return None
        resolved = self._resolver.resolve(expression)
        if resolved is None or not self._decorators.task_base(resolved):
            return None
        return self._decorators.class_options(resolved)

    def app_options(self, app: Optional[str]) -> Optional[ClassOptions]:
        """The options of the default class of the app (qualified; "" for
        the project's only one) a task is made by."""
        return self._decorators.app_task_class(app) if app is not None else None

    def given_to(self, task: Task, app: Optional[str]) -> Task:
        """``task`` with the options its class gives it (Celery tasks only)."""
        if task.framework != "celery":
            return task
        base = task.options.get("base")
        given = self.base_options(base) if base is not None else self.app_options(app)
        if not given:
            return task
        added = {option: inherited for option, inherited in given.items() if option not in task.options}
        if not added:
            return task
        options = {**task.options, **{option: inherited.value for option, inherited in added.items()}}
        origins = {**task.origins, **{option: f"base {inherited.origin}" for option, inherited in added.items()}}
        return replace(task, options=options, origins=origins)


def class_options(
    index: ModuleIndex,
    owner: cst.ClassDef,
    imported: Callable[[str], Optional[ClassOptions]] = _no_class_options,
    seen: Optional[Set[int]] = None,
) -> Dict[str, Inherited]:
    """The task options a class sets as attributes, its own first, then
    those of its bases in order (the module's classes, and through
    ``imported`` those of other project modules): Celery's method
    resolution order, approximated depth first."""
    seen = set() if seen is None else seen
    seen.add(id(owner))
    found: Dict[str, Inherited] = {
        name: Inherited(value, owner.name.value)
        for name, value in class_assignments(owner).items()
        if name in catalog.TASK_CLASS_OPTIONS
    }
    resolver = index.resolver()
    for base in owner.bases:
        if base.keyword is not None:
            continue
        spelled = dotted_name(base.value) or ""
        inherited: Optional[ClassOptions] = None
        if spelled in index.classes:
            local = index.classes[spelled]
            if id(local) not in seen:
                inherited = class_options(index, local, imported, seen)
        elif resolver.is_imported(spelled.split(".")[0]):
            qualified = resolver.resolve(base.value)
            inherited = imported(qualified) if qualified is not None else None
        for name, given in (inherited or {}).items():
            found.setdefault(name, given)
    return found


def class_assignments(owner: cst.ClassDef) -> Dict[str, cst.BaseExpression]:
    """``name = value`` statements of a class body (the last one wins)."""
    return dict(assignments_in(owner.body.body))


def assignments_in(statements: Sequence[cst.CSTNode]) -> Iterator[Tuple[str, cst.BaseExpression]]:
    """The ``name = value`` (and ``name: T = value``) statements of a block,
    in order, nested blocks left out."""
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        yield target.target.value, small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                if isinstance(small.target, cst.Name):
                    yield small.target.value, small.value


def _function_decorator_app(function: cst.FunctionDef, index: ModuleIndex, module: str) -> Optional[str]:
    """The app a decorated Celery task belongs to, qualified (see
    :func:`decorator_app`), from its first decorator that names one."""
    for decorator in function.decorators:
        app = decorator_app(decorator.decorator, index, module)
        if app is not None:
            return app
    return None


def decorator_app(expression: cst.BaseExpression, index: ModuleIndex, module: str = "") -> Optional[str]:
    """Which app a Celery task decorator makes tasks for: ``app.task`` ->
    the qualified name of ``app`` (imported, or ``module.app`` for one of
    this module: "" when ``module`` is not known), ``shared_task`` -> ""
    (the project's only app); a module-level binding (``retrying_task =
    shared_task(...)``) is followed once.  None: not known."""
    resolver = index.resolver()
    target = expression.func if isinstance(expression, cst.Call) else expression
    if isinstance(target, cst.Name) and target.value in index.constants and not resolver.is_imported(target.value):
        bound = index.constants[target.value]
        target = bound.func if isinstance(bound, cst.Call) else bound
    resolved = resolver.resolve(target)
    if resolved in ("celery.shared_task", "celery.task"):
        return ""
    if not isinstance(target, cst.Attribute) or target.attr.value != "task":
        return None
    receiver = dotted_name(target.value)
    if receiver is None:
        return None
    if resolver.is_imported(receiver.split(".")[0]):
        return resolver.resolve(target.value)
    if receiver in index.constants and module:
        return f"{module}.{receiver}"
    return None


def registered_function(index: ModuleIndex, name: str) -> Optional[cst.FunctionDef]:
    """The module's function ``f`` or method ``Class.method`` a registration names."""
    owner_name, _, method = name.rpartition(".")
    if not owner_name:
        return index.functions.get(name)
    owner = index.classes.get(owner_name)
    return index.methods(owner).get(method) if owner is not None else None


def _decorated_task(
    function: cst.FunctionDef,
    name: str,
    resolver: Resolver,
    extra_decorators: Decorators,
    local_functions: AbstractSet[str],
    constants: Mapping[str, cst.BaseExpression],
) -> Optional[Task]:
    for decorator in function.decorators:
        classified = classify_decorator(
            decorator.decorator, resolver, extra_decorators, local_functions
        )
        if classified is not None:
            framework, options = classified
            how = _decorator_description(decorator.decorator, resolver, constants)
            schedule = _periodic_schedule(decorator.decorator, resolver)
            return Task(name, function, framework, options, recognised=how, schedule=schedule)
    return None


def _decorator_description(
    expression: cst.BaseExpression, resolver: Resolver, constants: Mapping[str, cst.BaseExpression]
) -> str:
    """``@name``, and what the name stands for when it is not spelled as it
    resolves: ``@retrying_task -> celery.shared_task(acks_late=True)``."""
    target = expression.func if isinstance(expression, cst.Call) else expression
    spelled = dotted_name(target) or ""
    bound = binding_description(constants, resolver, spelled) if isinstance(target, cst.Name) else None
    if bound is not None:
        return f"@{spelled} -> {bound}"
    resolved = resolver.resolve(target)
    if resolved is not None and resolved != spelled:
        return f"@{spelled} -> {resolved}"
    return f"@{spelled}"


def binding_description(
    constants: Mapping[str, cst.BaseExpression], resolver: Resolver, name: str
) -> Optional[str]:
    """``callee(arguments)`` when a module-level ``name`` is bound to a call
    (``retrying_task = shared_task(acks_late=True)``), what it aliases when
    it is bound to a name (``project_task = shared_task``), else None."""
    bound = constants.get(name)
    if isinstance(bound, (cst.Name, cst.Attribute)):
        return resolver.resolve(bound)
    if not isinstance(bound, cst.Call):
        return None
    callee = resolver.resolve(bound.func) or dotted_name(bound.func) or ""
    arguments = ", ".join(source_text(arg).rstrip(", ") for arg in bound.args)
    return f"{callee}({arguments})"


def _periodic_schedule(expression: cst.BaseExpression, resolver: Resolver) -> Optional[cst.BaseExpression]:
    """The schedule a periodic task decorator takes first (``periodic_task(crontab(...))``)."""
    if not isinstance(expression, cst.Call):
        return None
    if "periodic" not in (resolver.resolve(expression.func) or "").rpartition(".")[2]:
        return None
    return argument(expression, 0)


def source_text(node: cst.CSTNode) -> str:
    """A node's source on one line (whitespace runs collapsed)."""
    return " ".join(cst.Module(body=[]).code_for_node(node).split())


def _task_class_description(index: ModuleIndex, owner: cst.ClassDef, resolver: Resolver) -> str:
    if owner.name.value in index.registered_classes:
        return "registered with register_task"
    bases = [resolver.resolve(base.value) or source_text(base.value) for base in owner.bases]
    return "Task subclass of " + ", ".join(bases)


def _arq_functions(
    settings: cst.ClassDef, resolver: Resolver
) -> List[Tuple[str, Dict[str, cst.BaseExpression]]]:
    """Functions listed in ``functions``/``cron_jobs``, with ``func(f, timeout=...)`` options."""
    listed: List[Tuple[str, Dict[str, cst.BaseExpression]]] = []
    for statement in settings.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Assign) or not any(
                isinstance(t.target, cst.Name) and t.target.value in catalog.ARQ_SETTINGS_LISTS
                for t in small.targets
            ):
                continue
            if not isinstance(small.value, (cst.List, cst.Tuple)):
                continue
            for element in small.value.elements:
                value = element.value
                options: Dict[str, cst.BaseExpression] = {}
                if isinstance(value, cst.Call) and resolver.resolve(value.func) in (
                    catalog.ARQ_WRAPPERS
                ):
                    options = _keywords(value)
                    value = argument(value, 0, ("coroutine",)) or value
                if isinstance(value, cst.Name):
                    listed.append((value.value, options))
    return listed


def task_classes(
    index: ModuleIndex,
    resolver: Resolver,
    project_task_base: Callable[[str], bool] = _no_task_base,
    among: Optional[Iterable[str]] = None,
) -> List[cst.ClassDef]:
    """Celery ``Task`` subclasses, including subclasses of those in the
    module, of those another project module defines (``project_task_base``)
    and classes registered with ``app.register_task``.

    With ``among`` (class names), only those and their bases in the module
    are examined besides the registered ones: whether a class is a task
    class depends on its bases alone, and asking the project about the
    bases of every other class would parse modules nobody needs.
    """
    task_classes: Dict[str, cst.ClassDef] = {}
    for name in index.registered_classes:
        owner = index.classes.get(name)
        if owner is not None:
            task_classes[name] = owner
    candidates = _detection_classes(index, among)
    changed = True
    while changed:
        changed = False
        for name, owner in candidates.items():
            if name in task_classes:
                continue
            for base in owner.bases:
                if (
                    is_task_base(base.value, resolver)
                    or dotted_name(base.value) in task_classes
                    or _imported_task_base(base.value, resolver, project_task_base)
                ):
                    task_classes[name] = owner
                    changed = True
                    break
    return list(task_classes.values())


def _detection_classes(index: ModuleIndex, among: Optional[Iterable[str]]) -> Dict[str, cst.ClassDef]:
    """The classes detection reads (those parsed up front, then those it
    parses only now, see ``Definitions.detected``): all of them, or ``among``
    and, transitively, their bases in the module."""
    up_front = index.classes.up_front()
    detected = [name for name in index.classes.detected() if name not in up_front]

    def read(name: str) -> Optional[cst.ClassDef]:
        if name in up_front:
            return up_front[name]
        return index.classes.get(name) if name in detected else None

    if among is None:
        names: Iterable[str] = [*up_front, *detected]
    else:
        found: Set[str] = set()
        waiting = list(among)
        while waiting:
            name = waiting.pop()
            owner = read(name)
            if name in found or owner is None:
                continue
            found.add(name)
            waiting += [spelled for spelled in map(dotted_name, (b.value for b in owner.bases)) if spelled]
        names = [name for name in [*up_front, *detected] if name in found]
    classes: Dict[str, cst.ClassDef] = {}
    for name in names:
        owner = read(name)
        if owner is not None:
            classes[name] = owner
    return classes


def _imported_task_base(
    expression: cst.BaseExpression, resolver: Resolver, project_task_base: Callable[[str], bool]
) -> bool:
    spelled = dotted_name(expression)
    if spelled is None or not resolver.is_imported(spelled.split(".")[0]):
        return False
    resolved = resolver.resolve(expression)
    return resolved is not None and project_task_base(resolved)


def is_task_base(expression: cst.BaseExpression, resolver: Resolver) -> bool:
    resolved = resolver.resolve(expression)
    if resolved is None:
        return False
    if resolved in catalog.CELERY_TASK_BASES:
        return True
    if isinstance(expression, cst.Attribute) and expression.attr.value == "Task":
        return resolved.split(".")[0] not in catalog.NON_QUEUE_MODULES
    return False
