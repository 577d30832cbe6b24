"""What an expression denotes: abstract values, and the evaluator that gives them.

A value is one of

- :class:`ProjectValue`: a function, class, instance, module or model manager of
  the project (what :class:`idemlint.semantic.resolution.Calls` resolves);
- :class:`Library`: an object from outside the project (a library's
  function, class or module, an instance of a library class, what a
  library call returned), named as the catalogue names it
  (``requests.Session().post``);
- :class:`Builtin`: an object of a builtin type (a literal, a container
  the code built, a ``**kwargs`` dict);
- :class:`OneOf`: one of several (a name bound on both branches of an
  ``if``, ``a or b``);
- :class:`Unknown`: what the analysis cannot tell, with the reason.  Unknown
  is a value, never a guess: an unannotated parameter no walked caller
  fills, an element taken out of a container, what a library call that
  loads code by name (``import_string``, ``getattr``) returned.

Bindings flow in from where the code makes them: a walked function's
assignments so far and the arguments its callers passed
(:class:`idemlint.semantic.trace.FunctionScope`), a parameter's annotation, a
function's every ``return``, what a class assigns its attributes (in its
body and as ``self.x`` in its methods), a library base's inherited
members, and module-level names.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from idemlint import catalog
from idemlint.names import descendants, dotted_name, import_bindings
from idemlint.semantic.registries import AppLabels, NamedRegistrations, Registration, is_named_lookup
from idemlint.semantic.resolution import (
    Definition, Instance, ProjectClass, Rows, Statements, assigned_in, blocks, imports_in, in_classmethod,
    is_classmethod, is_self,
    is_staticmethod, local_assignments,
    returned_values, string_annotation, union_members,
)

if TYPE_CHECKING:
    from idemlint.semantic.trace import FunctionScope
    from idemlint.semantic.resolution import Calls
    from idemlint.project import LoadedModule


@dataclass(frozen=True)
class Unknown:
    """Nothing the analysis can tell; ``why`` says where it stopped."""

    why: str


@dataclass(frozen=True)
class Builtin:
    """An object of a builtin type: ``kind`` names it (``str``, ``dict``),
    empty when only "some builtin container" is known, ``json`` for a
    decoded JSON value (:data:`idemlint.catalog.JSON_VALUE`: its elements and
    what its methods return are builtins too); ``text`` is a string's own
    text, when the code spells it out (a literal, a constant bound to one)."""

    kind: str
    text: Optional[str] = None


@dataclass(frozen=True)
class Library:
    """An object from outside the project, by the dotted name it is made
    from (``requests.Session()``, ``logging.getLogger().info``); for an HTTP
    client made with a base URL (:data:`idemlint.catalog.HTTP_BASE_URL_CLIENTS`),
    that URL's text, when the code spells it out."""

    name: str
    base_url: Optional[str] = None


@dataclass(frozen=True)
class ProjectValue:
    """A value of the project, as :class:`idemlint.semantic.resolution.Calls` resolves it."""

    value: Union["LoadedModule", ProjectClass, Instance, Definition, Rows]


@dataclass(frozen=True)
class OneOf:
    """One of several values, each a possibility the code leaves open."""

    members: Tuple["Value", ...]


Value = Union[Unknown, Builtin, Library, ProjectValue, OneOf]

NONE = Builtin("NoneType")
# What a value being evaluated is, asked again inside its own evaluation
# (``statement = statement.where(...)``, a function returning its own
# call): nothing yet.  In a union it adds nothing (the least fixpoint of
# the bindings); alone it is unknown.
CYCLE = Unknown("a value that refers to itself")
_BUILTIN_NAMES: FrozenSet[str] = frozenset(dir(builtins))
# What every object has (``super().__init__()`` on a class with no other base).
_OBJECT_MEMBERS: FrozenSet[str] = frozenset(dir(object))
# How many evaluations may nest (a name's value's name's value...): past it
# the answer is unknown, which also ends names that refer to each other.
MAX_DEPTH = 48
# At most this many possibilities are kept; more is as good as unknown.
MAX_MEMBERS = 8


def possibilities(value: Value) -> Tuple[Value, ...]:
    """Each value ``value`` may be: a union's members, else itself."""
    return value.members if isinstance(value, OneOf) else (value,)


def outside_project(value: Value) -> bool:
    """Whether a value is known to be no project code's (a library's or a
    builtin's object), every possibility of it."""
    if isinstance(value, OneOf):
        return all(outside_project(member) for member in value.members)
    return isinstance(value, (Library, Builtin))


def runs_library_code(value: Value) -> bool:
    """Whether calling a value runs a library's code: a library's function,
    class or method, or a builtin's; not an object a library call handed
    back (a plugin it loaded, a callback it was given), which may be anyone's."""
    if isinstance(value, OneOf):
        # ``None`` on some paths: the call runs (or fails) on the others.
        members = [member for member in value.members if member != NONE] or [NONE]
        return all(runs_library_code(member) for member in members)
    return isinstance(value, Library) and not value.name.endswith("()")


def one_of(values: Iterable[Value]) -> Value:
    """The union of ``values``: one value when they agree, unknown when
    there are none or too many."""
    found: List[Value] = []
    for value in values:
        for member in possibilities(value):
            if member not in found:
                found.append(member)
    if len(found) > 1 and CYCLE in found:
        found.remove(CYCLE)
    if not found:
        return Unknown("bound to nothing the analysis sees")
    if len(found) == 1:
        return found[0]
    if len(found) > MAX_MEMBERS and any(isinstance(m, Builtin) and m.text is not None for m in found):
        # Many strings are a string still, whichever its text.
        return one_of(Builtin(m.kind) if isinstance(m, Builtin) else m for m in found)
    if len(found) > MAX_MEMBERS:
        return Unknown("bound to too many values")
    return OneOf(tuple(found))


# -- environments: where a name's bindings come from ------------------------


class Environment:
    """Where an expression is written: the bindings its names see.
    ``stable``: they do not change while the evaluator lives."""

    module: "LoadedModule"
    stable = True

    def identity(self) -> Tuple[object, ...]:
        """Which environment this is, for remembering answers."""
        raise NotImplementedError

    def local(self, name: str, values: "Values") -> Optional[Value]:
        """What ``name`` is bound to here, or None when it is not a local."""
        raise NotImplementedError

    def project_value(self, expression: cst.BaseExpression, calls: "Calls") -> Optional[Value]:
        """The project value ``expression`` resolves to, if any."""
        raise NotImplementedError

    def method_frame(self) -> Optional[Tuple[ProjectClass, Optional[Tuple[int, str]]]]:
        """In a method: the class of the instance it runs for, and the key
        of the class whose body defines it (what ``super()`` starts after)."""
        return None


