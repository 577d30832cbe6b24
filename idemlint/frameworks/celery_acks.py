"""Celery's late acks: where they are turned on, and whether the same
place turns ``reject_on_worker_lost`` on (IDM009).

Celery acks a
message after the task returns when ``acks_late`` is on, but a worker process
that dies (OOM killer, SIGKILL, the hard time limit) is a
``WorkerLostError``, and Celery acks *that* too unless
``reject_on_worker_lost`` is also on.  Late acks alone therefore do not give
redelivery on the very failure they are usually enabled for.

Settings are grouped into *places*; an ``acks_late`` setting is fine when its
place (or a place it inherits from) turns ``reject_on_worker_lost`` on:

- the app-wide configuration of a module: module-level assignments
  (``celeryconfig.py``, Django ``CELERY_TASK_...``, old ``CELERY_...``),
  ``app.conf.x = ...``, ``app.conf["x"] = ...``, ``app.conf.update(...)``
  and ``Celery(...)`` keyword arguments, including inside module-level
  ``if``/``try``/``with`` blocks.  A function body (an app factory) is a place
  of its own that inherits from its module.  Nothing is inherited from other
  modules: ``config_from_object`` and star imports are not followed.
- a class body: a Celery ``Task`` subclass (``acks_late = True``) or a
  configuration class (``task_acks_late = True``); it inherits from its base
  classes in the module, then from the module's app-wide configuration.
- a task decorator or registration call (``@app.task(acks_late=True)``,
  ``app.task(f, acks_late=True)``); it inherits first what a decorator
  bound once sets (``retrying_task = shared_task(reject_on_worker_lost=True)``)
  or else the task's ``Task`` class (``base=``, the app's ``app.Task = X`` /
  ``task_cls``, with that class's project bases in any module), then the
  app-wide configuration of its module, exactly as Celery's
  ``Task.from_config`` does.  What a binding or a class sets is reported
  once, where it is written, never once per task.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from idemlint import catalog
from idemlint.names import Resolver, dotted_name, literal_text
from idemlint.tasks import (
    ClassOptions,
    Decorators,
    Inherited,
    ModuleIndex,
    TaskClasses,
    class_assignments,
    classify_decorator,
    decorator_app,
    is_task_base,
)

if TYPE_CHECKING:
    from idemlint.facts import ModuleContext

# App-wide setting names (new lowercase, Django ``namespace="CELERY"``, and
# pre-4.0) -> the reject setting to suggest in the same spelling.  Celery's
# own ``defaults.py`` derives the old name of ``task_reject_on_worker_lost``
# as ``CELERY_REJECT_ON_WORKER_LOST``; its configuration guide lists
# ``CELERY_TASK_REJECT_ON_WORKER_LOST``.  Both are accepted.
CONFIG_ACKS = {
    "task_acks_late": "task_reject_on_worker_lost",
    "CELERY_TASK_ACKS_LATE": "CELERY_TASK_REJECT_ON_WORKER_LOST",
    "CELERY_ACKS_LATE": "CELERY_REJECT_ON_WORKER_LOST",
}
CONFIG_REJECT = frozenset(
    {
        "task_reject_on_worker_lost",
        "CELERY_TASK_REJECT_ON_WORKER_LOST",
        "CELERY_REJECT_ON_WORKER_LOST",
    }
)
# Per-task option / ``Task`` attribute names.
TASK_ACKS = "acks_late"
TASK_REJECT = "reject_on_worker_lost"

CELERY_APP_CLASSES = catalog.CELERY_APP_CLASSES

UNSET, ON, OFF = "unset", "on", "off"


@dataclass(eq=False)
class AcksSetting:
    """One setting that turns late acks on, as written."""

    node: cst.CSTNode
    shown: str  # how the setting reads: "`acks_late=True`"
    reject: str  # the reject setting to suggest, in the same spelling
    form: str  # "keyword", "assign" or "key": how to spell the suggestion
    setting: str = ""  # the app-wide setting's name (``task_acks_late``)
    # What the fix goes after: the value ``True`` of a keyword or a dict
    # entry, or the assignment statement.
    anchor: Optional[cst.CSTNode] = None


@dataclass(eq=False)
class _Place:
    """Where settings live together; see the module docstring."""

    # How the message places the acks setting: " on task `f`", " in class
    # `T`" (subject) or " in this module" (scope, after the reject setting).
    subject: str = ""
    scope: str = ""
    parents: List["_Place"] = field(default_factory=list)
    acks: List[AcksSetting] = field(default_factory=list)
    reject: str = UNSET
    pool: Optional[str] = None  # ``worker_pool = "threads"`` set here
    # Some reject setting is written here (``None`` included): a fix would repeat it.
    reject_written: bool = False
    # The tasks a task place covers: the function decorated, or the name of
    # a decorator bound once at module level (``retrying = shared_task(...)``),
    # whose tasks are the module's functions it decorates; whether the
    # decorator gives the task its own schedule (``run_every=``).
    covers: Tuple[cst.FunctionDef, ...] = ()
    binding: Optional[str] = None
    own_schedule: bool = False

    def set_reject(self, state: str) -> None:
        self.reject_written = True
        # Several reject settings in one place: any that may be on wins
        # (benefit of the doubt; conditions are not evaluated).
        if state == ON or (state == OFF and self.reject == UNSET):
            self.reject = state

    def resolved(self, seen: Optional[Set[int]] = None) -> str:
        """This place's reject state, or the first decided one it inherits."""
        if self.reject != UNSET:
            return self.reject
        seen = seen if seen is not None else set()
        seen.add(id(self))
        for parent in self.parents:
            if id(parent) in seen:
                continue
            state = parent.resolved(seen)
            if state != UNSET:
                return state
        return UNSET


