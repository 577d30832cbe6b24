"""``[tool.idemlint]`` in ``pyproject.toml`` -> :class:`Settings`, validated.

The table is found by walking up from the checked paths to the first
``pyproject.toml`` that has one, or named with ``--config``.  Every value is
checked before any analysis: a file that cannot be read (not a regular
file, too large, not UTF-8, not TOML), a ``tool`` that is not a table, an
unknown key, a wrong type, an invalid element of a list, code or pattern is
a :class:`ConfigError` of one line naming the file and the key, never a run
with half a configuration.  The file is opened without blocking (a FIFO
named ``pyproject.toml`` cannot hang the run) and read up to
``MAX_CONFIG_BYTES``.

```toml
[tool.idemlint]
select = ["IDM"]                  # code prefixes to report
ignore = ["IDM004"]               # code prefixes to skip
extend-select = []                # added to select
per-file-ignores = { "tests/*" = ["IDM"] }
exclude = []                      # replaces the default skipped directories
extend-exclude = ["migrations"]   # added to them
task-decorators = ["instrumented_task", "myproject.tasks.retrying_task"]
key-arguments = ["dedupe_token"]  # extra idempotency-key spellings

[tool.idemlint.side-effects]
keyable = ["myproject.billing.*.charge"]     # globs over resolved names
non-keyable = ["myproject.notify.send_*"]
```
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import replace
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Sequence, Tuple

from idemlint import catalog
from idemlint.escape import visible
from idemlint.reading import FileTooLarge, NotRegularFile, read_regular
from idemlint.settings import DEFAULT_SETTINGS, Settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

CODE_PREFIX = re.compile(r"IDM\d{0,3}\Z")
MAX_CONFIG_BYTES = 4 * 1024 * 1024
"""A larger ``pyproject.toml`` is refused: no real one comes near it."""


class ConfigError(Exception):
    """A configuration that cannot be used; the message names file and key."""


def find_config(paths: Sequence[str]) -> Optional[str]:
    """The nearest ``pyproject.toml`` with a ``[tool.idemlint]`` table, or
    the nearest one that cannot be read as a ``pyproject.toml`` at all (so
    that :func:`load_settings` reports it rather than skipping past it)."""
    start = _common_directory(paths)
    directory = start
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.lexists(candidate) and _has_table(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _common_directory(paths: Sequence[str]) -> str:
    absolute = [os.path.abspath(p) for p in paths] or [os.getcwd()]
    directories = [p if os.path.isdir(p) else os.path.dirname(p) for p in absolute]
    try:
        return os.path.commonpath(directories)
    except ValueError:  # different drives
        return os.getcwd()


def _has_table(path: str) -> bool:
    try:
        tool = _read(path).get("tool", {})
    except ConfigError:
        return True  # report the broken file instead of skipping past it
    return not isinstance(tool, dict) or "idemlint" in tool


def _read(path: str) -> Dict[str, Any]:
    shown = visible(path)
    try:
        data = read_regular(path, limit=MAX_CONFIG_BYTES)
    except IsADirectoryError:
        raise ConfigError(f"{shown}: cannot read configuration: not a regular file (a directory)") from None
    except NotRegularFile as error:
        raise ConfigError(f"{shown}: cannot read configuration: not a regular file ({error.kind})") from None
    except FileTooLarge:
        raise ConfigError(
            f"{shown}: cannot read configuration: larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MiB"
        ) from None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ConfigError(f"{shown}: cannot read configuration: {reason}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{shown}: cannot read configuration: not UTF-8 (byte {error.start + 1})"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{shown}: invalid TOML: {visible(str(error))}") from None
    except RecursionError:
        raise ConfigError(f"{shown}: invalid TOML: nested too deeply") from None


def load_settings(path: Optional[str], base: Settings = DEFAULT_SETTINGS) -> Settings:
    """Settings from the ``[tool.idemlint]`` table of ``path`` (defaults if None)."""
    if path is None:
        return base
    shown = visible(path)
    tool = _read(path).get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{shown}: 'tool' must be a table, not {_toml_type(tool)}")
    table = tool.get("idemlint")
    if table is None:
        raise ConfigError(f"{shown}: no [tool.idemlint] table")
    if not isinstance(table, dict):
        raise ConfigError(f"{shown}: 'tool.idemlint' must be a table, not {_toml_type(table)}")
    return _settings_from_table(table, path, base)


def _toml_type(value: Any) -> str:
    """What a TOML value is, as the TOML specification names it."""
    names = ((bool, "a boolean"), (int, "an integer"), (float, "a float"), (str, "a string"),
             (list, "an array"), (dict, "a table"))
    return next((name for kind, name in names if isinstance(value, kind)), "a date or time")


def _settings_from_table(table: Mapping[str, Any], path: str, base: Settings) -> Settings:
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ConfigError(
            f"{visible(path)}: unknown key {unknown[0]!r} in [tool.idemlint] "
            f"(known: {', '.join(sorted(_KEYS))})"
        )
    values: Dict[str, Any] = {}
    for key, value in table.items():
        values[key] = _KEYS[key](value, _where(path, key))
    select = values.get("select", base.select) + values.get("extend-select", ())
    return replace(
        base,
        select=select,
        ignore=values.get("ignore", base.ignore),
        per_file_ignores=values.get("per-file-ignores", base.per_file_ignores),
        exclude=values.get("exclude", base.exclude),
        extend_exclude=values.get("extend-exclude", base.extend_exclude),
        task_decorators=values.get("task-decorators", base.task_decorators),
        key_arguments=frozenset(
            catalog.normalise_key_spelling(name) for name in values.get("key-arguments", ())
        )
        or base.key_arguments,
        keyable_effects=base.keyable_effects + values.get("side-effects", {}).get("keyable", ()),
        non_keyable_effects=base.non_keyable_effects
        + values.get("side-effects", {}).get("non-keyable", ()),
        root=os.path.dirname(os.path.abspath(path)),
    )


def _where(path: str, key: str) -> str:
    return f"{visible(path)}: '{key}' in [tool.idemlint]"


def _strings(value: Any, where: str) -> Tuple[str, ...]:
    if not isinstance(value, list):
        raise ConfigError(f"{where} must be a list of strings, not {_toml_type(value)}")
    for number, item in enumerate(value, 1):
        if not isinstance(item, str):
            raise ConfigError(f"{where} must be a list of strings: item {number} is {_toml_type(item)}")
    return tuple(value)


def _codes(value: Any, where: str) -> Tuple[str, ...]:
    codes = _strings(value, where)
    for code in codes:
        if not CODE_PREFIX.match(code):
            raise ConfigError(
                f"{where}: {code!r} is not an idemlint code or prefix (IDM, IDM00, IDM002)"
            )
    return codes


def _per_file_ignores(value: Any, where: str) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table of glob = [codes], not {_toml_type(value)}")
    return tuple((glob, _codes(codes, f"{where}, {glob!r}")) for glob, codes in value.items())


def _side_effects(value: Any, where: str) -> Dict[str, Tuple[Any, ...]]:
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where} must be a table with 'keyable' and 'non-keyable' lists, not {_toml_type(value)}"
        )
    unknown = sorted(set(value) - {"keyable", "non-keyable"})
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: keyable, non-keyable)")
    effects: Dict[str, Tuple[Any, ...]] = {}
    if "keyable" in value:
        effects["keyable"] = tuple(
            catalog.KeyableEffect(pattern, "configured", "repeats the side effect")
            for pattern in _patterns(value["keyable"], f"{where}: 'keyable'")
        )
    if "non-keyable" in value:
        effects["non-keyable"] = tuple(
            catalog.NonKeyableEffect(pattern, "configured side effect")
            for pattern in _patterns(value["non-keyable"], f"{where}: 'non-keyable'")
        )
    return effects


def _patterns(value: Any, where: str) -> Tuple[str, ...]:
    patterns = _strings(value, where)
    for pattern in patterns:
        if not pattern:
            raise ConfigError(f"{where}: invalid pattern '' (empty)")
        try:
            catalog.compile_glob(pattern)
        except ValueError as error:
            raise ConfigError(f"{where}: invalid pattern {pattern!r} ({error})") from None
    return patterns


def _key_arguments(value: Any, where: str) -> Tuple[str, ...]:
    names = _strings(value, where)
    for name in names:
        if not name.isidentifier() and not re.fullmatch(r"[A-Za-z0-9_-]+", name):
            raise ConfigError(f"{where}: {name!r} is not an argument or header name")
    return names


def _task_decorators(value: Any, where: str) -> Tuple[str, ...]:
    names = _strings(value, where)
    invalid = invalid_decorator_names(names)
    if invalid:
        raise ConfigError(f"{where}: {invalid[0]!r} is not a name or a dotted name")
    return names


def invalid_decorator_names(names: Iterable[str]) -> Tuple[str, ...]:
    """The names of ``names`` that cannot name a decorator (``task``,
    ``myproject.tasks.retrying_task``)."""
    return tuple(
        name for name in names if not all(part.isidentifier() for part in name.split("."))
    )


_KEYS: Dict[str, Callable[[Any, str], Any]] = {
    "select": _codes,
    "ignore": _codes,
    "extend-select": _codes,
    "per-file-ignores": _per_file_ignores,
    "exclude": _strings,
    "extend-exclude": _strings,
    "task-decorators": _task_decorators,
    "key-arguments": _key_arguments,
    "side-effects": _side_effects,
}