class ModuleLevel(Environment):
    """Module scope: a module's constants, imports and definitions."""

    def __init__(self, module: "LoadedModule") -> None:
        self.module = module

    def identity(self) -> Tuple[object, ...]:
        return ("module", id(self.module))

    def local(self, name: str, values: "Values") -> Optional[Value]:
        return None

    def project_value(self, expression: cst.BaseExpression, calls: "Calls") -> Optional[Value]:
        found = calls.module_value(expression, self.module)
        return ProjectValue(found) if found is not None else None


class Walked(Environment):
    """A function scope a trace walks: the values assigned so far on the
    walk, the arguments its walked callers passed, its annotations."""

    stable = False  # the walk binds more as it goes

    def __init__(self, scope: "FunctionScope") -> None:
        self.scope = scope
        self.module = scope.module

    def identity(self) -> Tuple[object, ...]:
        return ("walked", id(self.scope))

    def local(self, name: str, values: "Values") -> Optional[Value]:
        if self.scope.instance is not None and is_self(self.scope, name):
            return ProjectValue(self.scope.instance if in_classmethod(self.scope) else Instance(self.scope.instance))
        scope: Optional["FunctionScope"] = self.scope
        while scope is not None:
            if name in scope.values or name in scope.entered or name in scope.iterated:
                here = Walked(scope)
                assigned = [values.denote(value, here) for value in scope.values.get(name, ())]
                entered = [values.entered(manager, here) for manager in scope.entered.get(name, ())]
                elements = [values.element(values.denote(over, here), depth) for over, depth in scope.iterated.get(name, ())]
                # A parameter reassigned on some path still holds what was
                # passed on the others; one the function's own body assigned
                # again holds it only in the value that replaced it
                # (``payload = json.loads(payload)``).
                replacing = scope.replaced.get(name)
                passed = (
                    [self._parameter(scope, name, values)]
                    if name in scope.parameters and (replacing is None or values.evaluating(replacing, here))
                    else []
                )
                found = one_of(assigned + entered + elements + passed)
                # Decoded JSON the function stores into (``data["job"] = Job()``,
                # ``items.append(job)``) may hold anything now.
                return values.unless_stored_into(found, scope.function, name)
            if name in scope.parameters:
                return self._parameter(scope, name, values)
            imported = values.imported_in(scope).get(name)
            if imported is not None:
                return values.imported(imported)
            if name in scope.assigned:
                return Unknown("bound in a way the analysis does not follow")
            scope = scope.enclosing
        return None

    def _parameter(self, scope: "FunctionScope", name: str, values: "Values") -> Value:
        """What the walked calls pass (or leave at the default) when each of
        those is known and one is more than ``None``: on these paths that is
        all it holds, more exactly than its annotation (``key: str | None =
        None`` given a string); else the annotation (a ``session: Session``
        some call passes ``None``), holding ``None`` only where a walked call
        passes it or leaves it as the default (``Optional[str]`` given what
        the analysis cannot tell is given the benefit of the doubt); else
        what is passed."""
        passed = [values.denote(value, Walked(caller)) for value, caller in scope.arguments.get(name, ())]
        if name in scope.defaults_left:
            passed.append(values.denote(scope.defaults_left[name], ModuleLevel(scope.module)))
        members = [member for value in passed for member in possibilities(value)]
        if any(member != NONE for member in members) and not any(isinstance(member, Unknown) for member in members):
            return one_of(passed)
        declared = values.parameter(scope.function, name, scope.module)
        if declared is not None:
            if NONE in members:
                return declared
            others = [member for member in possibilities(declared) if member != NONE]
            return one_of(others) if others else declared
        if passed:
            return one_of(passed)
        return Unknown("a parameter no walked call fills")

    def project_value(self, expression: cst.BaseExpression, calls: "Calls") -> Optional[Value]:
        found = calls.value_of(expression, self.scope)
        return ProjectValue(found) if found is not None else None

    def method_frame(self) -> Optional[Tuple[ProjectClass, Optional[Tuple[int, str]]]]:
        outermost = self.scope
        while outermost.enclosing is not None:
            outermost = outermost.enclosing
        if self.scope.instance is None or outermost.owner is None:
            return None
        return self.scope.instance, (id(outermost.module), outermost.owner.name.value)


class Defined(Environment):
    """A function's body read whole, outside any walk (a factory's
    ``return``, a method assigning ``self.x``): its local assignments and
    its parameters' annotations."""

    def __init__(
        self,
        function: cst.FunctionDef,
        module: "LoadedModule",
        instance: Optional[ProjectClass] = None,
        owner: Optional[cst.ClassDef] = None,
    ) -> None:
        self.function = function
        self.module = module
        self.instance = instance
        self.owner = owner
        self._assignments: Optional[Dict[str, List[cst.BaseExpression]]] = None
        self._all_bound: Optional[FrozenSet[str]] = None

    def identity(self) -> Tuple[object, ...]:
        instance = self.instance.key if self.instance is not None else None
        return ("defined", id(self.function), instance, id(self.owner))

    def local(self, name: str, values: "Values") -> Optional[Value]:
        if self.instance is not None and name == _receiver_name(self.function):
            return ProjectValue(self.instance if is_classmethod(self.function) else Instance(self.instance))
        if name in _parameter_names(self.function):
            declared = values.parameter(self.function, name, self.module)
            return declared if declared is not None else Unknown("a parameter")
        assigned = self._assigned().get(name)
        if assigned is None:
            imported = values.imported_by(self.function, self.module.index.package).get(name)
            if imported is not None:  # ``from google.cloud import bigquery`` in the body
                return values.imported(imported)
            if name in self._bound():
                return Unknown("bound in a way the analysis does not follow")  # for, with, except
            return None
        return one_of(values.denote(value, self) for value in assigned)

    def method_frame(self) -> Optional[Tuple[ProjectClass, Optional[Tuple[int, str]]]]:
        if self.instance is None or self.owner is None:
            return None
        return self.instance, (id(self.module), self.owner.name.value)

    def _bound(self) -> FrozenSet[str]:
        """Every name the function's body binds, however."""
        if self._all_bound is None:
            self._all_bound = assigned_in(self.function)
        return self._all_bound

    def _assigned(self) -> Dict[str, List[cst.BaseExpression]]:
        if self._assignments is None:
            self._assignments = local_assignments(self.function.body.body)
        return self._assignments

    def project_value(self, expression: cst.BaseExpression, calls: "Calls") -> Optional[Value]:
        head = expression
        while isinstance(head, cst.Attribute):
            head = head.value
        if isinstance(head, cst.Name) and (
            head.value in _parameter_names(self.function) or head.value in self._bound()
        ):
            return None  # a local: the module's binding of the name is hidden
        found = calls.module_value(expression, self.module)
        return ProjectValue(found) if found is not None else None


