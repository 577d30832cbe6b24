"""``[tool.idemlint]`` in ``pyproject.toml`` -> :class:`Settings`, validated.

Which table applies to a file is ruff's hierarchical configuration: the
nearest ``pyproject.toml`` above the file that has a ``[tool.idemlint]``
table (tables are not merged), or the one file named with ``--config`` for
every file (:class:`Configurations`).  Paths in a table (``exclude``,
``extend-exclude``, ``per-file-ignores``) are relative to its file's
directory.  Every value is checked before any analysis: a file that
cannot be read (not a regular file, too large, not UTF-8, not TOML), a
``tool`` that is not a table, an unknown key, a wrong type, an invalid
element of a list, code or pattern is a :class:`ConfigError` of one line
naming the file, the line (found in the text: ``tomllib`` keeps no
positions) and the key, with the nearest known spelling when there is one,
never a run with half a configuration.  The file is opened without
blocking (a FIFO named ``pyproject.toml`` cannot hang the run) and read up
to ``MAX_CONFIG_BYTES``.

```toml
[tool.idemlint]
select = ["IDM"]                  # code prefixes to report (any case)
ignore = ["IDM004"]               # code prefixes to skip
extend-select = []                # added to select
per-file-ignores = { "tests/*" = ["IDM"] }
exclude = []                      # replaces the default skipped directories
extend-exclude = ["migrations"]   # added to them
respect-gitignore = true          # directory walks skip what git ignores
task-decorators = ["instrumented_task", "myproject.tasks.retrying_task"]
key-arguments = ["dedupe_token"]  # extra idempotency-key spellings

[tool.idemlint.side-effects]
keyable = ["myproject.billing.*.charge"]     # globs over resolved names
non-keyable = ["myproject.notify.send_*"]
```
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from idemlint import catalog
from idemlint.codes import RULE_CODES
from idemlint.escape import visible
from idemlint.reading import FileTooLarge, NotRegularFile, read_regular
from idemlint.report.meta import UNUSED_NOQA
from idemlint.settings import DEFAULT_SETTINGS, PathPattern, Settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

CODE_PREFIX = re.compile(r"IDM\d{0,3}\Z")
SELECTABLE_CODES = tuple(sorted(RULE_CODES | {UNUSED_NOQA.code}))
"""The codes ``select`` and ``ignore`` choose among: the rules' and IDM800."""
MAX_CONFIG_BYTES = 4 * 1024 * 1024
"""A larger ``pyproject.toml`` is refused: no real one comes near it."""
CONFIG_NAME = "pyproject.toml"


class ConfigError(Exception):
    """A configuration that cannot be used; the message names file and key."""


def code_problem(code: str) -> Optional[str]:
    """Why ``code`` (upper case) cannot be selected or ignored, or None:
    an idemlint code or a prefix of one (``IDM``, ``IDM00``, ``IDM002``)."""
    shaped = CODE_PREFIX.match(code) is not None
    if shaped and any(known.startswith(code) for known in SELECTABLE_CODES):
        return None
    if shaped:
        reason = f"unknown code {code!r}"
    else:
        reason = f"{code!r} is not an idemlint code or prefix (IDM, IDM00, IDM002)"
    padded = f"IDM{code[3:].zfill(3)}" if shaped else ""  # IDM2, IDM02: the zeros left out
    import difflib  # here, as below: only a mistaken configuration needs it

    close = [padded] if padded in SELECTABLE_CODES else difflib.get_close_matches(code, SELECTABLE_CODES, n=1)
    return f"{reason}; did you mean {close[0]!r}?" if close else f"{reason}; `idemlint rules` lists the codes"


def common_directory(paths: Sequence[str]) -> str:
    """The directory holding every one of ``paths`` (the current one for none)."""
    absolute = [os.path.abspath(p) for p in paths] or [os.getcwd()]
    directories = [p if os.path.isdir(p) else os.path.dirname(p) for p in absolute]
    try:
        return os.path.commonpath(directories)
    except ValueError:  # different drives
        return os.getcwd()


