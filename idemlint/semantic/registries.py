"""Registries a framework keeps of the project's classes, read as the
framework reads them, so that a lookup in one gives the project class it
returns.

Objects registered under a name: a call handed a project function, class,
method or instance positionally and a literal ``name=``
(``config.register_service_factory(aws_session_factory, name="aws.session")``,
``registry.register(Mailer, name="mailer")``) registers it under that name,
and a call given that ``name=`` alone looks it up
(``request.find_service(name="aws.session")``), as Pyramid's services,
zope's named utilities and most containers do.  The registering calls are
read in the modules whose text may register (``register`` and ``name=``).

Django's app registry: ``apps.get_model("orders", "Order")``, or
``apps.get_model("orders.Order")``, is the model class ``Order`` of the
installed app labelled ``orders``.  An app's label is the last part of its
package's dotted name unless its ``AppConfig`` sets ``label``; its models
are the names its ``models`` module (or package) binds (Django 5.2
reference, "Applications": ``AppConfig.label``, ``apps.get_model``).  The
apps here are the project's packages that have a ``models`` module.  A
label no package has, or several have, is unknown, and so is every label
while some package's label cannot be read: nothing is guessed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.names import called_name, children, literal_text
from idemlint.tasks import class_assignments

if TYPE_CHECKING:
    from idemlint.semantic.resolution import Calls
    from idemlint.project import LoadedModule, Lookup, Project



class AppLabels:
    """The project's Django apps by label, read on the first lookup; what
    was read is recorded as looked up on every lookup, so that an analysis
    a cache or a summary keeps depends on it."""

    def __init__(self, calls: "Calls") -> None:
        self.calls = calls
        self._read: Optional[Tuple[Dict[str, List[str]], bool, List["Lookup"]]] = None

    def models_module(self, label: str) -> Optional[str]:
        """The dotted name of the ``models`` module of the app labelled
        ``label``, when exactly one project package is that app and no
        package's label is unknown (it could be any)."""
        packages, unknown = self._by_label()
        found = packages.get(label, [])
        return f"{found[0]}.models" if len(found) == 1 and not unknown else None

    def _by_label(self) -> Tuple[Dict[str, List[str]], bool]:
        project = self.calls.project
        if project is None:
            return {}, False
        if self._read is not None:
            project.lookups += self._read[2]
            return self._read[0], self._read[1]
        start = len(project.lookups)
        packages: Dict[str, List[str]] = {}
        unknown = False
        for name in sorted(project.files):
            package, _, last = name.rpartition(".")
            if last != "models" or not package:
                continue
            label = self._label(package)
            if label is None:
                unknown = True
            else:
                packages.setdefault(label, []).append(package)
        self._read = (packages, unknown, list(project.lookups[start:]))
        return packages, unknown

    def _label(self, package: str) -> Optional[str]:
        """The label the package's ``apps`` module sets (every ``AppConfig``
        there that sets one agrees), else the last part of its name; None
        when a label is set that cannot be read, or several differ."""
        apps = self.calls.project_module(f"{package}.apps")  # recorded, found or not
        labels = set()
        for name in list(apps.index.classes) if apps is not None else ():
            owner = apps.index.classes.get(name) if apps is not None else None
            label = class_assignments(owner).get("label") if owner is not None else None
            if label is not None:
                labels.add(literal_text(label))
        if not labels:
            return package.rpartition(".")[2]
        only = labels.pop() if len(labels) == 1 else None
        return only or None


@dataclass(frozen=True)
class Registration:
    """One call registering an object under a name: the ``name=`` as
    written (``literal``: its text when a string literal), what is handed
    over, what it is registered with (``config``, ``registry``), whether
    the method registers a factory (``register_service_factory``: the
    lookup gets what calling it returns), and where it is written (the
    function around it, None at module level, and the module)."""

    named: cst.BaseExpression
    literal: Optional[str]
    handed: cst.BaseExpression
    receiver: Optional[cst.BaseExpression]
    factory: bool
    function: Optional[cst.FunctionDef]
    module: "LoadedModule"


class NamedRegistrations:
    """The project's registrations by name, read once per project (on the
    first lookup); what was read is recorded as looked up on every lookup."""

    def __init__(self, calls: "Calls") -> None:
        self.calls = calls

    def under(
        self, name: str, texts: Callable[[Registration], Optional[Sequence[str]]]
    ) -> List[Registration]:
        """Each registration under ``name``; ``texts`` reads what a ``name=``
        that is no string literal may be (a constant)."""
        project = self.calls.project
        if project is None:
            return []
        by_literal, unspelled = project.remembered("registrations by name", lambda: _registrations(project))
        return [*by_literal.get(name, ()), *(r for r in unspelled if name in (texts(r) or ()))]


def _registrations(project: "Project") -> Tuple[Dict[str, List[Registration]], List[Registration]]:
    """The project's registrations, by the literal name they are made
    under, and those made under a name that is no literal."""
    by_literal: Dict[str, List[Registration]] = {}
    unspelled: List[Registration] = []
    for module in project.modules_registering():
        for call, function in _registering_calls(module):
            named = next(a.value for a in call.args if a.keyword is not None and a.keyword.value == "name")
            handed = next(a.value for a in call.args if a.keyword is None and not a.star)
            method = called_name(call) or ""
            receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
            literal = literal_text(named)
            registration = Registration(named, literal, handed, receiver, "factory" in method.lower(), function, module)
            if literal is not None:
                by_literal.setdefault(literal, []).append(registration)
            else:
                unspelled.append(registration)
    return by_literal, unspelled


def _registering_calls(module: "LoadedModule") -> Iterator[Tuple[cst.Call, Optional[cst.FunctionDef]]]:
    """The calls of a module that register under a ``name=`` (a method
    whose name says it registers, given a positional argument), each with
    the function it is written in: at module level, in the classes and
    functions parsed up front, and in the functions left as text whose
    CPython statement has such a call (the others are not parsed)."""
    functions = module.index.functions
    roots: List[cst.CSTNode] = [module.module]
    for name in functions:
        outline = functions.outline(name)
        if outline is not None and any(_registers(node) for node in ast.walk(outline.statement)):
            function = functions.get(name)
            if function is not None:
                roots.append(function)
    stack: List[Tuple[cst.CSTNode, Optional[cst.FunctionDef]]] = [(root, None) for root in roots]
    while stack:
        node, around = stack.pop()
        if isinstance(node, cst.FunctionDef):
            around = node
        elif isinstance(node, cst.Call) and _named_registration(node):
            yield node, around
        stack.extend((child, around) for child in children(node))


def is_named_lookup(call: cst.Call) -> bool:
    """A call given a ``name=`` and no positional argument, whose method is
    not a row fetch or a task's own (``objects.get(name=...)``,
    ``send_task(name=...)``): a lookup by name."""
    return (
        called_name(call) not in catalog.NOT_NAMED_LOOKUPS
        and not any(a.keyword is None for a in call.args)
        and any(a.keyword is not None and a.keyword.value == "name" for a in call.args)
    )


def _named_registration(call: cst.Call) -> bool:
    if "register" not in (called_name(call) or "").lower():
        return False
    positional = any(a.keyword is None and not a.star for a in call.args)
    return positional and any(a.keyword is not None and a.keyword.value == "name" for a in call.args)


def _registers(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or not node.args or not any(k.arg == "name" for k in node.keywords):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return "register" in name.lower()