# -- the evaluator -----------------------------------------------------------


class Values:
    """The evaluator: what an expression written in an environment denotes."""

    def __init__(self, calls: "Calls") -> None:
        self.calls = calls
        self._depth = 0
        self._evaluating: Set[Tuple[int, Tuple[object, ...]]] = set()
        self._function_imports: Dict[int, Dict[str, str]] = {}
        self._answers: Dict[Tuple[int, Tuple[object, ...]], Tuple[cst.BaseExpression, Value]] = {}
        self._asked: Dict[Tuple[int, Tuple[object, ...]], Tuple[cst.BaseExpression, Value]] = {}
        self._cycles = 0
        self._returns: Dict[Tuple[int, Optional[Tuple[int, str]], bool], Value] = {}
        self._apps = AppLabels(calls)
        self._named = NamedRegistrations(calls)
        # Per function (kept with it: an id is a node's only while it lives).
        self._stores: Dict[int, Tuple[cst.FunctionDef, FrozenSet[str]]] = {}

    def unless_stored_into(self, value: Value, function: cst.FunctionDef, name: str) -> Value:
        """``value``, with decoded JSON made "some builtin" when ``function``
        stores into what ``name`` holds (an item, an attribute, a mutating
        method): what is stored may be any object."""
        json = Builtin(catalog.JSON_VALUE)
        if json not in possibilities(value) or name not in self._stored_into(function):
            return value
        return one_of(Builtin("") if member == json else member for member in possibilities(value))

    def _stored_into(self, function: cst.FunctionDef) -> FrozenSet[str]:
        """The names whose item or attribute ``function`` assigns or deletes,
        or on which it calls a method that adds to a container."""
        key = id(function)
        if key not in self._stores:
            found: Set[str] = set()
            for node in descendants(function.body):
                targets: List[cst.BaseExpression] = []
                if isinstance(node, cst.AssignTarget):
                    targets.append(node.target)
                elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
                    targets.append(node.target)
                elif isinstance(node, cst.Del):
                    targets.append(node.target)
                elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                    if node.func.attr.value in catalog.CONTAINER_ADDS:
                        found.update(_base_names(node.func.value))
                for target in targets:
                    if isinstance(target, (cst.Subscript, cst.Attribute)):
                        found.update(_base_names(target.value))
            self._stores[key] = (function, frozenset(found))
        return self._stores[key][1]

    def evaluating(self, expression: cst.BaseExpression, where: Environment) -> bool:
        """Whether the question being answered is inside what ``expression`` denotes in ``where``."""
        return (id(expression), where.identity()) in self._evaluating

    def denote(self, expression: cst.BaseExpression, where: Environment) -> Value:
        """What ``expression`` written in ``where`` denotes.  Answers are
        remembered for the question being asked (a walk's bindings grow
        between questions) and, when no cycle cut them short, for as long
        as this evaluator lives where the bindings cannot change (module
        level, a function read whole): a name reached through many paths
        costs one evaluation."""
        key = (id(expression), where.identity())
        known = self._answers.get(key)
        if known is None and self._depth > 0:
            known = self._asked.get(key)
        if known is not None:
            return known[1]
        if key in self._evaluating:
            self._cycles += 1
            return CYCLE
        if self._depth >= MAX_DEPTH:
            self._cycles += 1  # cut short: not an answer to keep
            return Unknown("too deep a chain of bindings")
        if self._depth == 0:
            self._asked = {}
        self._depth += 1
        self._evaluating.add(key)
        cycles = self._cycles
        try:
            value = self._denote(expression, where)
        finally:
            self._depth -= 1
            self._evaluating.discard(key)
        # The node is kept with its answer: an id is a node's only while it
        # lives.  Within one question an answer a cycle cut short stands
        # (one pass, as a least fixpoint is approximated); across questions
        # only a complete one.
        self._asked[key] = (expression, value)
        if where.stable and self._cycles == cycles:
            self._answers[key] = (expression, value)
        return value

    def _denote(self, expression: cst.BaseExpression, where: Environment) -> Value:
        literal = _literal_kind(expression)
        if literal is not None:
            return Builtin(literal, _literal_text(expression))
        if isinstance(expression, (cst.Name, cst.Attribute)):
            found = where.project_value(expression, self.calls)
            if found is not None:
                return found
        if isinstance(expression, cst.Name):
            return self._name(expression.value, where)
        if isinstance(expression, cst.Attribute):
            inherited = self._super_attribute(expression, where)
            if inherited is not None:
                return inherited
            return self.attribute(self.denote(expression.value, where), expression.attr.value)
        if isinstance(expression, cst.Call):
            return self._call(expression, where)
        if isinstance(expression, cst.Await):
            return self.denote(expression.expression, where)
        if isinstance(expression, cst.NamedExpr):
            return self.denote(expression.value, where)
        if isinstance(expression, cst.IfExp):
            return one_of((self.denote(expression.body, where), self.denote(expression.orelse, where)))
        if isinstance(expression, cst.BooleanOperation):
            return one_of((self.denote(expression.left, where), self.denote(expression.right, where)))
        if isinstance(expression, (cst.BinaryOperation, cst.Comparison, cst.UnaryOperation)):
            return self._operation(expression, where)
        if isinstance(expression, cst.Subscript):
            container = self.denote(expression.value, where)
            if any(isinstance(item.slice, cst.Slice) for item in expression.slice):
                # ``rows[:10]`` is rows still, ``name[1:]`` a string; a
                # project object's slice is what its ``__getitem__`` makes.
                rows = isinstance(container, ProjectValue) and isinstance(container.value, Rows)
                return container if rows or isinstance(container, Builtin) else Unknown("a slice")
            return self.element(container)
        return Unknown(f"a {type(expression).__name__} expression")

    def texts(self, expression: cst.BaseExpression, where: Environment) -> Optional[Tuple[str, ...]]:
        """The texts a string expression may have, every path's; None when
        any path's is not spelled out."""
        value = self.denote(expression, where)
        members = possibilities(value)
        texts = [m.text for m in members if isinstance(m, Builtin) and m.text is not None]
        return tuple(texts) if len(texts) == len(members) else None

    # -- names ---------------------------------------------------------------

    def _name(self, name: str, where: Environment) -> Value:
        if name in ("True", "False"):
            return Builtin("bool")
        if name == "None":
            return NONE
        local = where.local(name, self)
        if local is not None:
            return local
        index = where.module.index
        if name in index.constants:
            module = ModuleLevel(where.module)
            bound = index.alternatives.get(name) or [index.constants[name]]
            return one_of(self.denote(value, module) for value in bound)
        imported = index.imports.get(name)
        if imported is not None:
            return self.imported(imported)
        if name in _BUILTIN_NAMES and name not in index.functions and name not in index.classes:
            return Library(f"builtins.{name}")
        return Unknown("a name bound nowhere the analysis sees")

    def parameter(self, function: cst.FunctionDef, name: str, module: "LoadedModule") -> Optional[Value]:
        """What a parameter's declaration says it holds: ``*args`` a tuple,
        ``**kwargs`` a dict, an annotation its type; None when it says nothing."""
        params = function.params
        if isinstance(params.star_arg, cst.Param) and params.star_arg.name.value == name:
            return Builtin("tuple")
        if params.star_kwarg is not None and params.star_kwarg.name.value == name:
            return Builtin("dict")
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.name.value == name and param.annotation is not None:
                return self._annotated(param.annotation.annotation, module)
        return None

    def _annotated(self, annotation: cst.BaseExpression, module: "LoadedModule") -> Optional[Value]:
        """What an annotation says a value is: each member of a union (``A | B``,
        ``Optional[A]``), a container for ``list[str]`` or ``Mapping[...]``."""
        if isinstance(annotation, cst.SimpleString):
            parsed = string_annotation(annotation)
            if parsed is None:
                return None
            annotation = parsed
        resolver = module.index.resolver()
        found: List[Value] = []
        for member in union_members(annotation, resolver):
            if isinstance(member, cst.SimpleString):  # ``Union["Order", "Refund"]``
                parsed = string_annotation(member)
                if parsed is None:
                    return None
                member = parsed
            typed = member.value if isinstance(member, cst.Subscript) else member
            spelled = resolver.resolve(typed)
            # ``"orders.Order"``, naming nothing the module binds: Django's
            # reference to a model by its app's label.
            model = self._lazy_model(typed, module) if spelled is None or spelled == dotted_name(typed) else None
            if model is not None:
                found.append(ProjectValue(Instance(model)))
            elif spelled is None:
                return None
            elif spelled == "None":
                found.append(NONE)
            elif spelled in catalog.BUILTIN_ANNOTATIONS or spelled in _BUILTIN_NAMES:
                found.append(Builtin(spelled.rpartition(".")[2].lower()))
            else:
                where = ModuleLevel(module)
                found.append(self.called(self.denote(typed, where), None, where))
        if isinstance(annotation, cst.Subscript) and resolver.resolve(annotation.value) in catalog.OPTIONAL_TYPES:
            found.append(NONE)  # ``Optional[X]`` is ``X | None``
        return one_of(found)

    # -- attributes, calls, operations -----------------------------------

    def attribute(self, value: Value, name: str) -> Value:
        """What ``value.name`` is."""
        if isinstance(value, OneOf):
            return one_of(self.attribute(member, name) for member in value.members)
        if isinstance(value, Library):
            return Library(f"{value.name}.{name}")
        if value == NONE:
            return NONE  # an attribute of None fails: nothing runs on that path
        if isinstance(value, Builtin) and value.text is not None and name == "value":
            # A string has no ``value``: the code runs only where it is a
            # member of a ``str`` enum, whose value is that text.
            return value
        if isinstance(value, Builtin):
            return Library(f"builtins.{value.kind or 'object'}.{name}")
        if isinstance(value, ProjectValue):
            return self._project_attribute(value, name)
        return value if isinstance(value, Unknown) else Unknown("an attribute of a value not known")

    def _project_attribute(self, value: ProjectValue, name: str) -> Value:
        """A member of a project class or instance that the project does not
        define as a method: what the class assigns it, else what a library
        base gives it."""
        target = value.value
        if isinstance(target, Rows):
            # Django's own query methods, as Calls reads them; a custom
            # manager's method is the project's, not known here.
            if not target.method and name in catalog.ORM_QUERYSET_METHODS | catalog.ORM_INSTANCE_METHODS:
                return ProjectValue(Rows(target.of, name))
            return Unknown("a method of a model manager that is not Django's")
        if not isinstance(target, (Instance, ProjectClass)):
            return Unknown(f"an attribute {name!r} the project does not define")
        klass = target.of if isinstance(target, Instance) else target
        method = self.calls.method(klass, name)
        if method is not None:
            return self._implemented(klass, method) if isinstance(target, Instance) else ProjectValue(method)
        assigned = self._class_assigned(klass, name, isinstance(target, Instance))
        if assigned is not None:
            return assigned  # ``objects = OrderManager()``: the project's own manager
        if isinstance(target, ProjectClass) and name in catalog.ORM_MANAGERS:
            return ProjectValue(Rows(target))  # ``Order.objects``, as Calls reads it
        base = self.calls.library_base(klass)
        if base is not None and base.partition(".")[0] in catalog.MIXIN_MODULES:
            base = None
        if base is not None and isinstance(target, Instance) and self.is_interface(klass):
            return Unknown(f"a member {name!r} the interface does not declare")
        if base is not None:
            made = "()" if isinstance(target, Instance) else ""
            return Library(f"{base}{made}.{name}")
        return Unknown(f"an attribute {name!r} the project does not define")

    def is_interface(self, klass: ProjectClass) -> bool:
        """Whether a class is an interface (zope.interface): its methods
        are declarations, run by the classes that implement it."""
        base = self.calls.library_base(klass)
        return base is not None and catalog.matches_any(catalog.INTERFACE_BASES, base)

    def _implemented(self, klass: ProjectClass, method: Definition) -> Value:
        """The method an instance of ``klass`` runs; of an interface, the
        method of each class declared to implement it, which the instance
        may be."""
        if not self.is_interface(klass):
            return ProjectValue(method)
        name = method.function.name.value
        found: List[Value] = []
        for implementation in self.calls.implementations(klass):
            own = self.calls.method(implementation, name)
            found.append(ProjectValue(own) if own is not None else Unknown(f"{implementation.name} lacks {name}"))
        return one_of(found) if found else Unknown("an interface nothing is declared to implement")

    def _class_assigned(self, klass: ProjectClass, name: str, instance: bool) -> Optional[Value]:
        """What the class (or a project base) assigns ``name``: the first
        class body along the method resolution order that does, and for an
        instance also every ``self.<name>`` any of their methods assigns."""
        found: List[Value] = []
        in_body = False
        for owner in self.calls.method_order(klass):
            assigned = self._assignments_of(owner, name)
            if not in_body:
                for value in assigned.in_body.get(name, ()):
                    found.append(self.denote(value, ModuleLevel(owner.module)))
                    in_body = True
            if instance:
                for method, value, defining in assigned.on_self.get(name, ()):
                    found.append(self.denote(value, Defined(method, owner.module, klass, defining)))
        return one_of(found) if found else None

    def _assignments_of(self, klass: ProjectClass, name: str) -> "ClassAssignments":
        """The statements of a class that assign ``name``, read once a run
        (kept by Calls).  Of a class libcst has not parsed, only those
        members are parsed (:meth:`idemlint.segments.Outline.parse_member`):
        most attributes asked are assigned nowhere, or in one method."""
        index = self.calls.class_assignments
        key = (klass.key, name)
        if key not in index:
            outline = klass.outline
            parsed: Optional[List[Optional[cst.ClassDef]]] = None
            if outline is not None and isinstance(outline.statement, ast.ClassDef):
                members = self.calls.assigning_members
                if klass.key not in members:
                    members[klass.key] = _members_by_name(outline.statement)
                parsed = [outline.parse_member(member) for member in members[klass.key].get(name, ())]
            if parsed is None or any(part is None for part in parsed):
                parsed = [klass.node]
            index[key] = ClassAssignments.of([part for part in parsed if part is not None])
        return index[key]

    def _super_attribute(self, expression: cst.Attribute, where: Environment) -> Optional[Value]:
        """``super().save``: the project method next in the method
        resolution order, else the library base's member (a builtin base's
        too: ``Exception``); None when the receiver is not ``super()`` in a
        method whose class is known."""
        receiver, name = expression.value, expression.attr.value
        if not (isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and receiver.func.value == "super"):
            return None
        frame = where.method_frame()
        if frame is None:
            return None
        instance, defining = frame
        if receiver.args and not _names_the_class(receiver, defining):
            return Unknown("super() from a class other than the one defining the method")
        found = self.calls.method_below(instance, name, defining)
        if found is not None:
            return ProjectValue(found)
        base = self.calls.library_base(instance)
        if base is not None and base.partition(".")[0] not in catalog.MIXIN_MODULES:
            return Library(f"{base}().{name}")
        if name in _OBJECT_MEMBERS or _builtin_base(instance, self.calls):
            return Library(f"builtins.object().{name}")
        return Unknown("a member no class along the method resolution order shows")

    def _call(self, call: cst.Call, where: Environment) -> Value:
        found = where.project_value(call, self.calls)
        if found is not None:
            return found
        return self.called(self.denote(call.func, where), call, where)

    def called(self, value: Value, call: Optional[cst.Call], where: Environment) -> Value:
        """What calling ``value`` returns."""
        if isinstance(value, OneOf):
            return one_of(self.called(member, call, where) for member in value.members)
        if isinstance(value, Library):
            return self._library_result(value.name, call, where)
        if isinstance(value, ProjectValue):
            target = value.value
            if isinstance(target, ProjectClass):
                return ProjectValue(Instance(target))
            if isinstance(target, Instance):
                # An object called: its class's ``__call__`` (a factory object).
                method = self.attribute(value, "__call__")
                if isinstance(method, ProjectValue) and isinstance(method.value, Definition):
                    return self.returned(method.value)
                return Unknown("what calling an object returns")
            if isinstance(target, Definition):
                returned = self.returned(target)
                if isinstance(returned, Unknown) and call is not None:
                    # ``container.get(Notifier)`` out of a table it fills at run time.
                    return self._looked_up(call, where) or returned
                return returned
            if isinstance(target, Rows) and target.method in catalog.ORM_QUERYSET_METHODS:
                return ProjectValue(Rows(target.of))
            if isinstance(target, Rows) and target.method in catalog.ORM_INSTANCE_METHODS:
                return ProjectValue(Instance(target.of))
        if isinstance(value, Unknown) and call is not None:
            return self._looked_up(call, where) or Unknown("what a call of a value not known returns")
        return Unknown("what a call of a value not known returns")

    def _looked_up(self, call: cst.Call, where: Environment, by_name: bool = True) -> Optional[Value]:
        """What a lookup by a project class gives (``find_service(IMailer)``,
        ``session.get(Order, pk)``, a container's ``get(Notifier)``): an
        instance of it, when one positional argument is a project class.
        Its members are the class's own; any other stays unknown.  With
        ``by_name``, a call given a ``name=`` alone is a lookup by name."""
        classes = []
        for arg in call.args:
            if arg.keyword is not None or arg.star or not isinstance(arg.value, (cst.Name, cst.Attribute)):
                continue
            # A class is named where the lookup is written (imported, or
            # the module's own): asked of the resolution alone, not evaluated.
            given = where.project_value(arg.value, self.calls)
            if isinstance(given, ProjectValue) and isinstance(given.value, ProjectClass):
                classes.append(given.value)
        if len(classes) == 1:
            return ProjectValue(Instance(classes[0]))
        return self._looked_up_by_name(call, where) if by_name and not classes else None

    def _looked_up_by_name(self, call: cst.Call, where: Environment) -> Optional[Value]:
        """What a lookup given only a literal ``name=`` gives
        (``find_service(name="aws.session")``): what the project registers
        under that name (:class:`NamedRegistrations`) with the same registry
        where both are known: what a registered factory returns, anything
        else as it is.  A name nothing registers, or anything else than a
        project function, class or instance registered, is not known."""
        if not is_named_lookup(call):
            return None
        named = next(arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "name")
        texts = self.texts(named, where)
        if texts is None or len(texts) != 1:
            return None
        receiver = self._registry_name(call.func.value, where) if isinstance(call.func, cst.Attribute) else None
        found: List[Value] = []
        for registration in self._named.under(texts[0], self._registered_name):
            there = self._written_in(registration)
            registry = self._registry_name(registration.receiver, there) if registration.receiver is not None else None
            if receiver is not None and registry is not None and registry != receiver:
                continue  # another registry's entry of the same name
            value = self.denote(registration.handed, there)
            target = value.value if isinstance(value, ProjectValue) else None
            if not isinstance(target, (Instance, ProjectClass, Definition)):
                return None
            found.append(self.called(value, None, there) if registration.factory else value)
        return one_of(found) if found else None

    def _registry_name(self, receiver: cst.BaseExpression, where: Environment) -> Optional[str]:
        """The dotted name of a registry a module binds (``backends.email``),
        as imported (in the function too) or bound at module level: two such
        names that differ are two registries.  None for anything else (a
        parameter such as Pyramid's ``config`` or ``request``)."""
        module: Optional["LoadedModule"] = getattr(where, "module", None)
        spelled = dotted_name(receiver)
        if module is None or spelled is None:
            return None
        head, _, rest = spelled.partition(".")
        local = self.imported_in(where.scope) if isinstance(where, Walked) else {}
        imported = local.get(head) or module.index.imports.get(head)
        if imported is not None:
            return ".".join(part for part in (imported, rest) if part)
        return f"{module.name}.{spelled}" if head in module.index.constants else None

    def _written_in(self, registration: Registration) -> Environment:
        """Where a registration's names are read: its function, else its module."""
        if registration.function is None:
            return ModuleLevel(registration.module)
        return Defined(registration.function, registration.module)

    def _registered_name(self, registration: Registration) -> Optional[Tuple[str, ...]]:
        return self.texts(registration.named, self._written_in(registration))

    def _lazy_model(self, spelled: cst.BaseExpression, module: "LoadedModule") -> Optional[ProjectClass]:
        """The project model ``"label.Model"`` names, as Django reads such a
        reference (a string annotation, a lazy relation), when the module
        binds nothing to ``label``, one project app has the label and its
        ``models`` binds the name to a class."""
        if not (isinstance(spelled, cst.Attribute) and isinstance(spelled.value, cst.Name)):
            return None
        index = module.index
        label = spelled.value.value
        if label in index.imports or label in index.constants or label in index.functions or label in index.classes:
            return None
        found = self._registered(spelled.value.value, spelled.attr.value)
        return found.value if found is not None and isinstance(found.value, ProjectClass) else None

    def _registered(self, label: str, model: str) -> Optional[ProjectValue]:
        """The class the ``models`` module of the app labelled ``label`` binds ``model`` to."""
        module_name = self._apps.models_module(label) if label and model.isidentifier() else None
        module = self.calls.project_module(module_name) if module_name is not None else None
        if module is None:
            return None
        found = self.denote(cst.Name(model), ModuleLevel(module))
        return found if isinstance(found, ProjectValue) and isinstance(found.value, ProjectClass) else None

    def _app_model(self, call: cst.Call, where: Environment) -> Optional[Value]:
        """The project model class ``apps.get_model(label, name)`` (or
        ``("label.name")``) returns, when the texts are spelled out and one
        project app has the label (:class:`idemlint.semantic.registries.AppLabels`)."""
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        named = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
        given = [
            positional[0] if positional else named.get("app_label"),
            positional[1] if len(positional) > 1 else named.get("model_name"),
        ]
        texts = [self.texts(node, where) if node is not None else None for node in given]
        spelled = [text[0] if text is not None and len(text) == 1 else None for text in texts]
        if spelled[0] is None or (given[1] is not None and spelled[1] is None):
            return None
        label, model = (spelled[0], spelled[1]) if spelled[1] is not None else spelled[0].partition(".")[::2]
        return self._registered(label, model)

    def _library_result(self, name: str, call: Optional[cst.Call], where: Environment) -> Value:
        if name in catalog.RETURNS_WHAT_IT_IS_GIVEN and call is not None and call.args:
            return self.denote(call.args[-1].value, where)
        if name in catalog.JSON_DECODERS:
            # A hook (``object_hook=Job.from_dict``) or a decoder class makes what it likes.
            hooked = call is not None and any(
                arg.star or (arg.keyword is not None and arg.keyword.value != "strict") for arg in call.args
            )
            return Unknown(f"what {name} returns through a hook") if hooked else Builtin(catalog.JSON_VALUE)
        if name in catalog.APP_MODEL_LOOKUPS:
            found = self._app_model(call, where) if call is not None else None
            return found or Unknown(f"what {name} returns")
        if name in catalog.LOADS_BY_NAME or name.endswith("()"):
            # Code loaded by name, or an object a library made being called
            # (a plugin's entry point, a callback): not the library's own.
            return Unknown(f"what {name} returns")
        builtin = name.partition("builtins.")[2] if name.startswith("builtins.") else None
        if builtin is not None:
            result = self._builtin_result(builtin)
            default = _default_given(builtin, call)
            if default is None or (result == Builtin(catalog.JSON_VALUE) and _is_json_literal(default)):
                return result
            # ``payload.get("handler", Handler())``: the default, where the key is missing.
            return one_of((result, self.denote(default, where)))
        looked_up = (
            self._looked_up(call, where, by_name=False)  # a library's own ``name=`` is no project registration
            if call is not None and not catalog.matches_any(catalog.BUILT_FROM_A_CLASS, name)
            else None
        )
        return looked_up or Library(f"{name}()", self._base_url(name, call, where))

    def _base_url(self, name: str, call: Optional[cst.Call], where: Environment) -> Optional[str]:
        """The ``base_url=`` an HTTP client is made with, when it has one text."""
        if call is None or name not in catalog.HTTP_BASE_URL_CLIENTS:
            return None
        given = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "base_url"), None)
        texts = self.texts(given, where) if given is not None else None
        return texts[0] if texts is not None and len(set(texts)) == 1 else None

    def _builtin_result(self, name: str) -> Value:
        """``str(x)`` is a str; ``", ".join(x)`` too; ``d.get(k)`` an element."""
        head, _, method = name.partition(".")
        if head == catalog.JSON_VALUE:
            return Builtin(catalog.JSON_VALUE)  # a decoded value's parts, views and copies
        if not method:
            kind = catalog.BUILTIN_RESULTS.get(head)
            return Builtin(kind) if kind is not None else Unknown(f"what builtins.{head} returns")
        if head in catalog.SCALAR_TYPES:
            return Builtin("")  # a scalar's methods make scalars, strings or lists of them
        if method in catalog.CONTAINER_VIEWS:
            return Builtin("")
        return Unknown("an element of a container")

    def returned(self, definition: Definition, entering: bool = False) -> Value:
        """The union of what a project function's ``return`` statements give
        or, ``entering`` a generator (a ``@contextmanager``), what it yields."""
        instance = definition.instance.key if definition.instance is not None else None
        key = (id(definition.function), instance, entering)
        if key in self._returns:
            if self._returns[key] is CYCLE:
                self._cycles += 1  # asked inside its own evaluation
            return self._returns[key]
        self._returns[key] = CYCLE
        cycles = self._cycles
        where = Defined(definition.function, definition.module, definition.instance, definition.owner)
        body = definition.function.body.body
        given = list(yielded_values(body)) if entering else []
        given = given or list(returned_values(body))
        value = (
            one_of(self.denote(value, where) if value is not None else NONE for value in given)
            if given else NONE
        )
        returns = definition.function.returns
        if returns is not None and not entering and (not given or _holds_unknown(value)):
            # What the code cannot tell (or a body that only raises), its
            # annotation says; what it can tell stays (a subclass returned).
            annotated = self._annotated(returns.annotation, definition.module)
            if annotated is not None:
                members = possibilities(value)
                known = [m for m in members if not isinstance(m, Unknown)] if given else []
                value = one_of([*known, annotated])
        if self._cycles == cycles:
            self._returns[key] = value  # complete: the same whoever asks first
        else:
            del self._returns[key]
        return value

    def entered(self, manager: cst.BaseExpression, where: Environment) -> Value:
        """What ``with manager as name`` binds: what a project context
        manager function yields; a library's context manager's own object."""
        if isinstance(manager, cst.Call):
            function = self.denote(manager.func, where)
            if isinstance(function, ProjectValue) and isinstance(function.value, Definition):
                return self.returned(function.value, entering=True)
        made = self.denote(manager, where)
        if isinstance(made, Library):
            return Library(f"{made.name}.__enter__()", made.base_url)  # a client's ``__enter__`` returns itself
        return Unknown("what a context manager gives")

    def _operation(
        self, expression: Union[cst.BinaryOperation, cst.Comparison, cst.UnaryOperation], where: Environment
    ) -> Value:
        if isinstance(expression, cst.UnaryOperation):
            if isinstance(expression.operator, cst.Not):
                return Builtin("bool")
            operand = self.denote(expression.expression, where)
            return operand if outside_project(operand) else Unknown("an operator of a value not known")
        left = self.denote(expression.left, where)
        if isinstance(left, Library):
            return Library(f"{left.name}()")  # an operator a library object defines
        if isinstance(expression, cst.Comparison):
            return Builtin("bool") if isinstance(left, Builtin) else Unknown("a comparison a class may define")
        if left == Builtin(catalog.JSON_VALUE) and self.denote(expression.right, where) != left:
            return Builtin("")  # ``payload | {"job": Job()}``: no longer decoded JSON alone
        return Builtin(left.kind) if isinstance(left, Builtin) else Unknown("an operator a class may define")

    @staticmethod
    def element(container: Value, depth: int = 0) -> Value:
        """What iterating or indexing ``container`` gives: a character of a
        string, a part of a decoded JSON value, a model instance of a
        query's rows; else unknown (a container may hold anything, the
        project's functions too).  ``depth`` more levels: an element of the
        element (a name a ``for`` target unpacks)."""
        if depth > 0:
            return Values.element(Values.element(container), depth - 1)
        if isinstance(container, OneOf):
            return one_of(Values.element(member) for member in container.members)
        if isinstance(container, Builtin) and container.kind in ("str", "bytes", catalog.JSON_VALUE):
            return container
        if isinstance(container, ProjectValue) and isinstance(container.value, Rows) and not container.value.method:
            return ProjectValue(Instance(container.value.of))
        return Unknown("an element of a container")

    def imported_in(self, scope: "FunctionScope") -> Dict[str, str]:
        """The names the ``import`` statements of a function bind."""
        return self.imported_by(scope.function, scope.index.package)

    def imported_by(self, function: cst.FunctionDef, package: Optional[str]) -> Dict[str, str]:
        """The names the ``import`` statements of ``function`` bind (in ``package``)."""
        key = id(function)
        if key not in self._function_imports:
            bound: Dict[str, str] = {}
            for statement in imports_in(function.body.body):
                bound.update(import_bindings(statement, package))
            self._function_imports[key] = bound
        return self._function_imports[key]

    def imported(self, dotted: str) -> Value:
        """What an imported dotted name is: a library's, or what the project
        module it names binds the name to (a constant, a re-export)."""
        project = self.calls.project
        if project is None:
            return Library(dotted)
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module_name = ".".join(parts[:cut])
            if module_name not in project.files:
                continue
            module = self.calls.project_module(module_name)
            if module is None:
                break
            value = self.denote(cst.Name(parts[cut]), ModuleLevel(module))
            for attribute in parts[cut + 1 :]:
                value = self.attribute(value, attribute)
            return value
        if parts[0] in project.files:
            return Unknown("a project module")
        return Library(dotted)



