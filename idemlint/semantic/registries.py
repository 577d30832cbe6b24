"""Registries a framework keeps of the project's classes, read as the
framework reads them, so that a lookup in one gives the project class it
returns.

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

from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from idemlint.names import literal_text
from idemlint.tasks import class_assignments

if TYPE_CHECKING:
    from idemlint.semantic.resolution import Calls
    from idemlint.project import Lookup


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
