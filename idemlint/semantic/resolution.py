"""Call resolution: which project definition a call in a task runs.

The trace builder asks :meth:`Calls.resolve` about every call it walks, and
follows the answer.  A call is resolved the way Python would run it, from
what the code itself says (no types are inferred):

- a function defined in the body of the function making the call, or of
  one enclosing it (a closure), whatever its decorators;
- a function of the module, or of another project module through imports
  and re-exports;
- a method, through what its receiver is: ``self`` / ``cls`` (the class the
  method runs for, so an inherited method that calls ``self.m()`` reaches
  the subclass's ``m``), ``super()``, an instance the code makes
  (``Notifier(...)``, kept in a local variable or in ``self.x`` anywhere in
  the class), a module-level instance (``client = ApiClient()``, imported
  from another module), or the instance a project factory function returns
  (every ``return`` makes the same project class, or the return annotation
  names one);
- a ``classmethod`` through its class;
- a method of a model instance fetched through Django's ORM
  (``Order.objects.get(...)``, ``.filter(...).first()``,
  ``.select_for_update().get(...)``, ``get_object_or_404(Order, ...)``),
  the model's own.

A call whose callee is picked at run time from functions the code names
(a table's entry, a conditional alias) has several candidates:
:mod:`idemlint.semantic.dispatch` finds them with this module's resolution.

Methods are looked up along the class's method resolution order over
project classes; a method none of them defines is the first library
base's (``requests.Session().post``), named for the catalogue, never
followed.  Resolution
is a small walk over the dotted name :class:`idemlint.names.Resolver` gives
a call (``pkg.clients.client.send``, ``Notifier().send``): each part steps
from a module, a class, an instance or a function to the next.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING, AbstractSet, Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple, Union,
    cast,
)

import libcst as cst

from idemlint import catalog
from idemlint.names import Resolver, argument, descendants, dotted_name, import_bindings, literal_number, literal_text
from idemlint.segments import Outline
from idemlint.tasks import class_assignments

if TYPE_CHECKING:
    from idemlint.semantic.trace import FunctionScope
    from idemlint.project import LoadedModule, Project
    from idemlint.semantic.values import ClassAssignments

# How many names (re-exports, module-level instances, factories) one
# resolution may pass through: a cycle of imports ends here.
MAX_HOPS = 8
MAX_NESTING = 24
# How many calls a chain of factories (``a().b().c().m``) may make before
# the method it names.
MAX_CALL_CHAIN = 4
# Decorators that make a method an attribute read (``self.client.send()``
# runs what the ``client`` property returns).
PROPERTIES = ("property", "cached_property")


class ProjectClass:
    """A class of the project and the module defining it, by name: a class
    left unparsed (see idemlint.segments) is parsed only when a method or
    a base of it is asked for, not when a resolution merely passes it
    (``Form(...)``, ``Order.objects.filter(...)``)."""

    __slots__ = ("module", "name", "_node")

    def __init__(self, module: "LoadedModule", name: str, node: Optional[cst.ClassDef] = None) -> None:
        self.module = module
        self.name = name
        self._node = node

    @property
    def node(self) -> cst.ClassDef:
        if self._node is None:
            self._node = self.module.index.classes[self.name]
        return self._node

    @property
    def key(self) -> Tuple[int, str]:
        """Which class this is, known without parsing it."""
        return (id(self.module), self.name)

    @property
    def outline(self) -> Optional[Outline]:
        """The class's outline while libcst has not parsed it: what a
        question about its methods or bases reads first, so that a class is
        parsed only when it answers, and then only the method asked for."""
        if self._node is not None:
            return None
        found = self.module.index.classes.outline(self.name)
        return found if found is not None and isinstance(found.statement, ast.ClassDef) else None


@dataclass(frozen=True)
class Instance:
    """An instance of a project class (a step of a resolution)."""

    of: ProjectClass


@dataclass(frozen=True)
class Definition:
    """A project function a call runs.

    ``owner`` is the class defining it (for methods); ``instance`` the class
    of the object it runs for, which decides what ``self.m()`` inside runs;
    ``enclosing`` the scope a closure was defined in (its free names
    resolve there).
    """

    function: cst.FunctionDef
    owner: Optional[cst.ClassDef]
    module: "LoadedModule"
    instance: Optional[ProjectClass] = None
    enclosing: Optional["FunctionScope"] = None


@dataclass(frozen=True)
class Rows:
    """A manager or queryset of a project model, or (``method``) one of
    its methods not called yet."""

    of: ProjectClass
    method: str = ""


# What one step of a resolution has reached.
_Value = Union["LoadedModule", ProjectClass, Instance, Definition, Rows]


class Calls:
    """Resolves calls for the traces of one run; ``project`` is None when a
    file is linted alone (then only its own definitions are known)."""

    def __init__(self, project: Optional["Project"], effect_methods: Optional[catalog.Glob] = None) -> None:
        self.project = project
        # The method names worth asking a library base about (see inherited_library_method).
        self._effect_methods = effect_methods or catalog.method_names(catalog.EFFECT_PATTERNS)
        self._closures: Dict[int, Dict[str, cst.FunctionDef]] = {}
        # What one run learns about a class, by ProjectClass.key.
        self._method_names: Dict[Tuple[int, str], AbstractSet[str]] = {}
        self._methods: Dict[Tuple[int, str], Dict[str, cst.FunctionDef]] = {}
        self._members: Dict[Tuple[int, str, str], Optional[Definition]] = {}
        self._orders: Dict[Tuple[int, str], List[ProjectClass]] = {}
        self._assignments: Dict[Tuple[int, str], Dict[str, List[cst.BaseExpression]]] = {}
        self._library_bases: Dict[Tuple[int, str], Optional[str]] = {}
        # The interfaces each module's classes declare they implement, by the module's id.
        self._declared: Dict[int, List[Tuple[ProjectClass, Tuple[int, str]]]] = {}
        # What each class assigns a name (idemlint.semantic.values), by its key and the name.
        self.class_assignments: Dict[Tuple[Tuple[int, str], str], "ClassAssignments"] = {}
        # Of a class left unparsed: the statements of its body that assign each name.
        self.assigning_members: Dict[Tuple[int, str], Dict[str, List[ast.stmt]]] = {}
        # How many expressions are being evaluated, one inside another (a
        # class's bases, an attribute's value, a factory's return): past
        # MAX_NESTING, code whose names refer to each other in a loop ends.
        self._nested = 0

    def resolve(self, call: cst.Call, scope: "FunctionScope") -> Optional[Definition]:
        """The project definition ``call`` runs in ``scope``, or None."""
        func = call.func
        if isinstance(func, cst.Name) and not bound_locally(scope, func.value):
            closure = self._closure(func.value, scope)
            if closure is not None:
                return closure
        found = self._receiver_walk(func, scope) or self._resolved_walk(func, scope)
        if isinstance(found, ProjectClass):
            found = self._method(found, "__init__")  # ``Client(...)`` runs the project's constructor
        return found if isinstance(found, Definition) else None

    def waits_for_commit(self, definition: Definition, base: Optional[cst.BaseExpression]) -> bool:
        """Whether enqueueing the task ``definition`` waits for the
        database transaction to commit: the project class its decorator
        names as ``base=`` has an ``apply_async`` that hands the enqueue to
        ``transaction.on_commit`` (``delay`` calls ``apply_async``).  A
        ``base`` the task's module does not name (a project decorator
        defined elsewhere set it) is not known, and is not assumed to
        enqueue at once."""
        if base is None:
            return False
        module = definition.module
        head = spelled_head(base)
        if head is None or not (defines(module, head) or module.index.resolver().lookup(head) is not None):
            return True
        klass = self._expression_value(base, module, 0)
        if not isinstance(klass, ProjectClass):
            return False
        method = self._method(klass, "apply_async")
        if method is None:
            return False
        resolver = method.module.index.resolver()
        return any(
            catalog.matches_any(catalog.COMMIT_HOOKS, resolver.resolve(call.func))
            for call in _calls_in(method.function)
        )

    def value_of(self, expression: cst.BaseExpression, scope: "FunctionScope") -> Optional[_Value]:
        """What a name or attribute written in ``scope`` is, when it is a
        project value (a function, a class, an instance, a module)."""
        return self._receiver_walk(expression, scope) or self._resolved_walk(expression, scope)

    def module_value(self, expression: cst.BaseExpression, module: "LoadedModule") -> Optional[_Value]:
        """The same for an expression written at module level in ``module``."""
        return self._expression_value(expression, module, 0)

    # -- closures ---------------------------------------------------------

    def _closure(self, name: str, scope: Optional["FunctionScope"]) -> Optional[Definition]:
        """The function ``name`` defined in the body of the scope's function
        or of a function enclosing it, innermost first."""
        while scope is not None:
            function = self._nested_functions(scope.function).get(name)
            if function is not None:
                return Definition(function, None, scope.module, scope.instance, scope)
            scope = scope.enclosing
        return None

    def _nested_functions(self, function: cst.FunctionDef) -> Dict[str, cst.FunctionDef]:
        if id(function) not in self._closures:
            self._closures[id(function)] = {
                nested.name.value: nested for nested in _definitions_in(function.body.body)
            }
        return self._closures[id(function)]

    # -- receivers --------------------------------------------------------

    def _receiver_walk(self, func: cst.BaseExpression, scope: "FunctionScope") -> Optional[_Value]:
        """A call on ``self``/``cls`` (``self.m()``, ``self.client.send()``)
        or ``super()``, walked from the class the method runs for."""
        node, parts, calls = _spelled_chain(func)
        if scope.instance is None:
            return None
        if not parts:
            # ``cls`` in a classmethod is the class (``cls(...)`` makes one).
            runs_for_the_class = isinstance(node, cst.Name) and is_self(scope, node.value) and in_classmethod(scope)
            return scope.instance if runs_for_the_class else None
        if isinstance(node, cst.Name) and is_self(scope, node.value):
            return self._walk_parts(Instance(scope.instance), parts, 0, calls)
        if (_is_super(node) or _is_explicit_super(node, scope)) and len(parts) == 1:
            return self._method(scope.instance, parts[0], self._defining_class(scope), below=True)
        return None

    def _defining_class(self, scope: "FunctionScope") -> Optional[Tuple[int, str]]:
        """The key of the class whose body defines the method a scope runs
        (for ``super()``)."""
        while scope.enclosing is not None:
            scope = scope.enclosing
        if scope.owner is None:
            return None
        return (id(scope.module), scope.owner.name.value)

    def _resolved_walk(self, func: cst.BaseExpression, scope: "FunctionScope") -> Optional[_Value]:
        """A call walked from the dotted name the scope's resolver gives it:
        from the module's own definitions, or from the module an import or a
        binding names.  A name a parameter or an assignment hides, without a
        binding saying what it holds, resolves to nothing."""
        head = spelled_head(func)
        if head is None:
            return None
        bound = _bound_in_function(scope, head)
        if not bound and _shadowed(scope, head):
            return None
        resolved = scope.resolver.resolve(func)
        if resolved is None:
            return None
        parts = resolved.split(".")
        calls = _spelled_chain(func)[2]
        if defines(scope.module, _base(parts[0])):
            return self._walk_parts(scope.module, parts, 0, calls)
        if bound or scope.resolver.lookup(head) is not None:
            return self._walk_absolute(parts, 0, calls)
        return None

    # -- the walk ---------------------------------------------------------

    def _walk_absolute(
        self, parts: Sequence[str], hops: int, calls: Sequence[cst.Call] = ()
    ) -> Optional[_Value]:
        """A dotted name that starts with a module's name (``pkg.mod.f``)."""
        if self.project is None or hops > MAX_HOPS:
            return None
        for cut in range(len(parts) - 1, 0, -1):
            if any(_base(part) != part for part in parts[:cut]):
                continue
            if not _may_define_a_call(parts[cut:]):
                continue
            module = self.project_module(".".join(parts[:cut]))
            if module is not None:
                return self._walk_parts(module, parts[cut:], hops, calls)
        return None

    def _walk_parts(
        self, value: _Value, parts: Sequence[str], hops: int = 0, calls: Sequence[cst.Call] = ()
    ) -> Optional[_Value]:
        """Step through ``parts``; ``calls`` are the calls the code spells at
        the last ``()`` of the parts (a binding may have added others
        before them), whose literal arguments can decide what a factory
        returns."""
        current: Optional[_Value] = value
        calls_made = sum(_suffixes(part).count("()") for part in parts)
        unspelled = calls_made - len(calls)
        made = 0
        for part in parts:
            if current is None:
                return None
            current = self._attribute(current, _base(part), hops)
            for suffix in _suffixes(part):
                if current is None or suffix != "()":
                    return None
                call = calls[made - unspelled] if made >= unspelled else None
                current = self._called(current, hops, call)
                made += 1
        return current

    def _attribute(self, value: _Value, name: str, hops: int) -> Optional[_Value]:
        if isinstance(value, Instance):
            method = self._method(value.of, name)
            if method is not None and _is_property(method.function):
                return self._returned_instance(method, hops + 1)
            return method or self._instance_attribute(value.of, name, hops)
        if isinstance(value, ProjectClass):
            if name in catalog.ORM_MANAGERS:
                return Rows(value)
            method = self._method(value, name)
            called_on_class = method is not None and (
                is_classmethod(method.function) or is_staticmethod(method.function)
            )
            return method if called_on_class else None
        if isinstance(value, Rows):
            methods = catalog.ORM_QUERYSET_METHODS | catalog.ORM_INSTANCE_METHODS
            return Rows(value.of, name) if not value.method and name in methods else None
        if isinstance(value, Definition):
            # ``send_report.run(...)``: a task object's ``run`` is its function.
            return value if name == "run" and _runs_as_a_task(value.function) else None
        return self._module_attribute(value, name, hops)

    def _module_attribute(self, module: "LoadedModule", name: str, hops: int) -> Optional[_Value]:
        index = module.index
        function = index.functions.get(name)
        if function is not None:
            return Definition(function, None, module)
        if name in index.classes:
            return ProjectClass(module, name)
        if name in index.constants:
            return self._expression_value(index.constants[name], module, hops + 1)
        if name in index.imports:
            return self._walk_absolute(index.imports[name].split("."), hops + 1)
        return self.project_module(f"{module.name}.{name}")

    def _called(self, value: _Value, hops: int, call: Optional[cst.Call] = None) -> Optional[_Value]:
        """What calling a value gives: a class makes an instance, a factory
        function returns one (``call``'s literal arguments may decide which)."""
        if isinstance(value, ProjectClass):
            return Instance(value)
        if isinstance(value, Definition):
            return self._returned_instance(value, hops + 1, call) or self._returned_module(value)
        if isinstance(value, Rows) and value.method in catalog.ORM_QUERYSET_METHODS:
            return Rows(value.of)
        if isinstance(value, Rows) and value.method in catalog.ORM_INSTANCE_METHODS:
            return Instance(value.of)
        return None

    def _expression_value(
        self, expression: cst.BaseExpression, module: "LoadedModule", hops: int
    ) -> Optional[_Value]:
        """What an expression written in ``module`` (at module level, or an
        attribute's or a return's value) is, when it is a project value."""
        if hops > MAX_HOPS or self._nested >= MAX_NESTING:
            return None
        resolved = module.index.resolver().resolve(expression)
        if resolved is None:
            return None
        parts = resolved.split(".")
        self._nested += 1
        try:
            if defines(module, _base(parts[0])):
                return self._walk_parts(module, parts, hops)
            return self._walk_absolute(parts, hops)
        finally:
            self._nested -= 1

    # -- classes ----------------------------------------------------------

    def method(self, owner: ProjectClass, name: str) -> Optional[Definition]:
        """The method ``name`` an instance of ``owner`` runs, if the project
        defines one along its method resolution order."""
        return self._method(owner, name)

    def implementations(self, interface: ProjectClass) -> List[ProjectClass]:
        """The classes the project declares implement ``interface``
        (``@implementer(IMailer)``, zope.interface), in any module: what an
        object looked up by the interface may be."""
        if self.project is None:
            return []
        found: List[ProjectClass] = []
        for module in self.project.modules_implementing():
            found += [klass for klass, declared in self._declared_in(module) if declared == interface.key]
        return found

    def _declared_in(self, module: "LoadedModule") -> List[Tuple[ProjectClass, Tuple[int, str]]]:
        """Each class of ``module`` with each interface it declares it
        implements; read from CPython's outline while libcst has not parsed it."""
        if id(module) not in self._declared:
            declared: List[Tuple[ProjectClass, Tuple[int, str]]] = []
            resolver = module.index.resolver()
            for name in module.index.classes:
                klass = ProjectClass(module, name)
                for decorator in _class_decorators(klass):
                    if not isinstance(decorator, cst.Call):
                        continue
                    if not catalog.matches_any(catalog.IMPLEMENTS_DECORATORS, resolver.resolve(decorator.func)):
                        continue
                    for arg in decorator.args:
                        interface = self.module_value(arg.value, module)
                        if isinstance(interface, ProjectClass):
                            declared.append((klass, interface.key))
            self._declared[id(module)] = declared
        return self._declared[id(module)]

    def _method(
        self, owner: ProjectClass, name: str, after: Optional[Tuple[int, str]] = None, *, below: bool = False
    ) -> Optional[Definition]:
        """The method ``name`` an instance of ``owner`` runs, along the
        method resolution order (for ``super()``, from the class after ``after``)."""
        if not below:
            own = self._own_method(owner, name)
            if own is not None:  # found before the bases are read
                return own
        order = self.method_order(owner)
        if below:
            places = [i for i, klass in enumerate(order) if klass.key == after]
            order = order[places[0] + 1 :] if places else []
        for klass in order:
            found = self._own_method(klass, name, owner)
            if found is not None:
                return found
        return None

    def _own_method(
        self, klass: ProjectClass, name: str, instance: Optional[ProjectClass] = None
    ) -> Optional[Definition]:
        """The method ``name`` the class's own body defines (the last one
        wins), run for an instance of ``instance`` (the class itself by
        default); the class is parsed only when it defines one."""
        if name not in self._names_of_methods(klass):
            return None
        outline = klass.outline
        if outline is not None:
            member = self._member(klass, outline, name)
            if member is not None:
                return dataclasses.replace(member, instance=instance or klass)
        if klass.key not in self._methods:
            self._methods[klass.key] = {
                statement.name.value: statement
                for statement in klass.node.body.body
                if isinstance(statement, cst.FunctionDef)
            }
        found = self._methods[klass.key].get(name)
        return Definition(found, klass.node, klass.module, instance or klass) if found is not None else None

    def _member(self, klass: ProjectClass, outline: Outline, name: str) -> Optional[Definition]:
        """The method ``name`` of an unparsed class, parsed alone in a
        class of its own header (:meth:`Later.parse_member`)."""
        memo = (*klass.key, name)
        if memo not in self._members:
            statement = outline.statement
            assert isinstance(statement, ast.ClassDef)
            members = [s for s in statement.body if isinstance(s, _FUNCTIONS) and s.name == name]
            shell = outline.parse_member(members[-1]) if members else None
            found = shell.body.body[0] if shell is not None else None
            self._members[memo] = (
                Definition(found, shell, klass.module, klass)
                if shell is not None and isinstance(found, cst.FunctionDef)
                else None
            )
        return self._members[memo]

    def _names_of_methods(self, klass: ProjectClass) -> AbstractSet[str]:
        if klass.key not in self._method_names:
            outline = klass.outline
            self._method_names[klass.key] = frozenset(
                [s.name for s in _class_statement(outline).body if isinstance(s, _FUNCTIONS)]
                if outline is not None
                else [s.name.value for s in klass.node.body.body if isinstance(s, cst.FunctionDef)]
            )
        return self._method_names[klass.key]

    def method_order(self, owner: ProjectClass) -> List[ProjectClass]:
        """The class and its project bases, in method resolution order (C3;
        depth first should the bases not linearise)."""
        if owner.key not in self._orders:
            self._orders[owner.key] = _linearised(owner, self._bases, [])
        return self._orders[owner.key]

    def _bases(self, owner: ProjectClass) -> List[ProjectClass]:
        found = []
        for base in _base_expressions(owner):
            if isinstance(base, cst.Subscript):  # a generic base, ``Repository[Order]``: the class
                base = base.value
            value = self._expression_value(base, owner.module, 0)
            if isinstance(value, ProjectClass):
                found.append(value)
        return found

    def _assigned(self, klass: ProjectClass) -> Dict[str, List[cst.BaseExpression]]:
        """:func:`instance_assignments` of the class's methods; of an
        unparsed class, read from CPython's statements (:func:`_outlined_assignments`)."""
        if klass.key not in self._assignments:
            outline = klass.outline
            found = _outlined_assignments(outline) if outline is not None else None
            if found is None:
                found = instance_assignments([m for m in klass.node.body.body if isinstance(m, cst.FunctionDef)])
            self._assignments[klass.key] = found
        return self._assignments[klass.key]

    def _instance_attribute(self, owner: ProjectClass, name: str, hops: int) -> Optional[_Value]:
        """The project instance ``self.<name>`` holds: one class made by
        every ``self.<name> = X(...)`` of the class and its project bases."""
        found: Optional[Instance] = None
        for klass in self.method_order(owner):
            for value in self._assigned(klass).get(name, ()):
                made = self._expression_value(value, klass.module, hops + 1)
                if not isinstance(made, Instance) or not _same_class(found, made):
                    return None
                found = made
        return found

    def instance_bindings(self, owner: ProjectClass) -> Dict[str, str]:
        """``self.<name>`` -> the dotted name of what the class assigns it
        (``requests.Session()``), resolved where each assignment is written:
        the class's own assignments first, then its bases'; within a class,
        ``__init__``'s, else the one name every other method agrees on."""
        bindings: Dict[str, str] = {}
        for klass in self.method_order(owner):
            resolver = klass.module.index.resolver()
            for name, values in self._assigned(klass).items():
                key = f"self.{name}"
                resolved = {resolver.resolve(value) for value in values}
                if key not in bindings and len(resolved) == 1:
                    only = resolved.pop()
                    if only is not None:
                        bindings[key] = only
        return bindings

    # -- factories --------------------------------------------------------

    def _returned_instance(
        self, definition: Definition, hops: int, call: Optional[cst.Call] = None
    ) -> Optional[Instance]:
        """The project instance a function returns: the one class every
        ``return`` makes that the literal arguments of ``call`` let run
        (``manager("mail")`` runs only the branch ``if kind == "mail":
        return MailManager()``), else its return annotation's class.  The
        returns come first: an annotation often names the base class
        (or, wrongly, ``type[Base]``) of the subclass a branch makes."""
        function = definition.function
        module = definition.module
        made = self._made_by_every_return(definition, hops, call)
        if made is not None or function.returns is None:
            return made
        annotation = annotated_type(function.returns.annotation, module.index.resolver())
        if annotation is None:
            return None
        if definition.instance is not None and _names_self_type(annotation, module):
            return Instance(definition.instance)  # ``-> Self``: the class it was called on
        named = self._expression_value(annotation, module, hops)
        return Instance(named) if isinstance(named, ProjectClass) else None

    def _returned_module(self, definition: Definition) -> Optional["LoadedModule"]:
        """The project module every ``return`` of a function names, imported
        in its body to break an import cycle (``from app import helper;
        return helper``) or at the module's top."""
        function = definition.function
        module = definition.module
        local = {
            name: target
            for statement in imports_in(function.body.body)
            for name, target in import_bindings(statement, module.index.package).items()
        }
        names: Set[str] = set()
        for value in returned_values(function.body.body):
            if not isinstance(value, cst.Name):
                return None
            target = local.get(value.value) or module.index.imports.get(value.value)
            if target is None:
                return None
            names.add(target)
        return self.project_module(names.pop()) if len(names) == 1 else None

    def _made_by_every_return(
        self, definition: Definition, hops: int, call: Optional[cst.Call]
    ) -> Optional[Instance]:
        function = definition.function
        found: Optional[Instance] = None
        assigned = local_assignments(function.body.body)
        known = {
            name: value for name, value in _literal_arguments(definition, call).items() if name not in assigned
        }
        for value in _reachable_returns(function.body.body, known):
            made: Optional[_Value] = _made_by_receiver(definition, value, assigned)
            if made is None and value is not None:
                made = self._made_by(value, assigned, definition.module, hops)
            if not isinstance(made, Instance) or not _same_class(found, made):
                return None
            found = made
        return found

    def _made_by(
        self,
        value: cst.BaseExpression,
        assigned: Dict[str, List[cst.BaseExpression]],
        module: "LoadedModule",
        hops: int,
    ) -> Optional[_Value]:
        """What a returned value makes: ``Client(...)``, or ``klass()`` where
        the local ``klass`` holds one project class (through other locals)
        and otherwise only what a call computes (``klass = Default``, then
        ``klass = getattr(module, name)`` from a setting: the default).  A
        local that may also hold another class, a project's or a library's,
        makes nothing known."""
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in assigned:
            held = list(self._local_classes(value.func.value, assigned, module, hops, 0))
            classes = {klass.key: klass for klass in held if klass is not None}
            if len(classes) != 1 or None in held:
                return None
            return Instance(next(iter(classes.values())))
        return self._expression_value(value, module, hops)

    def _local_classes(
        self,
        name: str,
        assigned: Dict[str, List[cst.BaseExpression]],
        module: "LoadedModule",
        hops: int,
        depth: int,
    ) -> Iterator[Optional[ProjectClass]]:
        """The project classes the local ``name`` may hold; None for a class
        that is not the project's (a name that resolves elsewhere); nothing
        for a call's result, which cannot be seen."""
        if depth > MAX_HOPS:
            yield None
            return
        for value in assigned.get(name, ()):
            if isinstance(value, cst.Name) and value.value in assigned:
                yield from self._local_classes(value.value, assigned, module, hops, depth + 1)
                continue
            found = self._expression_value(value, module, hops)
            if isinstance(found, ProjectClass):
                yield found
            elif not isinstance(value, cst.Call):
                yield None

    # -- library objects the project builds -------------------------------

    def library_callee(self, func: cst.BaseExpression, scope: "FunctionScope") -> Optional[str]:
        """The library name a dotted name through project modules stands
        for: ``app.extensions.mail.send``, where ``app/extensions.py`` binds
        ``mail = Mail()`` (``Mail`` imported from ``flask_mail``), is
        ``flask_mail.Mail().send``; ``app.clients.slack().chat_postMessage``,
        where every ``return`` of the project function ``slack`` makes a
        ``slack_sdk.WebClient(...)``, is
        ``slack_sdk.WebClient().chat_postMessage``.  Re-exports are followed.
        None when the name does not start in a project module, or does not
        end in a library there (a project value is :meth:`resolve`'s), or
        when a parameter or an assignment hides the name it starts with."""
        head = spelled_head(func)
        if head is None:
            return None
        hidden = not _bound_in_function(scope, head) and _shadowed(scope, head)
        if hidden and not is_self(scope, head):  # ``self.client``: what the class bound it to
            return None
        current = scope.resolver.resolve(func)
        if current is not None and defines(scope.module, _base(current.split(".", 1)[0])):
            current = f"{scope.module.name}.{current}"  # a factory of the task's own module
        return self._library_name(current, 0)

    def inherited_library_method(self, func: cst.BaseExpression, scope: "FunctionScope") -> Optional[str]:
        """The library's name for a method a project class inherits from a
        library base: ``post`` on an instance of ``class ApiSession(requests.Session)``
        (made here, held by ``self.session``, or ``self`` inside the class;
        ``super().post`` in an override) is ``requests.Session().post``.
        None when the project defines the method along the class's method
        resolution order, or when none of its bases is a library's."""
        if not isinstance(func, cst.Attribute):
            return None
        receiver, name = func.value, func.attr.value
        if not self._effect_methods.matches(name):
            return None  # no side effect is called so: not worth loading the classes
        if (_is_super(receiver) or _is_explicit_super(receiver, scope)) and scope.instance is not None:
            if self._method(scope.instance, name, self._defining_class(scope), below=True) is not None:
                return None
            owner = scope.instance
        else:
            if isinstance(receiver, cst.Name) and is_self(scope, receiver.value) and scope.instance is not None:
                value: Optional[_Value] = Instance(scope.instance)
            else:
                value = self.value_of(receiver, scope)
            if not isinstance(value, Instance) or self._method(value.of, name) is not None:
                return None
            owner = value.of
        base = self.library_base(owner)
        return f"{base}().{name}" if base is not None else None

    def method_below(
        self, instance: ProjectClass, name: str, defining: Optional[Tuple[int, str]]
    ) -> Optional[Definition]:
        """The method ``name`` along ``instance``'s method resolution order
        after the class ``defining`` (by its key): what ``super()`` gives."""
        return self._method(instance, name, defining, below=True)

    def library_base(self, owner: ProjectClass) -> Optional[str]:
        """The first base along the class's method resolution order that is
        a library's class (``requests.Session``, also re-exported by a
        project module), by its dotted name; typing and ``abc`` helpers
        (``Generic[T]``, ``ABC``, ``Protocol``) add no such methods and are
        passed over."""
        if owner.key not in self._library_bases:
            self._library_bases[owner.key] = None
            for klass in self.method_order(owner):
                resolver = klass.module.index.resolver()
                for base in _base_expressions(klass):
                    name = resolver.resolve(base)
                    if name is None or "." not in name or "[" in name:
                        continue
                    if defines(klass.module, _base(name.split(".", 1)[0])):
                        continue
                    library = self._as_library(name, 0)
                    if library is not None and library.split(".", 1)[0] not in catalog.MIXIN_MODULES:
                        self._library_bases[owner.key] = library
                        return library
        return self._library_bases[owner.key]

    def _is_project_module(self, name: str) -> bool:
        """Whether ``name`` is one of the project's modules (known without loading it)."""
        return self.project is not None and name in self.project.files

    def _from_library_base(self, owner: ProjectClass, member: str) -> Optional[str]:
        """An instance of the library base of ``owner`` (``flask_sqlalchemy.SQLAlchemy()``),
        when ``member`` is one neither the class nor its project bases define
        (a method, a class attribute, an assignment to ``self``)."""
        base = self.library_base(owner)
        if base is None or self.method(owner, member) is not None:
            return None
        for klass in self.method_order(owner):
            if member in self._assigned(klass) or member in class_assignments(klass.node):
                return None
        return f"{base}()"

    def _library_name(self, name: Optional[str], hops: int) -> Optional[str]:
        """``name`` with every project binding it starts with replaced, until
        it names a library's object; None when it never does, or when it
        names one already (no project binding to see through)."""
        step = self._library_step(name, hops) if name is not None else None
        if step is _IN_A_LIBRARY or not isinstance(step, str):
            return None
        return self._as_library(step, hops + 1)

    def _as_library(self, name: Optional[str], hops: int) -> Optional[str]:
        """The library object ``name`` stands for, itself if it names one."""
        for hop in range(hops, MAX_HOPS + 1):
            if name is None:
                return None
            step = self._library_step(name, hop)
            if step is _IN_A_LIBRARY:
                return name
            name = step if isinstance(step, str) else None
        return None

    def _library_step(self, name: str, hops: int = 0) -> object:
        """``name`` with its first project-module binding replaced by what
        it is bound to; _IN_A_LIBRARY when no project module starts it; None
        when it names nothing a library made."""
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            # ``mail.send``, ``slack().post``, ``client.payment_intents.create``:
            # what a module binds, then its members.  A class spelled as one
            # (``models.Order.objects.filter``) starts a chain the ORM reads:
            # its module is not parsed for it, nor a submodule's parent.
            deep = len(parts) - cut > 2 and (
                _spelled_as_a_class(parts[cut]) or self._is_project_module(".".join(parts[: cut + 1]))
            )
            if any(_base(part) != part for part in parts[:cut]) or deep:
                continue
            module = self.project_module(".".join(parts[:cut]))
            if module is None:
                continue
            head, rest = parts[cut], parts[cut + 1 :]
            base = _base(head)
            suffix = head[len(base) :]
            index = module.index
            if base in index.classes:
                # ``db.Model`` with ``db = OurSQLAlchemy()``: what an instance
                # of a project class gets from its library base.
                inherited = self._from_library_base(ProjectClass(module, base), rest[0]) if rest else None
                if inherited is None or not suffix.startswith("()"):
                    return None
                return ".".join([inherited + suffix[2:], *rest])
            if base in index.functions:
                made = self._library_made(module, base, hops) if suffix.startswith("()") else None
                return ".".join([made + suffix[2:], *rest]) if made is not None else None
            bound = index.resolver().lookup(base)
            if bound is None:
                return None
            if defines(module, _base(bound.split(".", 1)[0])):
                bound = f"{module.name}.{bound}"  # ``session = Session()``, its own class
            return ".".join([bound + suffix, *rest])
        return _IN_A_LIBRARY

    def _library_made(self, module: "LoadedModule", name: str, hops: int = 0) -> Optional[str]:
        """What every ``return`` of the project function ``name`` makes, when
        that is one library object (``return WebClient(token=...)``, or a
        local assigned only that; ``return None`` aside): made there, or by
        another project factory it returns the result of
        (``return connect(url)``), or by the function a local holds
        (``connect = get_connect_method(); return connect(url)``, see
        :meth:`_returned_function`)."""
        function = module.index.functions.get(name)
        if function is None or hops > MAX_HOPS:
            return None
        assigned = local_assignments(function.body.body)
        made: Set[str] = set()
        for value in returned_values(function.body.body):
            if value is None or (isinstance(value, cst.Name) and value.value == "None"):
                continue
            if isinstance(value, cst.Name) and len(assigned.get(value.value, ())) == 1:
                value = assigned[value.value][0]
            if not isinstance(value, cst.Call):
                return None
            library = self._as_library(self._called_name(value, assigned, module, hops), hops + 1)
            if library is None:
                return None
            made.add(library)
        return made.pop() if len(made) == 1 else None

    def _called_name(
        self, call: cst.Call, assigned: Dict[str, List[cst.BaseExpression]], module: "LoadedModule", hops: int
    ) -> Optional[str]:
        """The dotted name a call in a function of ``module`` makes, a
        project function's own module in front; a local that holds a
        function another project function returns is that function."""
        func = call.func
        if isinstance(func, cst.Name) and func.value in assigned:
            values = assigned[func.value]
            held = values[0] if len(values) == 1 else None
            if not isinstance(held, cst.Call) or not isinstance(held.func, cst.Name):
                return None
            returned = self._returned_function(module, held.func.value, hops + 1)
            return f"{returned}()" if returned is not None else None
        resolved = module.index.resolver().resolve(call)
        if resolved is not None and defines(module, _base(resolved.split(".", 1)[0])):
            return f"{module.name}.{resolved}"
        return resolved

    def _returned_function(self, module: "LoadedModule", name: str, hops: int) -> Optional[str]:
        """The one function the project function ``name`` returns by name
        (``return connect_to_jira``), dotted; a call's result among its
        returns (``getattr(import_module(...), name)`` from a setting) is
        what the project overrides it with, not known: the named default
        stands, as a factory's default class does (:meth:`_made_by`)."""
        function = module.index.functions.get(name)
        if function is None or hops > MAX_HOPS:
            return None
        resolver = module.index.resolver()
        named: Set[str] = set()
        for value in returned_values(function.body.body):
            if isinstance(value, cst.Call):
                continue
            resolved = resolver.resolve(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
            if resolved is None:
                return None
            if defines(module, _base(resolved.split(".", 1)[0])):
                resolved = f"{module.name}.{resolved}"
            named.add(resolved)
        return named.pop() if len(named) == 1 else None

    def imported_constant(self, name: str, scope: "FunctionScope") -> Optional[cst.BaseExpression]:
        """The value of a module-level constant another project module
        defines, which the scope's module imports as ``name``
        (``from app.urls import SEARCH_URL``), re-exports followed; its
        own names are left unresolved."""
        if _shadowed(scope, name):
            return None
        found = self.constant_imported(name, scope.resolver)
        return found[0] if found is not None else None

    def constant_imported(
        self, name: str, resolver: Resolver
    ) -> Optional[Tuple[cst.BaseExpression, "LoadedModule"]]:
        """The value of the constant ``name`` imports through ``resolver``,
        with the module that defines it, re-exports followed."""
        found = self.binding_imported(name, resolver)
        return (found[1].index.constants[found[0]], found[1]) if found is not None else None

    def binding_imported(self, name: str, resolver: Resolver) -> Optional[Tuple[str, "LoadedModule"]]:
        """The module-level name ``name`` imports through ``resolver``, and
        the project module that binds it, re-exports followed."""
        imported = resolver.lookup(name)
        for _ in range(MAX_HOPS):
            if imported is None or "(" in imported or "[" in imported:
                return None
            module_name, _, constant = imported.rpartition(".")
            module = self.project_module(module_name) if module_name else None
            if module is None:
                return None
            index = module.index
            if constant in index.constants and constant not in index.imports:
                return constant, module
            imported = index.imports.get(constant)
        return None

    # -- modules ----------------------------------------------------------

    def project_module(self, name: str) -> Optional["LoadedModule"]:
        """A project module by name (recorded as looked up, found or not)."""
        return self.project.load(name) if self.project is not None else None


def _spelled_as_a_class(name: str) -> bool:
    """``Order``, ``OrderItem``: a name in CapWords (PEP 8's spelling of a
    class), not a call's result, an instance (``client``) or a constant
    (``CLIENT``)."""
    return name[:1].isupper() and not name.isupper() and name.isidentifier()


# What :meth:`Calls._library_step` says of a name no project module starts.
_IN_A_LIBRARY = object()


def _made_by_receiver(
    definition: Definition, value: Optional[cst.BaseExpression], assigned: Dict[str, List[cst.BaseExpression]]
) -> Optional[Instance]:
    """What a method returns through its receiver, for the class it was
    called on (``definition.instance``): a class method's ``cls(...)`` (a
    factory, ``Repository.from_session(session)``), a method's ``self`` (a
    fluent builder); the receiver not rebound in the body."""
    function = definition.function
    if definition.instance is None or value is None or is_staticmethod(function):
        return None
    params = [*function.params.posonly_params, *function.params.params]
    if not params or params[0].name.value in assigned:
        return None
    receiver = params[0].name.value
    if is_classmethod(function):
        called = isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == receiver
        return Instance(definition.instance) if called else None
    return Instance(definition.instance) if isinstance(value, cst.Name) and value.value == receiver else None


def _names_self_type(annotation: cst.BaseExpression, module: "LoadedModule") -> bool:
    """``Self`` from typing or typing_extensions."""
    return module.index.resolver().resolve(annotation) in catalog.SELF_TYPES


def annotated_type(annotation: cst.BaseExpression, resolver: Resolver) -> Optional[cst.BaseExpression]:
    """The one type an annotation says a value has, ``None`` aside:
    ``Client`` for ``Client``, ``"Client"``, ``Optional[Client]``,
    ``Union[Client, None]`` and ``Client | None``; None when it names
    several (``Union[A, B]``) or is no expression."""
    if isinstance(annotation, cst.SimpleString):
        parsed = string_annotation(annotation)
        if parsed is None:
            return None
        annotation = parsed
    members = [member for member in union_members(annotation, resolver) if not _is_none_type(member)]
    return members[0] if len(members) == 1 else None


# A string annotation longer than this is no type a factory returns: not parsed.
_LONGEST_STRING_ANNOTATION = 200


def string_annotation(annotation: cst.SimpleString) -> Optional[cst.BaseExpression]:
    """The expression a string annotation holds (``"Optional[Client]"``).
    CPython never compiles it, so nothing has bounded it: it is parsed by
    ``ast`` first (which refuses deep nesting with an error, where libcst's
    native parser would overflow its stack), and only when short."""
    try:
        text = annotation.evaluated_value
    except (SyntaxError, ValueError):
        return None
    if not isinstance(text, str) or len(text) > _LONGEST_STRING_ANNOTATION:
        return None
    try:
        ast.parse(text, mode="eval")
        return cst.parse_expression(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, cst.ParserSyntaxError):
        return None


def union_members(annotation: cst.BaseExpression, resolver: Resolver) -> List[cst.BaseExpression]:
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        return [*union_members(annotation.left, resolver), *union_members(annotation.right, resolver)]
    if isinstance(annotation, cst.Subscript) and resolver.resolve(annotation.value) in catalog.UNION_TYPES:
        slices = [element.slice for element in annotation.slice]
        if all(isinstance(element, cst.Index) for element in slices):
            return [cast(cst.Index, element).value for element in slices]
    return [annotation]


def _is_none_type(annotation: cst.BaseExpression) -> bool:
    return isinstance(annotation, cst.Name) and annotation.value == "None"


def local_assignments(statements: Statements) -> Dict[str, List[cst.BaseExpression]]:
    """Every value each local name is assigned in a body (its nested blocks
    too, not its nested functions)."""
    found: Dict[str, List[cst.BaseExpression]] = {}
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            found.setdefault(target.target.value, []).append(small.value)
        elif isinstance(statement, cst.BaseCompoundStatement):
            for block in blocks(statement):
                for name, values in local_assignments(block).items():
                    found.setdefault(name, []).extend(values)
    return found


def _spelled_chain(
    func: cst.BaseExpression,
) -> Tuple[cst.BaseExpression, List[str], List[cst.Call]]:
    """The name a callee starts with, the parts after it (``()`` marking a
    call) and those calls, in order: ``self.manager("mail").send`` is
    ``self``, ``["manager()", "send"]`` and the call ``manager("mail")``."""
    parts: List[str] = []
    calls: List[cst.Call] = []
    node = func
    pending = ""
    while isinstance(node, (cst.Attribute, cst.Call)) and not _calls_super(node):
        if isinstance(node, cst.Call):
            calls.insert(0, node)
            pending += "()"
            node = node.func
            continue
        parts.insert(0, node.attr.value + pending)
        pending = ""
        node = node.value
    return node, parts if not pending else [], calls


_Literal = Union[str, float, bool, None]


def _literal_arguments(definition: Definition, call: Optional[cst.Call]) -> Dict[str, _Literal]:
    """The parameters ``call`` fills in with a literal (nothing is known
    behind a ``*args`` or ``**kwargs`` splat)."""
    if call is None or any(arg.star for arg in call.args):
        return {}
    known: Dict[str, _Literal] = {}
    for name, value in bind_arguments(parameters(definition), call):
        literal, found = _literal_value(value)
        if found:
            known[name] = literal
    return known


def _literal_value(node: cst.BaseExpression) -> Tuple[_Literal, bool]:
    """A literal's value, and whether the node is one."""
    if isinstance(node, cst.SimpleString):
        text = literal_text(node)
        return text, text is not None
    if isinstance(node, (cst.Integer, cst.Float)):
        number = literal_number(node)
        return number, number is not None
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value], True
    return None, False