def _base_names(node: cst.BaseExpression) -> Iterator[str]:
    """The name an item or attribute chain starts at (``data`` of ``data["a"].b``)."""
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        node = node.value
    if isinstance(node, cst.Name):
        yield node.value


def _default_given(method: str, call: Optional[cst.Call]) -> Optional[cst.BaseExpression]:
    """The default a container's ``get``, ``pop`` or ``setdefault`` is
    given (its second argument), which it returns when the key is missing."""
    if call is None or method.rpartition(".")[2] not in catalog.METHODS_WITH_A_DEFAULT:
        return None
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    return positional[1] if len(positional) > 1 else None


def _is_json_literal(expression: cst.BaseExpression) -> bool:
    """A literal JSON could hold: a string, a number, ``True``, ``False``,
    ``None``, or a list, tuple or dict literal of such (``[]``, ``{}``)."""
    if isinstance(expression, (cst.SimpleString, cst.Integer, cst.Float)):
        return True
    if isinstance(expression, cst.Name):
        return expression.value in ("True", "False", "None")
    if isinstance(expression, (cst.List, cst.Tuple)):
        return all(
            isinstance(element, cst.Element) and _is_json_literal(element.value) for element in expression.elements
        )
    if isinstance(expression, cst.Dict):
        return all(
            isinstance(element, cst.DictElement) and _is_json_literal(element.key) and _is_json_literal(element.value)
            for element in expression.elements
        )
    return False