def _is_true(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Name) and value.value == "True"


def _reject_state(value: cst.BaseExpression) -> str:
    """Literal False/0 is off, None is "use the default"; anything else may be on."""
    if isinstance(value, cst.Name) and value.value == "False":
        return OFF
    if isinstance(value, cst.Name) and value.value == "None":
        return UNSET
    if isinstance(value, cst.Integer) and value.value == "0":
        return OFF
    return ON


def _string_key(node: Optional[cst.BaseExpression]) -> Optional[str]:
    return literal_text(node) if node is not None else None


def _first_name(call: cst.Call) -> Optional[str]:
    """The name of the function a registration call receives, if any."""
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg.value.value if isinstance(arg.value, cst.Name) else None
    return None


def _registers_a_function(value: cst.BaseExpression) -> bool:
    """``app.task(func, ...)`` or ``app.task(...)(func)``: no decorator bound."""
    return isinstance(value, cst.Call) and (isinstance(value.func, cst.Call) or _first_name(value) is not None)


def _is_conf(node: cst.BaseExpression) -> bool:
    """``<something>.conf``: a Celery app's configuration object."""
    return isinstance(node, cst.Attribute) and node.attr.value == "conf"


def _assignment(
    small: cst.BaseSmallStatement,
) -> Tuple[List[cst.BaseExpression], Optional[cst.BaseExpression]]:
    """The targets and value of an assignment statement; nothing otherwise."""
    if isinstance(small, cst.Assign):
        return [t.target for t in small.targets], small.value
    if isinstance(small, cst.AnnAssign):
        return [small.target], small.value
    return [], None


class _Answer:
    """Whether a class is a task class, worked out the first time a setting
    in its body (or a subclass's) needs it."""

    def __init__(
        self, node: cst.ClassDef, inherited: Sequence["_Answer"], classes: TaskClasses, resolver: Resolver
    ) -> None:
        self._node = node
        self._inherited = inherited
        self._classes = classes
        self._resolver = resolver
        self._known: Optional[bool] = None

    def __call__(self) -> bool:
        if self._known is None:
            self._known = (
                self._classes.holds(self._node)
                or any(base() for base in self._inherited)
                or any(is_task_base(base.value, self._resolver) for base in self._node.bases)
            )
        return self._known