def _reachable_returns(statements: Statements, known: Dict[str, _Literal]) -> Iterator[Optional[cst.BaseExpression]]:
    """What each ``return`` of a body that can run returns: an ``if`` the
    known parameters decide runs one branch, and nothing after a block that
    always returns runs (without known parameters, every ``return``)."""
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Return):
                    yield small.value
            if _ends_the_function(statement):
                return
        elif isinstance(statement, cst.If):
            branch = _decided_branch(statement, known)
            if branch is None:
                for block in blocks(statement):
                    yield from _reachable_returns(block, known)
                continue
            yield from _reachable_returns(branch, known)
            if branch and _ends_the_function(branch[-1]):
                return
        elif isinstance(statement, cst.BaseCompoundStatement):
            for block in blocks(statement):
                yield from _reachable_returns(block, known)


def _decided_branch(statement: cst.If, known: Dict[str, _Literal]) -> Optional[Statements]:
    """The block an ``if`` (and its ``elif`` chain) runs, when the known
    parameters decide every test on the way to it; None when not known."""
    current: Union[cst.If, cst.Else, None] = statement
    while isinstance(current, cst.If):
        truth = _decided(current.test, known)
        if truth is None:
            return None
        if truth:
            return current.body.body
        current = current.orelse
    return current.body.body if isinstance(current, cst.Else) else ()