@dataclass(frozen=True)
class Overrides:
    """What the command line sets on top of every configuration file, as
    ruff's options do: ``select`` replaces the configured selection
    (``extend_select`` adds to it), ``per_file_ignores`` replaces the
    configured table (``extend_per_file_ignores`` adds to it), the others
    add to what is configured; ``respect_gitignore`` and ``timeout`` None keep it."""

    select: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    per_file_ignores: Optional[Tuple[Tuple[PathPattern, Tuple[str, ...]], ...]] = None
    extend_per_file_ignores: Tuple[Tuple[PathPattern, Tuple[str, ...]], ...] = ()
    extend_exclude: Tuple[PathPattern, ...] = ()
    task_decorators: Tuple[str, ...] = ()
    respect_gitignore: Optional[bool] = None
    timeout: Optional[float] = None

    def apply(self, settings: Settings) -> Settings:
        per_file_ignores = settings.per_file_ignores if self.per_file_ignores is None else self.per_file_ignores
        return replace(
            settings,
            select=(self.select or settings.select) + self.extend_select,
            ignore=settings.ignore + self.ignore,
            per_file_ignores=per_file_ignores + self.extend_per_file_ignores,
            extend_exclude=settings.extend_exclude + self.extend_exclude,
            task_decorators=settings.task_decorators + self.task_decorators,
            respect_gitignore=(
                settings.respect_gitignore if self.respect_gitignore is None else self.respect_gitignore
            ),
            timeout=settings.timeout if self.timeout is None else self.timeout,
        )


class Configurations:
    """Which settings apply to each file and directory: those of the
    nearest ``pyproject.toml`` with a ``[tool.idemlint]`` table above it, or
    of ``named`` (``--config``) for all, with ``overrides`` on top; the
    defaults (with them) where no file has the table.

    Each file is read and checked once, when a file or directory first
    needs it; a :class:`ConfigError` is raised then (before anything of
    the run is analysed: discovery asks first).
    """

    def __init__(self, named: Optional[str] = None, overrides: Overrides = Overrides()) -> None:
        self.named = named
        self.overrides = overrides
        self._nearest: Dict[str, Optional[str]] = {}
        self._settings: Dict[Optional[str], Settings] = {}
        # Each file's directory as spelled to its settings: a run asks per
        # file, thousands of times, and the working directory never changes.
        self._by_spelled_directory: Dict[str, Settings] = {}

    def config_file(self, directory: str) -> Optional[str]:
        """The configuration file that applies to the entries of ``directory``."""
        if self.named is not None:
            return self.named
        directory = os.path.abspath(directory)
        climbed: List[str] = []
        found: Optional[str] = None
        while directory not in self._nearest:
            climbed.append(directory)
            candidate = os.path.join(directory, CONFIG_NAME)
            if os.path.lexists(candidate) and _has_table(candidate):
                found = candidate
                break
            parent = os.path.dirname(directory)
            if parent == directory:
                break
            directory = parent
        else:
            found = self._nearest[directory]
        for step in climbed:
            self._nearest[step] = found
        return found

    def for_directory(self, directory: str) -> Settings:
        """The settings of the entries of ``directory``."""
        config = self.config_file(directory)
        if config not in self._settings:
            self._settings[config] = self.overrides.apply(load_settings(config))
        return self._settings[config]

    def for_file(self, path: str) -> Settings:
        spelled = os.path.dirname(path)
        if spelled not in self._by_spelled_directory:
            self._by_spelled_directory[spelled] = self.for_directory(os.path.dirname(os.path.abspath(path)))
        return self._by_spelled_directory[spelled]


def _has_table(path: str) -> bool:
    """Whether ``path`` has a ``[tool.idemlint]`` table, or cannot be read
    as a ``pyproject.toml`` but names idemlint (reported rather than skipped
    past).  A broken file that does not name idemlint is another tool's or
    a project template's (``{{cookiecutter.name}}``), not a configuration
    whose error should stop the run."""
    try:
        tool = _read(path)[1].get("tool", {})
    except ConfigError:
        return _names_idemlint(path)
    return not isinstance(tool, dict) or "idemlint" in tool


def _names_idemlint(path: str) -> bool:
    try:
        return b"idemlint" in read_regular(path, limit=MAX_CONFIG_BYTES)
    except (OSError, NotRegularFile, FileTooLarge):
        return False


