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
from typing import TYPE_CHECKING, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import libcst as cst

from idemlint.names import literal_text
from idemlint.tasks import class_assignments

if TYPE_CHECKING:
    from idemlint.semantic.resolution import Calls
    from idemlint.project import LoadedModule, Lookup

# What a registration hands over, as written, and the module it is written in.
Registered = Tuple[cst.BaseExpression, "LoadedModule"]


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


class NamedRegistrations:
    """The project's registrations by name, read on the first lookup; what
    was read is recorded as looked up on every lookup."""

    def __init__(self, calls: "Calls") -> None:
        self.calls = calls
        # Each registration: the name as written, what is handed over, the module.
        self._read: Optional[Tuple[List[Tuple[cst.BaseExpression, Registered]], List["Lookup"]]] = None

    def under(
        self, name: str, texts: Callable[[cst.BaseExpression, "LoadedModule"], Optional[Sequence[str]]]
    ) -> List[Registered]:
        """Each object registered under ``name``, with its module; ``texts``
        reads what a registration's ``name=`` may be (a literal, a constant)."""
        return [registered for named, registered in self._registrations() if name in (texts(named, registered[1]) or ())]

    def _registrations(self) -> List[Tuple[cst.BaseExpression, Registered]]:
        project = self.calls.project
        if project is None:
            return []
        if self._read is not None:
            project.lookups += self._read[1]
            return self._read[0]
        start = len(project.lookups)
        found: List[Tuple[cst.BaseExpression, Registered]] = []
        for module in project.modules_registering():
            for call in _registering_calls(module):
                named = next(a.value for a in call.args if a.keyword is not None and a.keyword.value == "name")
                handed = next(a.value for a in call.args if a.keyword is None and not a.star)
                found.append((named, (handed, module)))
        self._read = (found, list(project.lookups[start:]))
        return found


def _registering_calls(module: "LoadedModule") -> Iterator[cst.Call]:
    """The calls of a module given a positional argument and a ``name=``:
    at module level, and in its functions whose CPython statement has one
    (the others are not parsed)."""
    functions = module.index.functions
    roots: List[cst.CSTNode] = [module.module]
    for name in functions:
        outline = functions.outline(name)
        if outline is None or any(_registers(node) for node in ast.walk(outline.statement)):
            function = functions.get(name)
            if function is not None:
                roots.append(function)
    seen = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, cst.Call) and _named_registration(node):
            yield node
        stack.extend(node.children)


def is_named_lookup(call: cst.Call) -> bool:
    """A call given a ``name=`` and no positional argument: a lookup by name."""
    return not any(a.keyword is None for a in call.args) and any(
        a.keyword is not None and a.keyword.value == "name" for a in call.args
    )


def _named_registration(call: cst.Call) -> bool:
    positional = any(a.keyword is None and not a.star for a in call.args)
    return positional and any(a.keyword is not None and a.keyword.value == "name" for a in call.args)


def _registers(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and bool(node.args) and any(k.arg == "name" for k in node.keywords)