def _decided(test: cst.BaseExpression, known: Dict[str, _Literal]) -> Optional[bool]:
    """Whether a test on known parameters holds: ``kind == "mail"``,
    ``kind != "mail"``, ``kind in ("mail", "sms")``, ``kind``, ``not kind``."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _decided(test.expression, known)
        return None if inner is None else not inner
    if isinstance(test, cst.Name) and test.value in known:
        return bool(known[test.value])
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    left, (target,) = test.left, test.comparisons
    right = target.comparator
    if isinstance(right, cst.Name) and right.value in known and not isinstance(left, cst.Name):
        left, right = right, left
    if not isinstance(left, cst.Name) or left.value not in known:
        return None
    value = known[left.value]
    operator = target.operator
    if isinstance(operator, (cst.Equal, cst.NotEqual)):
        other, literal = _literal_value(right)
        if not literal:
            return None
        return (value == other) is isinstance(operator, cst.Equal)
    if isinstance(operator, (cst.In, cst.NotIn)) and isinstance(right, (cst.Tuple, cst.List, cst.Set)):
        options = [_literal_value(element.value) for element in right.elements]
        if not all(literal for _, literal in options):
            return None
        return (value in [option for option, _ in options]) is isinstance(operator, cst.In)
    return None


def _ends_the_function(statement: Union[cst.BaseStatement, cst.BaseSmallStatement]) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(small, (cst.Return, cst.Raise)) for small in statement.body
    )


def _runs_as_a_task(function: cst.FunctionDef) -> bool:
    """Whether ``function.run`` is the function itself: a decorated function
    (a task object has ``run``; a plain function has no attribute of that
    name), not a bound task (whose ``run`` passes the task as ``self``)."""
    return bool(function.decorators) and not any(
        isinstance(d.decorator, cst.Call)
        and any(
            arg.keyword is not None and arg.keyword.value == "bind" and not _literal_false(arg.value)
            for arg in d.decorator.args
        )
        for d in function.decorators
    )


def _literal_false(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "False"


def _same_class(found: Optional[Instance], made: Instance) -> bool:
    """Whether ``made`` is of the class found so far (any, when none is)."""
    return found is None or found.of.key == made.of.key


def _base_expressions(klass: ProjectClass) -> List[cst.BaseExpression]:
    """The class's bases as libcst expressions: from CPython's statement
    while the class is unparsed (a base is a name or a call, cheap to
    parse alone), else from its node."""
    outline = klass.outline
    if outline is None:
        return [base.value for base in klass.node.bases]
    try:
        return [cst.parse_expression(ast.unparse(base)) for base in _class_statement(outline).bases]
    except cst.ParserSyntaxError:
        return [base.value for base in klass.node.bases]


def _class_decorators(klass: ProjectClass) -> List[cst.BaseExpression]:
    """The class's decorators as libcst expressions (as :func:`_base_expressions`)."""
    outline = klass.outline
    if outline is None:
        return [decorator.decorator for decorator in klass.node.decorators]
    statement = _class_statement(outline)
    try:
        return [cst.parse_expression(ast.unparse(decorator)) for decorator in statement.decorator_list]
    except cst.ParserSyntaxError:
        return [decorator.decorator for decorator in klass.node.decorators]


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _class_statement(outline: Outline) -> ast.ClassDef:
    statement = outline.statement
    assert isinstance(statement, ast.ClassDef)  # ProjectClass.outline answers only for classes
    return statement