def _read(path: str) -> Tuple[str, Dict[str, Any]]:
    """The file's text and its TOML document."""
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
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{shown}: invalid TOML: {visible(str(error))}") from None
    except RecursionError:
        raise ConfigError(f"{shown}: invalid TOML: nested too deeply") from None


def load_settings(path: Optional[str], base: Settings = DEFAULT_SETTINGS) -> Settings:
    """Settings from the ``[tool.idemlint]`` table of ``path`` (defaults if None)."""
    if path is None:
        return base
    shown = visible(path)
    text, document = _read(path)
    tool = document.get("tool", {})
    place = _Place(path, text)
    if not isinstance(tool, dict):
        raise ConfigError(f"{place.at(('tool',))}'tool' must be a table, not {_toml_type(tool)}")
    table = tool.get("idemlint")
    if table is None:
        raise ConfigError(f"{shown}: no [tool.idemlint] table")
    if not isinstance(table, dict):
        raise ConfigError(
            f"{place.at(('tool', 'idemlint'))}'tool.idemlint' must be a table, not {_toml_type(table)}"
        )
    return _settings_from_table(table, place, base)


def _toml_type(value: Any) -> str:
    """What a TOML value is, as the TOML specification names it."""
    names = ((bool, "a boolean"), (int, "an integer"), (float, "a float"), (str, "a string"),
             (list, "an array"), (dict, "a table"))
    return next((name for kind, name in names if isinstance(value, kind)), "a date or time")


def _settings_from_table(table: Mapping[str, Any], place: "_Place", base: Settings) -> Settings:
    for key in table:
        if key not in _KEYS:
            raise ConfigError(place.at(_TABLE + (key,)) + _unknown_key(key, _KEYS, "[tool.idemlint]"))
    values: Dict[str, Any] = {}
    for key, value in table.items():
        values[key] = _KEYS[key](value, _Where(place, _TABLE + (key,)))
    select = values.get("select", base.select) + values.get("extend-select", ())
    root = os.path.dirname(os.path.abspath(place.path))

    def patterns(key: str) -> Tuple[PathPattern, ...]:
        return tuple(PathPattern(pattern, root) for pattern in values[key])

    return replace(
        base,
        select=select,
        ignore=values.get("ignore", base.ignore),
        per_file_ignores=(
            tuple((PathPattern(glob, root), codes) for glob, codes in values["per-file-ignores"])
            if "per-file-ignores" in values
            else base.per_file_ignores
        ),
        exclude=patterns("exclude") if "exclude" in values else base.exclude,
        extend_exclude=patterns("extend-exclude") if "extend-exclude" in values else base.extend_exclude,
        respect_gitignore=values.get("respect-gitignore", base.respect_gitignore),
        timeout=values.get("timeout", base.timeout),
        task_decorators=values.get("task-decorators", base.task_decorators),
        key_arguments=frozenset(
            catalog.normalise_key_spelling(name) for name in values.get("key-arguments", ())
        )
        or base.key_arguments,
        keyable_effects=base.keyable_effects + values.get("side-effects", {}).get("keyable", ()),
        non_keyable_effects=base.non_keyable_effects
        + values.get("side-effects", {}).get("non-keyable", ()),
        root=root,
    )


def _unknown_key(key: str, known: Iterable[str], table: str) -> str:
    import difflib

    close = difflib.get_close_matches(key, sorted(known), n=1)
    if close:
        return f"unknown key {key!r} in {table}; did you mean {close[0]!r}?"
    return f"unknown key {key!r} in {table} (known: {', '.join(sorted(known))})"


_TABLE = ("tool", "idemlint")

# A TOML key: bare, "basic" (with escapes) or 'literal'; dotted.
_KEY_PART = r"""(?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)"""
_DOTTED = rf"{_KEY_PART}(?:[ \t]*\.[ \t]*{_KEY_PART})*"
_HEADER = re.compile(rf"[ \t]*\[\[?[ \t]*(?P<key>{_DOTTED})[ \t]*\]")
_ASSIGNMENT = re.compile(rf"[ \t]*(?P<key>{_DOTTED})[ \t]*=")