class _Walker:
    """One pass over the module's statements (not its expressions)."""

    def __init__(self, index: ModuleIndex, task_decorators: Decorators) -> None:
        self.index = index
        self.task_decorators = task_decorators
        # A call in a statement asks no other module: only a decorator can
        # name the project's own (asking would parse every module called).
        self.statement_decorators = replace(task_decorators, project=Decorators().project)
        self.resolver: Resolver = index.resolver()
        # Worked out only when a class body needs it (see _Answer).
        self.classes = TaskClasses(index, task_decorators)
        self.class_places: Dict[str, _Place] = {}
        self.classes_set_late_acks = any(
            TASK_ACKS in class_assignments(owner) for owner in index.classes.up_front().values()
        )
        self.class_is_task: Dict[str, _Answer] = {}
        self.places: List[_Place] = []

    def place(self, *parents: _Place, subject: str = "", scope: str = "") -> _Place:
        made = _Place(subject=subject, scope=scope, parents=list(parents))
        self.places.append(made)
        return made

    # -- statements -------------------------------------------------------

    def scope(
        self, statements: Sequence[cst.CSTNode], app: _Place, module_level: bool
    ) -> None:
        for statement in statements:
            if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                for small in statement.body:
                    self.small(small, app, module_level)
            elif isinstance(statement, cst.BaseSmallStatement):
                self.small(statement, app, module_level)
            elif isinstance(statement, cst.FunctionDef):
                self.function(statement, app, module_level)
            elif isinstance(statement, cst.ClassDef):
                self.klass(statement, app)
            else:
                for block in _blocks(statement):
                    self.scope(block, app, module_level)

    def function(self, node: cst.FunctionDef, app: _Place, module_level: bool) -> None:
        for decorator in node.decorators:
            expression = decorator.decorator
            if isinstance(expression, cst.Call):
                place = self.task_call(expression, app, node.name.value, self.task_decorators)
                if place is not None and module_level:
                    place.covers = (node,)
        body = self.place(app, scope=f" in `{node.name.value}` or at module level")
        self.scope(node.body.body, body, module_level=False)

    def small(self, small: cst.BaseSmallStatement, app: _Place, module_level: bool) -> None:
        targets, value = _assignment(small)
        if isinstance(small, (cst.Expr, cst.Return)):
            value = small.value
        if value is None:
            return
        for target in targets:
            name: Optional[str] = None
            spelled: Optional[str] = None
            if isinstance(target, cst.Name) and module_level:
                name = target.value
            elif isinstance(target, cst.Attribute) and _is_conf(target.value):
                name = target.attr.value
                spelled = dotted_name(target)
            elif isinstance(target, cst.Subscript) and _is_conf(target.value):
                if len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
                    name = _string_key(target.slice[0].slice.value)
                    conf = dotted_name(target.value)
                    spelled = f'{conf}["{name}"]' if conf else None
            if name is not None:
                self.config_setting(app, name, value, small, "assign", spelled)
        place = self.calls(value, app)
        bound = [t.value for t in targets if isinstance(t, cst.Name)]
        if place is not None and module_level and len(bound) == 1 and not _registers_a_function(value):
            place.binding = bound[0]

    def calls(self, value: cst.BaseExpression, app: _Place) -> Optional[_Place]:
        """The place of a task registration or decorator call, if it is one."""
        if isinstance(value, cst.Await):
            value = value.expression
        if not isinstance(value, cst.Call):
            return None
        if isinstance(value.func, cst.Call):  # app.task(acks_late=True)(func)
            return self.registered(value.func, value, app)
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value == "update" and _is_conf(
            func.value
        ):
            self.config_arguments(value.args, app)
        elif self.is_celery_app(func):
            self.config_arguments(value.args, app, constructor=True)
        else:
            # app.task(func, acks_late=True)
            return self.registered(value, value, app)
        return None

    def registered(self, call: cst.Call, given: cst.Call, app: _Place) -> Optional[_Place]:
        """The place of ``app.task(func, ...)`` or ``app.task(...)(func)``,
        covering ``func`` when it is a function of the module."""
        name = _first_name(given)
        place = self.task_call(call, app, name, self.statement_decorators)
        function = self.index.functions.get(name) if name is not None else None
        if place is not None and isinstance(function, cst.FunctionDef):
            place.covers = (function,)
        return place

    def is_celery_app(self, func: cst.BaseExpression) -> bool:
        resolved = self.resolver.resolve(func)
        if resolved in CELERY_APP_CLASSES:
            return True
        return (
            isinstance(func, cst.Name)
            and func.value == "Celery"
            and not self.resolver.is_imported("Celery")
        )

    # -- app-wide configuration ---------------------------------------------

    def config_setting(
        self,
        place: _Place,
        name: str,
        value: cst.BaseExpression,
        node: cst.CSTNode,
        form: str,
        spelled: Optional[str] = None,
    ) -> None:
        if name in CONFIG_REJECT:
            place.set_reject(_reject_state(value))
        elif name in CONFIG_ACKS and _is_true(value):
            shown = {"assign": f"{spelled or name} = True", "keyword": f"{name}=True",
                     "key": f'"{name}": True'}[form]
            anchor = node if form == "assign" else value
            place.acks.append(AcksSetting(node, f"`{shown}`", CONFIG_ACKS[name], form, name, anchor))
        elif name in catalog.WORKER_POOL_SETTINGS:
            place.pool = literal_text(value)

    def config_arguments(
        self, args: Sequence[cst.Arg], place: _Place, constructor: bool = False
    ) -> None:
        for arg in args:
            if arg.keyword is not None:
                name = arg.keyword.value
                if constructor and name == "changes":
                    self.config_mapping(arg.value, place)
                elif constructor and name == "config_source":
                    # Like ``config_from_object``: not assumed, unless a dict
                    # literal shows its content.
                    self.config_mapping(arg.value, place, opaque_is_on=False)
                else:
                    self.config_setting(place, name, arg.value, arg, "keyword")
            elif not constructor or arg.star:
                self.config_mapping(arg.value, place)

    def config_mapping(
        self, value: cst.BaseExpression, place: _Place, opaque_is_on: bool = True
    ) -> None:
        """A dict literal (or a module constant holding one, or ``dict(...)``)."""
        if isinstance(value, cst.Name) and value.value in self.index.constants:
            value = self.index.constants[value.value]
        if isinstance(value, cst.Dict):
            for element in value.elements:
                if isinstance(element, cst.DictElement):
                    key = _string_key(element.key)
                    if key is not None:
                        self.config_setting(place, key, element.value, element.key, "key")
                else:  # ``**other``: whatever it holds may turn reject on
                    self.config_mapping(element.value, place)
        elif isinstance(value, cst.Call) and dotted_name(value.func) == "dict":
            self.config_arguments(value.args, place)
        elif opaque_is_on and not isinstance(value, (cst.SimpleString, cst.Name)):
            # Something we cannot read (a call, an attribute...): it may hold
            # the reject setting, so it gets the benefit of the doubt.
            place.set_reject(ON)
        elif opaque_is_on and isinstance(value, cst.Name) and value.value != "None":
            if value.value not in self.index.classes:
                place.set_reject(ON)

    # -- tasks ------------------------------------------------------------

    def task_call(
        self, call: cst.Call, app: _Place, label: Optional[str], decorators: Decorators
    ) -> Optional[_Place]:
        classified = classify_decorator(call, self.resolver, decorators)
        if classified is None or classified[0] not in ("celery", "custom"):
            return None
        subject = f" on task `{label}`" if label else f" in `{dotted_name(call.func)}(...)`"
        written = {arg.keyword.value for arg in call.args if arg.keyword is not None}
        given = {
            option: value for option, value in classified[1].items() if option not in written
        }  # by a decorator bound once (reported where it is bound)
        inherited = self.inherited_place(given, self.class_options_of(call, classified[1]))
        place = self.place(*inherited, app, subject=subject)
        self.task_arguments(call.args, place)
        # Celery 4 dropped ``run_every`` on other tasks: only a periodic decorator schedules.
        place.own_schedule = "periodic" in (self.resolver.resolve(call.func) or "").rpartition(".")[2]
        return place

    def class_options_of(
        self, call: cst.Call, options: Dict[str, cst.BaseExpression]
    ) -> Optional[ClassOptions]:
        """What the task's ``Task`` class gives (``base=``, else its app's class)."""
        base = options.get("base")
        if base is not None:
            return self.classes.base_options(base)
        return self.classes.app_options(decorator_app(call, self.index, self.task_decorators.module))

    def inherited_place(
        self, given: Dict[str, cst.BaseExpression], inherited: Optional[ClassOptions]
    ) -> List[_Place]:
        """A place holding the reject setting a task inherits from a bound
        decorator or its class (either reported where it is written), if any."""
        value = given.get(TASK_REJECT)
        if value is None and inherited is not None and TASK_REJECT in inherited:
            value = inherited[TASK_REJECT].value
        if value is None:
            return []
        place = self.place()
        place.set_reject(_reject_state(value))
        return [place]

    def task_arguments(self, args: Sequence[cst.Arg], place: _Place) -> None:
        for arg in args:
            if arg.keyword is not None:
                self.task_setting(place, arg.keyword.value, arg.value, arg, "keyword")
            elif arg.star == "**":
                value = arg.value
                if isinstance(value, cst.Name) and value.value in self.index.constants:
                    value = self.index.constants[value.value]
                if isinstance(value, cst.Dict):
                    for element in value.elements:
                        if isinstance(element, cst.DictElement):
                            key = _string_key(element.key)
                            if key is not None:
                                self.task_setting(place, key, element.value, element.key, "key")
                        else:
                            place.set_reject(ON)
                else:
                    place.set_reject(ON)

    def task_setting(
        self, place: _Place, name: str, value: cst.BaseExpression, node: cst.CSTNode, form: str
    ) -> None:
        if name == TASK_REJECT:
            place.set_reject(_reject_state(value))
        elif name == TASK_ACKS and _is_true(value):
            shown = {"assign": "acks_late = True", "keyword": "acks_late=True",
                     "key": '"acks_late": True'}[form]
            anchor = node if form == "assign" else value
            place.acks.append(AcksSetting(node, f"`{shown}`", TASK_REJECT, form, anchor=anchor))

    # -- classes ----------------------------------------------------------

    def klass(self, node: cst.ClassDef, app: _Place) -> None:
        for decorator in node.decorators:
            if isinstance(decorator.decorator, cst.Call):
                self.calls(decorator.decorator, app)
        bases = [dotted_name(base.value) for base in node.bases if base.keyword is None]
        local_bases = [self.class_places[b] for b in bases if b in self.class_places]
        inherited = [self.class_is_task[b] for b in bases if b is not None and b in self.class_is_task]
        is_task = _Answer(node, inherited, self.classes, self.resolver)
        name = node.name.value
        # What imported bases set matters only to a class of this module
        # that sets late acks itself; asking would load their modules.
        inherited_options = self.imported_bases_options(node) if self.classes_set_late_acks else None
        imported = self.inherited_place({}, inherited_options)
        place = self.place(*local_bases, *imported, app, subject=f" in class `{name}`")
        self.class_places[name] = place
        self.class_is_task[name] = is_task
        self.class_body(node.body.body, place, app, is_task)

    def imported_bases_options(self, node: cst.ClassDef) -> Optional[ClassOptions]:
        """What the class's bases imported from other project modules set."""
        found: Dict[str, Inherited] = {}
        for base in node.bases:
            spelled = dotted_name(base.value) or ""
            if base.keyword is not None or not self.resolver.is_imported(spelled.split(".")[0]):
                continue
            qualified = self.resolver.resolve(base.value)
            for option, given in (self.task_decorators.class_options(qualified or "") or {}).items():
                found.setdefault(option, given)
        return found

    def class_body(
        self, statements: Sequence[cst.CSTNode], place: _Place, app: _Place, is_task: _Answer
    ) -> None:
        for statement in statements:
            if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                for small in statement.body:
                    self.class_attribute(small, place, app, is_task)
            elif isinstance(statement, cst.BaseSmallStatement):  # class T(Task): acks_late = True
                self.class_attribute(statement, place, app, is_task)
            elif isinstance(statement, cst.FunctionDef):
                self.function(statement, app, module_level=False)
            elif isinstance(statement, cst.ClassDef):
                self.klass(statement, app)
            else:
                for block in _blocks(statement):
                    self.class_body(block, place, app, is_task)

    def class_attribute(
        self, small: cst.BaseSmallStatement, place: _Place, app: _Place, is_task: _Answer
    ) -> None:
        targets, value = _assignment(small)
        if value is None:
            return
        for target in targets:
            if not isinstance(target, cst.Name):
                continue
            name = target.value
            if name in CONFIG_ACKS or name in CONFIG_REJECT:
                self.config_setting(place, name, value, small, "assign")
            elif name == TASK_REJECT:
                # Any class: a mixin may carry it into a Task subclass.
                self.task_setting(place, name, value, small, "assign")
            elif name == TASK_ACKS and is_task():
                self.task_setting(place, name, value, small, "assign")
        self.calls(value, app)