def _outlined_assignments(outline: Outline) -> Optional[Dict[str, List[cst.BaseExpression]]]:
    """:func:`instance_assignments` read from CPython's statements of an
    unparsed class: each value is the call's callee alone (``Client()``),
    all that resolving it reads.  None when a callee does not parse alone."""
    from_init: Dict[str, List[cst.BaseExpression]] = {}
    elsewhere: Dict[str, List[cst.BaseExpression]] = {}
    for method in _class_statement(outline).body:
        if not isinstance(method, _FUNCTIONS):
            continue
        found = from_init if method.name == "__init__" else elsewhere
        for name, call in _outlined_self_assignments(method):
            try:
                callee = cst.parse_expression(ast.unparse(call.func))
            except cst.ParserSyntaxError:
                return None
            found.setdefault(name, []).append(cst.Call(func=callee))
    return {**elsewhere, **from_init}


def _outlined_self_assignments(
    method: Union[ast.FunctionDef, ast.AsyncFunctionDef]
) -> Iterator[Tuple[str, ast.Call]]:
    """What :func:`_self_assignments` finds, in CPython's statements."""
    for small in method.body:
        if not isinstance(small, ast.Assign) or not isinstance(small.value, ast.Call):
            continue
        for target in small.targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                yield target.attr, small.value


