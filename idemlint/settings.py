"""Effective settings: which rules, which files, and what extends the catalogue.

One :class:`Settings` holds what one configuration says (a
``[tool.idemlint]`` table, with the command line's options on top); which
one applies to a file is a :class:`SettingsSource`'s answer (see
:class:`idemlint.config.Configurations`: the nearest ``pyproject.toml``,
as ruff's hierarchical configuration).
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import FrozenSet, Iterator, Optional, Protocol, Tuple

from idemlint import catalog
from idemlint.deadline import DEFAULT_TIMEOUT


@dataclass(frozen=True)
class PathPattern:
    """A glob over paths (``*`` matches any characters, ``/`` included;
    ``?``; ``[seq]``) as a configuration writes it, and the absolute
    directory it is relative to: the configuration file's directory, or
    the current directory for a command-line option (as ruff's).

    ``app/migrations`` names one directory below ``root``; a pattern
    without ``/`` (``migrations``, ``test_*.py``) also matches by name.
    """

    pattern: str
    root: str

    def __str__(self) -> str:
        return self.pattern

    @cached_property
    def _anchored(self) -> str:
        # The root's own glob characters ("[" in a directory name) stay literal.
        return os.path.join(_escape(self.root), self.pattern.strip("/").replace("/", os.sep))

    def matches_entry(self, path: str) -> bool:
        """Whether ``path`` itself (a file or directory met in a walk) is
        matched: its path below ``root``, or its name."""
        absolute = os.path.abspath(path)
        pattern = self.pattern.strip("/")
        if "/" not in pattern and fnmatch.fnmatchcase(os.path.basename(absolute), pattern):
            return True
        return fnmatch.fnmatchcase(absolute, self._anchored)

    def matches(self, path: str) -> bool:
        """Whether ``path`` or one of the directories holding it below
        ``root`` is matched (a file named on the command line, a
        ``per-file-ignores`` entry: ``tests`` covers ``tests/unit/x.py``)."""
        return any(self.matches_entry(candidate) for candidate in self._candidates(path))

    def _candidates(self, path: str) -> Iterator[str]:
        absolute = os.path.abspath(path)
        yield absolute
        root = os.path.abspath(self.root).rstrip(os.sep) + os.sep
        parent = os.path.dirname(absolute)
        while parent.startswith(root) and parent != absolute:
            yield parent
            absolute, parent = parent, os.path.dirname(parent)


def _escape(path: str) -> str:
    """``path`` as a glob matching only itself (fnmatch has no backslash escapes)."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in path)


class SettingsSource(Protocol):
    """Which settings apply where: to a file, and to the entries of a directory."""

    def for_file(self, path: str) -> Settings: ...

    def for_directory(self, path: str) -> Settings: ...


@dataclass(frozen=True)
class Settings:
    """Everything that changes what idemlint reports.

    ``select`` and ``ignore`` are code prefixes (``IDM``, ``IDM00``,
    ``IDM002``), upper case; the longest matching prefix wins, as in ruff.
    Paths in ``per_file_ignores``, ``exclude`` and ``extend_exclude`` carry
    the directory they are relative to (:class:`PathPattern`); ``root`` is
    the configuration file's directory.  ``exclude`` of None keeps the
    default skipped directories.  ``key_arguments`` are normalised
    spellings (see :func:`idemlint.catalog.normalise_key_spelling`).
    ``non_idempotent_http_apis`` are the HTTP APIs whose PUT or DELETE is
    an effect all the same.  ``respect_gitignore``: directory walks skip
    what ``.gitignore`` files ignore.  ``timeout``: the seconds one task
    file's analysis may take (:mod:`idemlint.deadline`).
    """

    select: Tuple[str, ...] = ("IDM",)
    ignore: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[PathPattern, Tuple[str, ...]], ...] = ()
    exclude: Optional[Tuple[PathPattern, ...]] = None
    extend_exclude: Tuple[PathPattern, ...] = ()
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
    respect_gitignore: bool = True
    timeout: float = DEFAULT_TIMEOUT

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
        codes: Tuple[str, ...] = ()
        for pattern, pattern_codes in self.per_file_ignores:
            if pattern.matches(path):
                codes += pattern_codes
        return codes

    def excludes(self) -> Tuple[PathPattern, ...]:
        """What a walk skips besides the default directories (when kept)."""
        return (self.exclude or ()) + self.extend_exclude


DEFAULT_SETTINGS = Settings()


@dataclass(frozen=True)
class Fixed:
    """The same settings for every file (``--config``, and the API's default)."""

    settings: Settings

    def for_file(self, path: str) -> Settings:
        return self.settings

    def for_directory(self, path: str) -> Settings:
        return self.settings
