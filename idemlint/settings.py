"""Effective settings of one run: which rules, and what extends the catalogue."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import FrozenSet, Tuple

from idemlint import catalog


@dataclass(frozen=True)
class Settings:
    """Everything that changes what idemlint reports.

    ``select`` and ``ignore`` are code prefixes (``IDM``, ``IDM00``,
    ``IDM002``); the longest matching prefix wins, as in ruff.
    """

    select: Tuple[str, ...] = ("IDM",)
    ignore: Tuple[str, ...] = ()
    task_decorators: Tuple[str, ...] = ()
    keyable_effects: Tuple[catalog.KeyableEffect, ...] = catalog.KEYABLE_EFFECTS
    non_keyable_effects: Tuple[catalog.NonKeyableEffect, ...] = (
        catalog.NON_KEYABLE_EFFECTS
    )
    key_arguments: FrozenSet[str] = field(default_factory=frozenset)

    def enabled(self, code: str) -> bool:
        selected = max((len(p) for p in self.select if code.startswith(p)), default=-1)
        ignored = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return selected > ignored


DEFAULT_SETTINGS = Settings()