def _linearised(
    owner: ProjectClass,
    bases_of: Callable[[ProjectClass], List[ProjectClass]],
    visiting: List[Tuple[int, str]],
) -> List[ProjectClass]:
    visiting = visiting + [owner.key]
    # A cycle of project bases (Python would refuse it) ends where it closes.
    bases = [base for base in bases_of(owner) if base.key not in visiting]
    orders = [_linearised(base, bases_of, visiting) for base in bases] + [list(bases)]
    merged = _merge([order for order in orders if order])
    if merged is None:
        merged = list(_depth_first(orders))
    return [owner, *merged]


def _merge(orders: List[List[ProjectClass]]) -> Optional[List[ProjectClass]]:
    """The C3 merge of the bases' orders; None when they do not linearise."""
    orders = [list(order) for order in orders]
    merged: List[ProjectClass] = []
    while any(orders):
        for order in orders:
            if not order:
                continue
            head = order[0]
            if not any(head.key == klass.key for other in orders for klass in other[1:]):
                break
        else:
            return None
        merged.append(head)
        orders = [[klass for klass in order if klass.key != head.key] for order in orders]
    return merged


def _depth_first(orders: List[List[ProjectClass]]) -> Iterator[ProjectClass]:
    seen: List[Tuple[int, str]] = []
    for order in orders:
        for klass in order:
            if klass.key not in seen:
                seen.append(klass.key)
                yield klass


