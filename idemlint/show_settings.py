"""``idemlint check --show-settings PATH``: the settings that apply to one path.

Like ``ruff check --show-settings``: which configuration file applies (the
nearest ``pyproject.toml`` with a ``[tool.idemlint]`` table, or the one
named with ``--config``) and every setting's value after the command
line's options, written as the configuration keys are.
"""

from __future__ import annotations

import json
import os
from typing import Iterable, List, Sequence, Tuple, Union

from idemlint import catalog
from idemlint.config import Configurations
from idemlint.discovery import PACKAGE_NAMES_SKIPPED_AS_OUTPUT, SKIPPED_DIRECTORIES
from idemlint.escape import visible
from idemlint.settings import PathPattern, Settings


def render_settings(path: str, configurations: Configurations) -> str:
    """The report, one ``key = value`` line per setting; raises
    :class:`idemlint.config.ConfigError` for a configuration that cannot be used."""
    directory = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    config = configurations.config_file(directory)
    settings = configurations.for_directory(directory)
    root = os.path.abspath(settings.root)
    lines = [
        f"Settings for: {visible(path)}",
        f"Configuration file: {visible(config) if config else 'none (the defaults)'}",
        f"Paths are relative to: {visible(root)}",
        "",
        f"select = {_strings(settings.select)}",
        f"ignore = {_strings(settings.ignore)}",
        f"per-file-ignores = {_per_file_ignores(settings.per_file_ignores, root)}",
        f"exclude = {_exclude(settings, root)}",
        f"extend-exclude = {_patterns(settings.extend_exclude, root)}",
        f"respect-gitignore = {'true' if settings.respect_gitignore else 'false'}",
        f"task-decorators = {_strings(settings.task_decorators)}",
        f"key-arguments = {_strings(sorted(settings.key_arguments))}",
        _configured("side-effects.keyable", settings.keyable_effects, catalog.KEYABLE_EFFECTS),
        _configured("side-effects.non-keyable", settings.non_keyable_effects, catalog.NON_KEYABLE_EFFECTS),
    ]
    return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    return visible(json.dumps(text, ensure_ascii=False))


def _strings(values: Iterable[str]) -> str:
    return "[" + ", ".join(_quoted(value) for value in values) + "]"


def _pattern(pattern: PathPattern, root: str) -> str:
    """As written when relative to the configuration's directory, else from its own directory."""
    if os.path.abspath(pattern.root) == root:
        return pattern.pattern
    return os.path.join(pattern.root, pattern.pattern.lstrip("/"))


def _patterns(patterns: Sequence[PathPattern], root: str) -> str:
    return _strings(_pattern(pattern, root) for pattern in patterns)


def _per_file_ignores(entries: Sequence[Tuple[PathPattern, Tuple[str, ...]]], root: str) -> str:
    if not entries:
        return "{}"
    return "{ " + ", ".join(f"{_quoted(_pattern(p, root))} = {_strings(codes)}" for p, codes in entries) + " }"


def _exclude(settings: Settings, root: str) -> str:
    if settings.exclude is not None:
        return _patterns(settings.exclude, root)
    defaults = sorted(SKIPPED_DIRECTORIES | {"*.egg-info"})
    packages = ", ".join(sorted(PACKAGE_NAMES_SKIPPED_AS_OUTPUT))
    return (
        f"{_strings(defaults)}  # the defaults, and virtual environments (a pyvenv.cfg); "
        f"{packages} only without an __init__.py"
    )


_Effects = Union[Sequence[catalog.KeyableEffect], Sequence[catalog.NonKeyableEffect]]


def _configured(key: str, effects: _Effects, built_in: _Effects) -> str:
    """The configured patterns (the settings hold them after the catalogue's)."""
    added: List[str] = [effect.pattern for effect in effects[len(built_in) :]]
    return f"{key} = {_strings(added)}  # and the catalogue's {len(built_in)}"