def _blocks(statement: cst.CSTNode) -> Iterator[Sequence[cst.CSTNode]]:
    """The nested blocks of a compound statement (if/elif/else, try, with, for...)."""
    suites: List[Union[cst.BaseSuite, cst.CSTNode]] = []
    body = getattr(statement, "body", None)
    if isinstance(body, cst.BaseSuite):
        suites.append(body)
    for handler in getattr(statement, "handlers", ()):
        suites.append(handler.body)
    for case in getattr(statement, "cases", ()):
        suites.append(case.body)
    for name in ("orelse", "finalbody"):
        extra = getattr(statement, name, None)
        if isinstance(extra, cst.If):
            yield [extra]
        elif extra is not None and isinstance(getattr(extra, "body", None), cst.BaseSuite):
            suites.append(extra.body)
    for suite in suites:
        if isinstance(suite, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            yield suite.body


@dataclass(frozen=True)
class LateAcks:
    """Late acks turned on in a place that does not turn reject on: the
    setting, how a message places it (``subject``: " on task `f`", " in class
    `T`"; ``scope``: " in this module"), whether the place turns reject off
    (``reject`` is OFF) or leaves it to Celery's default (UNSET), and
    whether a reject setting is written there at all."""

    setting: AcksSetting
    subject: str
    scope: str
    reject: str
    reject_written: bool
    app_wide: bool
    covers: Tuple[cst.FunctionDef, ...] = ()
    binding: Optional[str] = None
    own_schedule: bool = False


def late_acks_without_reject(module: cst.Module, index: ModuleIndex, task_decorators: Decorators) -> Iterator[LateAcks]:
    """Each late-acks setting of ``module`` whose place (or what it inherits)
    does not turn ``reject_on_worker_lost`` on, except in a place that runs
    its tasks in the worker process (``worker_pool = "threads"``)."""
    walker = _Walker(index, task_decorators)
    app = walker.place(scope=" in this module")
    walker.scope(module.body, app, module_level=True)
    for place in walker.places:
        if not place.acks or place.pool in catalog.IN_PROCESS_POOLS:
            continue
        state = place.resolved()
        if state == ON:
            continue
        for acks in place.acks:
            yield LateAcks(
                acks, place.subject, place.scope, state, place.reject_written, place is app,
                place.covers, place.binding, place.own_schedule,
            )


def copied_by_in_process_workers(acks: AcksSetting, context: "ModuleContext") -> bool:
    """A shared configuration module whose setting every worker configuration
    that copies it (``task_acks_late = base.task_acks_late``) runs with a pool
    in the worker process (``worker_pool = "threads"``): no child process to
    lose, so nothing for ``reject_on_worker_lost`` to govern."""
    if context.pools_copying is None or not acks.setting or not context.module:
        return False
    pools = context.pools_copying(context.module, acks.setting)
    return bool(pools) and all(pool in catalog.IN_PROCESS_POOLS for pool in pools)