def instance_assignments(methods: Sequence[cst.FunctionDef]) -> Dict[str, List[cst.BaseExpression]]:
    """``self.<name> = <call>`` in a class's own methods (top-level
    statements of each body), ``__init__``'s alone when it assigns the name."""
    from_init: Dict[str, List[cst.BaseExpression]] = {}
    elsewhere: Dict[str, List[cst.BaseExpression]] = {}
    for method in methods:
        found = from_init if method.name.value == "__init__" else elsewhere
        for name, value in _self_assignments(method):
            found.setdefault(name, []).append(value)
    return {**elsewhere, **from_init}


def _self_assignments(method: cst.FunctionDef) -> Iterator[Tuple[str, cst.BaseExpression]]:
    for statement in method.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.Assign) or not isinstance(small.value, cst.Call):
                continue
            for target in small.targets:
                attribute = target.target
                if (
                    isinstance(attribute, cst.Attribute)
                    and isinstance(attribute.value, cst.Name)
                    and attribute.value.value == "self"
                ):
                    yield attribute.attr.value, small.value


Statements = Sequence[Union[cst.BaseStatement, cst.BaseSmallStatement]]


def blocks(statement: cst.BaseStatement) -> Iterator[Statements]:
    """The blocks of a compound statement that run in the same function."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return
    if isinstance(statement, cst.Match):
        for case in statement.cases:
            yield case.body.body
        return
    body = getattr(statement, "body", None)
    if isinstance(body, cst.BaseSuite):
        yield body.body
    for handler in getattr(statement, "handlers", ()):
        yield handler.body.body
    orelse = getattr(statement, "orelse", None)
    while isinstance(orelse, cst.If):
        yield orelse.body.body
        orelse = orelse.orelse
    if isinstance(orelse, cst.Else):
        yield orelse.body.body
    finalbody = getattr(statement, "finalbody", None)
    if isinstance(finalbody, cst.Finally):
        yield finalbody.body.body


def imports_in(statements: Statements) -> Iterator[Union[cst.Import, cst.ImportFrom]]:
    """The import statements of a body, those in its nested blocks too."""
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    yield small
        elif isinstance(statement, cst.BaseStatement) and not isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            for block in blocks(statement):
                yield from imports_in(block)


def _calls_in(function: cst.FunctionDef) -> Iterator[cst.Call]:
    """Every call written in a function's body, nested ones included, in
    source order (a plain walk: a libcst visitor rebuilds every node)."""
    return (node for node in descendants(function.body) if type(node) is cst.Call)


def _definitions_in(statements: Statements) -> Iterator[cst.FunctionDef]:
    """Functions defined in a body (in its nested blocks too, not in its
    nested functions), in order: a later one of a name wins."""
    for statement in statements:
        if isinstance(statement, cst.FunctionDef):
            yield statement
        elif isinstance(statement, cst.BaseCompoundStatement):
            for block in blocks(statement):
                yield from _definitions_in(block)


def returned_values(statements: Statements) -> Iterator[Optional[cst.BaseExpression]]:
    """What each ``return`` of a body returns (None for a bare one)."""
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Return):
                    yield small.value
        elif isinstance(statement, cst.BaseCompoundStatement):
            for block in blocks(statement):
                yield from returned_values(block)


def _decorated(function: cst.FunctionDef, names: Sequence[str]) -> bool:
    return any((dotted_name(d.decorator) or "").rpartition(".")[2] in names for d in function.decorators)


def is_classmethod(function: cst.FunctionDef) -> bool:
    return _decorated(function, ("classmethod",))


def _is_property(function: cst.FunctionDef) -> bool:
    return _decorated(function, PROPERTIES)


def is_staticmethod(function: cst.FunctionDef) -> bool:
    return _decorated(function, ("staticmethod",))


def _is_explicit_super(node: cst.BaseExpression, scope: "FunctionScope") -> bool:
    """``super(Cls, self)``, the spelling before Python 3, naming the class
    whose body defines the method (a class further up starts the lookup
    elsewhere: not read)."""
    if not (_calls_super(node) and len(cast(cst.Call, node).args) == 2):
        return False
    first, second = (arg.value for arg in cast(cst.Call, node).args)
    outermost = scope
    while outermost.enclosing is not None:
        outermost = outermost.enclosing
    return (
        isinstance(second, cst.Name)
        and is_self(scope, second.value)
        and isinstance(first, cst.Name)
        and outermost.owner is not None
        and first.value == outermost.owner.name.value
    )


def in_classmethod(scope: "FunctionScope") -> bool:
    """Whether a scope is a classmethod's (or a closure's in one)."""
    while scope.enclosing is not None:
        scope = scope.enclosing
    return is_classmethod(scope.function)


def _calls_super(node: cst.BaseExpression) -> bool:
    """``super()`` or ``super(Cls, self)``."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"