def _holds_unknown(value: Value) -> bool:
    return any(isinstance(member, Unknown) for member in possibilities(value))


def _literal_kind(expression: cst.BaseExpression) -> Optional[str]:
    return _LITERAL_KINDS.get(type(expression))


def _literal_text(expression: cst.BaseExpression) -> Optional[str]:
    """The text of a string literal (not of bytes, not of an f-string)."""
    if isinstance(expression, cst.SimpleString) and "b" not in expression.prefix.lower():
        evaluated = expression.evaluated_value
        return evaluated if isinstance(evaluated, str) else None
    if isinstance(expression, cst.ConcatenatedString):
        left, right = _literal_text(expression.left), _literal_text(expression.right)
        return left + right if left is not None and right is not None else None
    return None


_LITERAL_KINDS: Dict[type, str] = {
    cst.SimpleString: "str", cst.ConcatenatedString: "str", cst.FormattedString: "str",
    cst.Integer: "int", cst.Float: "float", cst.Imaginary: "complex",
    cst.List: "list", cst.ListComp: "list", cst.Tuple: "tuple", cst.Dict: "dict", cst.DictComp: "dict",
    cst.Set: "set", cst.SetComp: "set", cst.GeneratorExp: "generator",
}


def _parameter_names(function: cst.FunctionDef) -> FrozenSet[str]:
    params = function.params
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    return frozenset(names)


