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
label no package has, or several have, is unknown: nothing is guessed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional

from idemlint.names import literal_text
from idemlint.tasks import class_assignments

if TYPE_CHECKING:
    from idemlint.calls import Calls


class AppLabels:
    """The project's Django apps by label, read on the first lookup."""

    def __init__(self, calls: "Calls") -> None:
        self.calls = calls
        self._packages: Optional[Dict[str, List[str]]] = None

    def models_module(self, label: str) -> Optional[str]:
        """The dotted name of the ``models`` module of the app labelled
        ``label``, when exactly one project package is that app."""
        packages = self._by_label().get(label, [])
        return f"{packages[0]}.models" if len(packages) == 1 else None

    def _by_label(self) -> Dict[str, List[str]]:
        if self._packages is None:
            self._packages = {}
            project = self.calls.project
            names = project.files if project is not None else {}
            for name in sorted(names):
                package, _, last = name.rpartition(".")
                if last == "models" and package:
                    self._packages.setdefault(self._label(package), []).append(package)
        return self._packages

    def _label(self, package: str) -> str:
        """The label an ``AppConfig`` in the package's ``apps`` module sets, else the default."""
        project = self.calls.project
        apps = self.calls.project_module(f"{package}.apps") if project is not None and f"{package}.apps" in project.files else None
        for name in list(apps.index.classes) if apps is not None else ():
            owner = apps.index.classes.get(name) if apps is not None else None
            label = class_assignments(owner).get("label") if owner is not None else None
            text = literal_text(label) if label is not None else None
            if text:
                return text
        return package.rpartition(".")[2]