def _is_super(node: cst.BaseExpression) -> bool:
    """``super()``, no arguments."""
    return _calls_super(node) and not cast(cst.Call, node).args


def _base(part: str) -> str:
    """``Client`` of ``Client()``, ``items`` of ``items[]``."""
    end = len(part)
    while part.endswith(("()", "[]"), 0, end):
        end -= 2
    return part[:end]


def _suffixes(part: str) -> List[str]:
    base = len(_base(part))
    return [part[i : i + 2] for i in range(base, len(part), 2)]


def _may_define_a_call(rest: Sequence[str]) -> bool:
    """Whether what follows a module's name can name a project function:
    ``f``, ``X.m`` (X a class, an instance or a factory call), a method of
    what a chain of calls returns (``get_manager().manager("mail").send``,
    ``Repository.from_session(s).get``),
    or a method of a fetched model instance (an attribute of an instance
    made elsewhere, ``X().attr.m``, is most often a model's relation: not
    looked into).  ``models.Order.objects.filter`` cannot, and does not make
    the models module parsed."""
    if len(rest) <= 2 or _fetched(rest):
        return True
    if len(rest) <= MAX_CALL_CHAIN and all(part.endswith("()") for part in rest[:-1]):
        return True
    # A class's factory, then a method of what it made: ``Repository.from_session(s).get``.
    return len(rest) <= MAX_CALL_CHAIN + 1 and all(part.endswith("()") for part in rest[1:-1])


def _fetched(rest: Sequence[str]) -> bool:
    """``Order.objects.get().m``, ``Order.objects.filter().first().m``: a
    method of an instance the ORM fetches."""
    return (
        len(rest) >= 4
        and rest[1] in catalog.ORM_MANAGERS
        and all(part[:-2] in catalog.ORM_QUERYSET_METHODS for part in rest[2:-2])
        and rest[-2][:-2] in catalog.ORM_INSTANCE_METHODS
        and rest[-2].endswith("()")
        and _base(rest[-1]) == rest[-1]
    )