def _names_the_class(call: cst.Call, defining: Optional[Tuple[int, str]]) -> bool:
    """Whether ``super(Cls, self)`` names the class defining the method."""
    first = call.args[0].value
    return defining is not None and isinstance(first, cst.Name) and first.value == defining[1]


def _builtin_base(klass: ProjectClass, calls: "Calls") -> bool:
    """Whether a class or a project base names a builtin class among its
    bases (``Exception``, ``dict``)."""
    return any(
        isinstance(base.value, cst.Name) and base.value.value in _BUILTIN_NAMES
        for owner in calls.method_order(klass)
        for base in owner.node.bases
    )


def _receiver_name(function: cst.FunctionDef) -> Optional[str]:
    """The parameter a method's instance (or class) is passed in."""
    params = function.params
    first = [*params.posonly_params, *params.params][:1]
    return first[0].name.value if first and not is_staticmethod(function) else None


@dataclass(frozen=True)
class ClassAssignments:
    """What a class body assigns each name (``x = Column()``,
    ``x: Mapped[int] = mapped_column()``), and what its methods assign
    ``self.<name>``, in any block, with the method and the class (as
    parsed) defining it."""

    in_body: Dict[str, List[cst.BaseExpression]]
    on_self: Dict[str, List[Tuple[cst.FunctionDef, cst.BaseExpression, cst.ClassDef]]]

    @classmethod
    def of(cls, parts: Sequence[cst.ClassDef]) -> "ClassAssignments":
        """Of a class parsed whole, or of the members of it parsed alone."""
        in_body: Dict[str, List[cst.BaseExpression]] = {}
        on_self: Dict[str, List[Tuple[cst.FunctionDef, cst.BaseExpression, cst.ClassDef]]] = {}
        for part in parts:
            for statement in part.body.body:
                if isinstance(statement, cst.SimpleStatementLine):
                    for small in statement.body:
                        for target, value in _assignments(small):
                            if isinstance(target, cst.Name):
                                in_body.setdefault(target.value, []).append(value)
                elif isinstance(statement, cst.FunctionDef):
                    receiver = _receiver_name(statement)
                    if receiver is not None:
                        for name, value in _assigned_attributes(statement.body.body, receiver):
                            on_self.setdefault(name, []).append((statement, value, part))
        return cls(in_body, on_self)


