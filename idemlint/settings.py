"""Effective settings of one run: which rules, and what extends the catalogue."""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from typing import FrozenSet, Optional, Tuple

from idemlint import catalog


@dataclass(frozen=True)
class Settings:
    """Everything that changes what idemlint reports.

    ``select`` and ``ignore`` are code prefixes (``IDM``, ``IDM00``,
    ``IDM002``); the longest matching prefix wins, as in ruff.  Paths in
    ``per_file_ignores`` are globs relative to ``root``, the directory of the
    configuration file.  ``exclude`` of None keeps the default skipped
    directories.  ``key_arguments`` are normalised spellings (see
    :func:`idemlint.catalog.normalise_key_spelling`).  ``non_idempotent_http_apis``
    are the HTTP APIs whose PUT or DELETE is an effect all the same.
    """

    select: Tuple[str, ...] = ("IDM",)
    ignore: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    exclude: Optional[Tuple[str, ...]] = None
    extend_exclude: Tuple[str, ...] = ()
    task_decorators: Tuple[str, ...] = ()
    keyable_effects: Tuple[catalog.KeyableEffect, ...] = catalog.KEYABLE_EFFECTS
    non_keyable_effects: Tuple[catalog.NonKeyableEffect, ...] = (
        catalog.NON_KEYABLE_EFFECTS
    )
    key_arguments: FrozenSet[str] = field(default_factory=frozenset)
    non_idempotent_http_apis: Tuple[catalog.NonIdempotentHttpApi, ...] = (
        catalog.NON_IDEMPOTENT_HTTP_APIS
    )
    root: str = "."

    def enabled(self, code: str, path: Optional[str] = None) -> bool:
        """Whether ``code`` is reported (in ``path``, after per-file ignores)."""
        ignore = self.ignore
        if path is not None:
            ignore += self.ignored_in(path)
        selected = max((len(p) for p in self.select if code.startswith(p)), default=-1)
        ignored = max((len(p) for p in ignore if code.startswith(p)), default=-1)
        return selected > ignored

    def effect_methods(self) -> catalog.Glob:
        """The method names the side effects it knows end in (see
        :func:`idemlint.catalog.method_names`)."""
        return catalog.method_names(
            tuple(e.pattern for e in self.keyable_effects) + tuple(e.pattern for e in self.non_keyable_effects)
        )

    def ignored_in(self, path: str) -> Tuple[str, ...]:
        """Codes ``per-file-ignores`` switches off for ``path``."""
        if not self.per_file_ignores:
            return ()
        absolute = os.path.abspath(path)
        relative = os.path.relpath(absolute, os.path.abspath(self.root)).replace(os.sep, "/")
        codes: Tuple[str, ...] = ()
        for pattern, pattern_codes in self.per_file_ignores:
            if any(
                fnmatch.fnmatch(candidate, pattern)
                for candidate in (relative, os.path.basename(path), path)
            ) or relative.startswith(pattern.rstrip("/") + "/"):
                codes += pattern_codes
        return codes


DEFAULT_SETTINGS = Settings()