def defines(module: "LoadedModule", name: str) -> bool:
    """Whether ``name`` is a module-level definition of ``module`` itself."""
    index = module.index
    if name in index.imports:
        return False
    return name in index.constants or name in index.functions or name in index.classes


def spelled_head(func: cst.BaseExpression) -> Optional[str]:
    """The name a call's callee starts with (``client`` of ``client.api.send``)."""
    node: cst.BaseExpression = func
    while not isinstance(node, cst.Name):
        if isinstance(node, cst.Attribute):
            node = node.value
        elif isinstance(node, cst.Call):
            node = node.func
        elif isinstance(node, cst.Subscript):
            node = node.value
        else:
            return None
    return node.value


def _bound_in_function(scope: "FunctionScope", name: str) -> bool:
    """Whether a function scope (or one enclosing it) binds ``name`` to
    what it resolves to (module-level bindings are not the function's)."""
    resolver: Optional[Resolver] = scope.resolver
    while resolver is not None and resolver.parent is not None:
        if name in resolver.bindings:
            return True
        resolver = resolver.parent
    return False


def bound_locally(scope: "FunctionScope", name: str) -> bool:
    """Whether ``name`` is a local of the scope, bound or not."""
    return _bound_in_function(scope, name) or _shadowed(scope, name)


def _shadowed(scope: Optional["FunctionScope"], name: str) -> bool:
    """Whether a parameter or an assignment of a function scope (or of one
    enclosing it) hides the module-level ``name``."""
    while scope is not None:
        if name in scope.parameters or name in scope.assigned:
            return True
        scope = scope.enclosing
    return False


def is_self(scope: Optional["FunctionScope"], name: str) -> bool:
    """Whether ``name`` is the instance (or class) a method runs for: the
    method's first parameter, seen from the method or a closure in it."""
    while scope is not None:
        if scope.owner is not None and scope.enclosing is None:
            return scope.parameters[:1] == (name,) and not is_staticmethod(scope.function)
        if name in scope.parameters or name in scope.assigned:
            return False
        scope = scope.enclosing
    return False


def parameters(definition: Definition) -> Tuple[str, ...]:
    """The parameters a call fills in (a method's ``self`` or ``cls`` is not one)."""
    params = definition.function.params
    names = tuple(p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params))
    implicit = definition.owner is not None and not is_staticmethod(definition.function)
    return names[1:] if implicit and names else names


def known_parameters(
    function: cst.FunctionDef, call: cst.Call, arguments: Sequence[Tuple[str, cst.BaseExpression]]
) -> Dict[str, bool]:
    """The truth of each parameter ``call`` passes a flag for
    (``save=False``) or leaves at a literal default (``blocking=False``,
    ``dry_run=None``): nothing is known behind a ``*args`` or ``**kwargs``
    splat, which may fill in any of them.  A number passed is no flag: a
    counter (``countdown(n=3)``) changes as the helper recurses; nor is a
    parameter the helper assigns anywhere (``done = True`` at the end of a
    loop body the walk reads once)."""
    if any(arg.star for arg in call.args):
        return {}
    known = {
        name: value.value == "True"
        for name, value in arguments
        if isinstance(value, cst.Name) and value.value in ("True", "False", "None")
    }
    bound = {name for name, _ in arguments}
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        truth = _literal_truth(param.default) if param.default is not None else None
        if truth is not None and param.name.value not in bound:
            known[param.name.value] = truth
    if known:
        for name in assigned_in(function):
            known.pop(name, None)
    return known


@functools.lru_cache(maxsize=1024)  # asked at every call of a helper with flags
def assigned_in(function: cst.FunctionDef) -> FrozenSet[str]:
    """The names a function's body binds anywhere."""
    assigned: Set[str] = set()
    for node in descendants(function.body):
        # By exact type, for every node of the body: ``isinstance`` against
        # libcst's classes (ABCs) is slow when it fails.
        kind = type(node)
        if kind in _BINDS_TARGET:
            note_assigned(assigned, cast(_TargetBinder, node).target)
        elif kind is cst.AsName:
            note_assigned(assigned, cast(cst.AsName, node).name)
    return frozenset(assigned)


_TargetBinder = Union[cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.CompFor]
_BINDS_TARGET = frozenset(
    {cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.CompFor}
)


def known_truth(
    test: cst.BaseExpression, known: Dict[str, bool], assigned: AbstractSet[str]
) -> Optional[bool]:
    """Whether an ``if`` test on such parameters (``blocking``, ``not
    blocking``, ``save and changed``) holds, when nothing reassigned them;
    None when not known."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = known_truth(test.expression, known, assigned)
        return None if inner is None else not inner
    if isinstance(test, cst.Name) and test.value in known and test.value not in assigned:
        return known[test.value]
    if isinstance(test, cst.BooleanOperation):
        left = known_truth(test.left, known, assigned)
        right = known_truth(test.right, known, assigned)
        deciding = isinstance(test.operator, cst.Or)  # the truth one side decides alone
        if deciding in (left, right):
            return deciding
        return None if None in (left, right) else not deciding
    return None


def _literal_truth(node: cst.BaseExpression) -> Optional[bool]:
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return node.value == "True"
    if isinstance(node, cst.Integer):
        number = literal_number(node)
        return None if number is None else number != 0
    if isinstance(node, cst.SimpleString):
        text = literal_text(node)
        return None if text is None else text != ""
    return None


def bind_arguments(
    parameters: Sequence[str], call: cst.Call
) -> Iterator[Tuple[str, cst.BaseExpression]]:
    """Each parameter a call's arguments fill in, with the argument."""
    positional = [a for a in call.args if a.keyword is None and a.star == ""]
    for name, arg in zip(parameters, positional):
        yield name, arg.value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in parameters:
            yield arg.keyword.value, arg.value


@functools.lru_cache(maxsize=1024)  # the same call is entered once per task that reaches it
def keywords_collected(
    function: cst.FunctionDef, parameters: Tuple[str, ...], call: cst.Call
) -> Optional[Tuple[str, cst.Dict]]:
    """The function's ``**kwargs`` parameter and what ``call`` fills it
    with, as a dict literal (``api.post("/charges", json=body)`` gives
    ``kwargs = {"json": body}``), so that a wrapper handing ``**kwargs`` on
    to a library is read at the call that names them.  None when the
    function has no such parameter, or the call splats arguments we
    cannot see."""
    star = function.params.star_kwarg
    if star is None or any(arg.star for arg in call.args):
        return None
    elements = [
        cst.DictElement(cst.SimpleString(repr(arg.keyword.value)), arg.value)
        for arg in call.args
        if arg.keyword is not None and arg.keyword.value not in parameters
    ]
    return star.name.value, cst.Dict(elements)


def fetched_instance(resolver: Resolver, value: cst.BaseExpression) -> Optional[str]:
    """What a shortcut that fetches a model instance gives, spelled as the
    ORM call it stands for: ``get_object_or_404(Order, pk=1)`` is
    ``Order.objects.get()``, so that ``order.m()`` runs ``Order.m``."""
    if not isinstance(value, cst.Call):
        return None
    if not catalog.matches_any(catalog.ORM_SHORTCUT_GETTERS, resolver.resolve(value.func)):
        return None
    model = argument(value, 0, "klass")
    resolved = resolver.resolve(model) if model is not None else None
    if resolved is None:
        return None
    if resolved.endswith("()") or resolved.rpartition(".")[2] in catalog.ORM_MANAGERS:
        return f"{resolved}.get()"  # a queryset or a manager
    return f"{resolved}.objects.get()"


def note_assigned(assigned: Set[str], target: cst.BaseExpression) -> None:
    """Add the names an assignment target binds (``a``, ``a, b``): locals
    from then on, which hide the module-level names they spell."""
    if isinstance(target, cst.Name):
        assigned.add(target.value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            note_assigned(assigned, element.value)
    elif isinstance(target, cst.StarredElement):
        note_assigned(assigned, target.value)


def closure_context(enclosing: Optional["FunctionScope"]) -> Tuple[object, ...]:
    """What a closure's free names resolve to where it is called: its walk
    is reused only where they resolve alike."""
    context: List[object] = []
    while enclosing is not None:
        context += [id(enclosing.function), tuple(sorted(enclosing.resolver.bindings.items()))]
        enclosing = enclosing.enclosing
    return tuple(context)