def _members_by_name(klass: ast.ClassDef) -> Dict[str, List[ast.stmt]]:
    """The statements of a class body that assign each name."""
    found: Dict[str, List[ast.stmt]] = {}
    for member in klass.body:
        for name in _statement_names(member):
            found.setdefault(name, []).append(member)
    return found


def _statement_names(statement: ast.stmt) -> FrozenSet[str]:
    """The names a class body statement assigns, read from CPython's
    statement: its targets, or a method's ``self.<name>`` targets."""
    names: Set[str] = set()
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        names.update(target.id for target in targets if isinstance(target, ast.Name))
    elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = [*statement.args.posonlyargs, *statement.args.args]
        receiver = arguments[0].arg if arguments else None
        for node in ast.walk(statement):
            if receiver is not None and isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(
                    target.attr for target in targets
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    and target.value.id == receiver
                )
    return frozenset(names)


def _assigned_attributes(statements: Statements, receiver: str) -> Iterator[Tuple[str, cst.BaseExpression]]:
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                for target, value in _assignments(small):
                    if (
                        isinstance(target, cst.Attribute)
                        and isinstance(target.value, cst.Name)
                        and target.value.value == receiver
                    ):
                        yield target.attr.value, value
        elif isinstance(statement, cst.BaseCompoundStatement):
            for block in blocks(statement):
                yield from _assigned_attributes(block, receiver)


def _assignments(small: cst.BaseSmallStatement) -> List[Tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(target, value) of a plain or annotated assignment."""
    if isinstance(small, cst.Assign):
        return [(target.target, small.value) for target in small.targets]
    if isinstance(small, cst.AnnAssign) and small.value is not None:
        return [(small.target, small.value)]
    return []


def yielded_values(statements: Statements) -> Iterator[Optional[cst.BaseExpression]]:
    """What each ``yield`` statement of a body gives (not ``yield from``)."""
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Expr) and isinstance(small.value, cst.Yield):
                    given = small.value.value
                    if not isinstance(given, cst.From):
                        yield given
        elif isinstance(statement, cst.BaseCompoundStatement):
            for block in blocks(statement):
                yield from yielded_values(block)