class _Place:
    """A configuration file, and the line each key is written on: found in
    the text (``tomllib`` keeps no positions), for messages."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self._lines = text.split("\n")
        self._entries: Optional[List[Tuple[int, Tuple[str, ...]]]] = None

    def at(self, key: Tuple[str, ...], value: Optional[str] = None) -> str:
        """``file:line: `` for ``key`` (a dotted path from the document's
        top), on the line of ``value`` (as written) when it is given and
        found; ``file: `` when the key is not found."""
        line = self.line(key, value)
        return f"{visible(self.path)}:{line}: " if line else f"{visible(self.path)}: "

    def line(self, key: Tuple[str, ...], value: Optional[str] = None) -> Optional[int]:
        """The line of the longest part of ``key`` written (a key in an
        inline table is on its table's line), then of ``value`` in it."""
        entries = self._parsed()
        for length in range(len(key), 0, -1):
            prefix = key[:length]
            for index, (number, path) in enumerate(entries):
                if path[:length] != prefix:
                    continue
                if value is None:
                    return number
                end = next((n for n, p in entries[index + 1 :] if p[:length] != prefix), len(self._lines) + 1)
                quoted = (f'"{value}"', f"'{value}'")
                return next(
                    (n for n in range(number, end) if any(q in self._lines[n - 1] for q in quoted)), number
                )
        return None

    def _parsed(self) -> List[Tuple[int, Tuple[str, ...]]]:
        """(line number, dotted path) of every table header and assignment."""
        if self._entries is None:
            self._entries = []
            table: Tuple[str, ...] = ()
            for number, text in enumerate(self._lines, 1):
                header = _HEADER.match(text)
                if header is not None:
                    table = _key_path(header.group("key"))
                    self._entries.append((number, table))
                    continue
                assignment = _ASSIGNMENT.match(text)
                if assignment is not None:
                    self._entries.append((number, table + _key_path(assignment.group("key"))))
        return self._entries


_KEY_PART_AT = re.compile(_KEY_PART)
_KEY_DOT = re.compile(r"[ \t]*\.[ \t]*")


def _key_path(text: str) -> Tuple[str, ...]:
    """The parts of a dotted key ``_DOTTED`` matched, read one after the
    other where each stands (a search for parts would retry an unclosed
    quote from every quote: quadratic)."""
    parts = []
    found = _KEY_PART_AT.match(text)
    while found is not None:
        parts.append(_unquoted(found.group()))
        dot = _KEY_DOT.match(text, found.end())
        found = _KEY_PART_AT.match(text, dot.end()) if dot is not None else None
    return tuple(parts)


def _unquoted(part: str) -> str:
    if part.startswith('"'):
        try:
            return str(json.loads(part))
        except ValueError:
            return part[1:-1]
    if part.startswith("'"):
        return part[1:-1]
    return part


@dataclass(frozen=True)
class _Where:
    """A key of the table (its dotted path), for messages: ``file:line: 'key' in [tool.idemlint]``."""

    place: "_Place"
    key: Tuple[str, ...]

    def __str__(self) -> str:
        return self.at()

    def at(self, value: Optional[str] = None) -> str:
        """The message's start, on the line of ``value`` (as written) when given and found."""
        inner = ".".join(self.key[len(_TABLE) + 1 :])
        name = f"'{self.key[len(_TABLE)]}' in [tool.idemlint]" + (f": '{inner}'" if inner else "")
        return f"{self.place.at(self.key, value)}{name}"

    def nested(self, key: str) -> "_Where":
        return _Where(self.place, self.key + (key,))


def _strings(value: Any, where: _Where) -> Tuple[str, ...]:
    if not isinstance(value, list):
        raise ConfigError(f"{where} must be a list of strings, not {_toml_type(value)}")
    for number, item in enumerate(value, 1):
        if not isinstance(item, str):
            raise ConfigError(f"{where} must be a list of strings: item {number} is {_toml_type(item)}")
    return tuple(value)


def _boolean(value: Any, where: _Where) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where} must be true or false, not {_toml_type(value)}")
    return value


def _seconds(value: Any, where: _Where) -> float:
    """A positive number of seconds (an integer or a float; not a boolean)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{where} must be a number of seconds, not {_toml_type(value)}")
    if not 0 < value < float("inf"):
        raise ConfigError(f"{where} must be a positive number of seconds, not {value!r}")
    return float(value)


def _codes(value: Any, where: _Where) -> Tuple[str, ...]:
    """Code prefixes, in any case (``idm002``), upper-cased."""
    codes = _strings(value, where)
    for code in codes:
        problem = code_problem(code.upper())
        if problem is not None:
            raise ConfigError(f"{where.at(code)}: {_quoted_as_written(problem, code)}")
    return tuple(code.upper() for code in codes)


def _quoted_as_written(problem: str, code: str) -> str:
    """The message names the code as the file spells it."""
    return problem.replace(repr(code.upper()), repr(code), 1)


def _per_file_ignores(value: Any, where: _Where) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table of glob = [codes], not {_toml_type(value)}")
    return tuple((glob, _codes(codes, _Glob(where.place, where.key + (glob,)))) for glob, codes in value.items())


class _Glob(_Where):
    """A glob of ``per-file-ignores``, named as the file writes it."""

    def at(self, value: Optional[str] = None) -> str:
        return f"{self.place.at(self.key, value)}'per-file-ignores' in [tool.idemlint], {self.key[-1]!r}"


def _side_effects(value: Any, where: _Where) -> Dict[str, Tuple[Any, ...]]:
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where} must be a table with 'keyable' and 'non-keyable' lists, not {_toml_type(value)}"
        )
    for key in value:
        if key not in ("keyable", "non-keyable"):
            raise ConfigError(
                where.place.at(where.key + (key,))
                + _unknown_key(key, ("keyable", "non-keyable"), "[tool.idemlint.side-effects]")
            )
    effects: Dict[str, Tuple[Any, ...]] = {}
    if "keyable" in value:
        effects["keyable"] = tuple(
            catalog.KeyableEffect(pattern, "configured", "repeats the side effect")
            for pattern in _patterns(value["keyable"], where.nested("keyable"))
        )
    if "non-keyable" in value:
        effects["non-keyable"] = tuple(
            catalog.NonKeyableEffect(pattern, "configured side effect")
            for pattern in _patterns(value["non-keyable"], where.nested("non-keyable"))
        )
    return effects


def _patterns(value: Any, where: _Where) -> Tuple[str, ...]:
    patterns = _strings(value, where)
    for pattern in patterns:
        if not pattern:
            raise ConfigError(f"{where.at(pattern)}: invalid pattern '' (empty)")
        try:
            catalog.compile_glob(pattern)
        except ValueError as error:
            raise ConfigError(f"{where.at(pattern)}: invalid pattern {pattern!r} ({error})") from None
    return patterns


def _key_arguments(value: Any, where: _Where) -> Tuple[str, ...]:
    names = _strings(value, where)
    for name in names:
        if not name.isidentifier() and not re.fullmatch(r"[A-Za-z0-9_-]+", name):
            raise ConfigError(f"{where.at(name)}: {name!r} is not an argument or header name")
    return names


def _task_decorators(value: Any, where: _Where) -> Tuple[str, ...]:
    names = _strings(value, where)
    invalid = invalid_decorator_names(names)
    if invalid:
        raise ConfigError(f"{where.at(invalid[0])}: {invalid[0]!r} is not a name or a dotted name")
    return names


def invalid_decorator_names(names: Iterable[str]) -> Tuple[str, ...]:
    """The names of ``names`` that cannot name a decorator (``task``,
    ``myproject.tasks.retrying_task``)."""
    return tuple(
        name for name in names if not all(part.isidentifier() for part in name.split("."))
    )


_KEYS: Dict[str, Callable[[Any, _Where], Any]] = {
    "select": _codes,
    "ignore": _codes,
    "extend-select": _codes,
    "per-file-ignores": _per_file_ignores,
    "exclude": _strings,
    "extend-exclude": _strings,
    "respect-gitignore": _boolean,
    "task-decorators": _task_decorators,
    "key-arguments": _key_arguments,
    "side-effects": _side_effects,
    "timeout": _seconds,
}
