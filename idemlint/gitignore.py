"""What git ignores, read from ``.gitignore`` files as git reads them.

A directory walk skips what a ``.gitignore`` (of the directory or of any
directory above it, up to the repository's top) or ``.git/info/exclude``
ignores, as ruff does: by the patterns alone, so a tracked file that a
pattern matches is skipped too.  Outside a git repository (no ``.git``
above the walked directory) ``.gitignore`` files mean nothing, as for git
and ruff; a repository nested in the walked tree starts its own rules.
git's global excludes file (``core.excludesFile``) is not read: it is the
user's, not the repository's.

No git is run: every file is read by idemlint, without blocking (a FIFO
named ``.gitignore`` is not a hang) and up to
:data:`MAX_IGNORE_FILE_BYTES`; a symbolic link named ``.gitignore`` is not
followed, as git does not.  The checked repository writes these files, so
what they cost is bounded: patterns are matched without backtracking (each
``*`` is matched like ``fnmatch``'s, at its first possible place), compiled
only when first tried, and a run's reading, compiling and matching is
counted against :data:`MAX_COST` (about a microsecond a unit); past it,
:class:`TooCostly` is raised and the caller walks again without
``.gitignore``.

Pattern syntax (gitignore(5)): ``#`` comments, ``!`` negation, a trailing
``/`` for directories only, a ``/`` at the start or in the middle anchors
the pattern to the file's directory, ``*``, ``?``, ``[a-z]``, ``[!a]``,
``[[:alpha:]]``, ``**`` as a whole component for any number of
directories, and ``\\`` escapes.  The last matching pattern of the deepest
file that has one decides; a directory that is ignored is not entered, so
nothing inside it can be included again.
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from idemlint.reading import FileTooLarge, NotRegularFile, read_regular

MAX_IGNORE_FILE_BYTES = 512 * 1024
"""A larger ignore file is not used (with a warning): no real one comes near it."""
MAX_COST = 2_000_000
"""What one run may spend on ignore files: a unit per byte read, per
character of a regular expression compiled, per file and pattern an entry
is tested against."""
# How many patterns tried at once, as one regular expression, cost one unit.
_SCREEN_WEIGHT = 16
# A file's name patterns are tried as one regular expression only up to this length.
_MAX_SCREEN = 20_000
# The ignore files that could not be used are named up to this many times.
_MAX_WARNINGS = 10

_WILDCARDS = re.compile(r"[*?\[\\]")
_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}


class TooCostly(Exception):
    """The ignore files would cost more than :data:`MAX_COST`."""


@dataclass
class Budget:
    """What one run's walks share: the cost left, and the warnings to show once each."""

    left: int = MAX_COST
    warnings: Dict[str, None] = field(default_factory=dict)

    def spend(self, units: int = 1) -> None:
        self.left -= units
        if self.left < 0:
            raise TooCostly(".gitignore files too costly to apply; this run does not respect them")


class _Component:
    """A pattern for one path component (no ``/``), turned into a test when first used."""

    __slots__ = ("text", "_test", "_regex")

    def __init__(self, text: str) -> None:
        self.text = text
        self._test: Optional[Callable[[str], bool]] = None
        self._regex: Optional[str] = None
        if _WILDCARDS.search(text) is None:
            self._test = text.__eq__
        elif text.startswith("*") and _WILDCARDS.search(text, 1) is None:
            suffix = text[1:]  # "*.pyc", the common case
            self._test = lambda name: name.endswith(suffix)

    @property
    def literal(self) -> bool:
        return _WILDCARDS.search(self.text) is None

    def regex(self, budget: Budget) -> str:
        """As a regular expression (one that never matches for a pattern git never matches)."""
        if self._regex is None:
            budget.spend(len(self.text))
            tokens = _tokens(self.text)
            self._regex = _NEVER if tokens is None else _regex(tokens)
        return self._regex

    def matches(self, name: str, budget: Budget) -> bool:
        if self._test is None:
            regex = self.regex(budget)
            budget.spend(len(regex))
            compiled = re.compile(regex, re.DOTALL)
            self._test = lambda candidate: compiled.match(candidate) is not None
        return self._test(name)


_NEVER = r"(?!)"


@dataclass(frozen=True)
class _Pattern:
    negated: bool
    directory_only: bool
    # The pattern without "!" and the trailing "/", and without the leading
    # "/" of an anchored one: what a literal pattern is compared with.
    text: str
    # One component: matched against the name alone (no "/" in the
    # pattern); else the components of the path below the file's directory,
    # None standing for "**".
    parts: Tuple[Optional[_Component], ...]
    anchored: bool

    @property
    def literal(self) -> bool:
        return all(part is not None and part.literal for part in self.parts)

    def matches(self, relative: Sequence[str], is_directory: bool, budget: Budget) -> bool:
        if self.directory_only and not is_directory:
            return False
        budget.spend()
        if not self.anchored:
            part = self.parts[0]
            return part is not None and part.matches(relative[-1], budget)
        return _components_match(self.parts, relative, budget)


def _components_match(parts: Tuple[Optional[_Component], ...], names: Sequence[str], budget: Budget) -> bool:
    """``parts`` against ``names``, ``**`` (None) taking any number of them
    (at least one when it ends the pattern: ``abc/**`` is what is inside
    ``abc``): the set of positions reached, one name at a time."""
    last = len(parts)

    def closure(positions: Iterable[int]) -> Set[int]:
        reached = set(positions)
        for position in sorted(reached):
            while position < last - 1 and parts[position] is None:
                position += 1
                reached.add(position)
        return reached

    positions = closure({0})
    for name in names:
        following: Set[int] = set()
        for position in positions:
            if position == last:
                continue
            part = parts[position]
            if part is None:
                following.add(position)
                if position == last - 1:
                    following.add(last)
            elif part.matches(name, budget):
                following.add(position + 1)
        if not following:
            return False
        positions = closure(following)
    return last in positions


def parse(text: str) -> List[_Pattern]:
    """The patterns of one ignore file, in order."""
    patterns = []
    for line in text.split("\n"):
        pattern = _pattern(line[:-1] if line.endswith("\r") else line)
        if pattern is not None:
            patterns.append(pattern)
    return patterns


def _pattern(line: str) -> Optional[_Pattern]:
    if not line or line.startswith("#"):
        return None
    stripped = line.rstrip(" ")
    if len(stripped) < len(line) and _escaped_end(stripped):
        stripped += " "  # "foo\ " keeps its escaped space
    line = stripped
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    directory_only = line.endswith("/") and not _escaped_end(line[:-1])
    if directory_only:
        line = line[:-1]
    if not line or line == "/":
        return None
    if "/" not in line:
        return _Pattern(negated, directory_only, line, (_Component(line),), anchored=False)
    anchored = line[1:] if line.startswith("/") else line
    parts = tuple(
        None if len(text) >= 2 and text.strip("*") == "" else _Component(text)  # "**" ("****" alike)
        for text in anchored.split("/")
    )
    return _Pattern(negated, directory_only, anchored, parts, anchored=True)


def _escaped_end(text: str) -> bool:
    """Whether ``text`` ends with an odd number of backslashes."""
    return (len(text) - len(text.rstrip("\\"))) % 2 == 1


_STAR = None  # a token: any run of characters
_GROUPS = itertools.count()


def _tokens(text: str) -> Optional[List[Optional[str]]]:
    """``text`` as regex pieces each matching one character, and stars;
    None for what git never matches (an unclosed ``[``, a trailing ``\\``)."""
    tokens: List[Optional[str]] = []
    i = 0
    while i < len(text):
        c = text[i]
        i += 1
        if c == "*":
            if not tokens or tokens[-1] is not _STAR:
                tokens.append(_STAR)
        elif c == "?":
            tokens.append(".")
        elif c == "\\":
            if i >= len(text):
                return None
            tokens.append(re.escape(text[i]))
            i += 1
        elif c == "[":
            parsed = _bracket(text, i)
            if parsed is None:
                return None
            piece, i = parsed
            tokens.append(piece)
        else:
            tokens.append(re.escape(c))
    return tokens


def _bracket(text: str, i: int) -> Optional[Tuple[str, int]]:
    """The class starting after ``[`` at ``i``: its regex and the index past ``]``."""
    negated = i < len(text) and text[i] in "!^"
    if negated:
        i += 1
    members: List[str] = []
    first = True
    while i < len(text):
        c = text[i]
        if c == "]" and not first:
            body = "".join(members)
            if not body:
                return ("[\\s\\S]" if negated else _NEVER), i + 1
            return (f"[^{body}]" if negated else f"[{body}]"), i + 1
        first = False
        if c == "[" and text.startswith("[:", i):
            end = text.find(":]", i + 2)
            if end < 0 or text[i + 2 : end] not in _POSIX_CLASSES:
                return None
            members.append(_POSIX_CLASSES[text[i + 2 : end]])
            i = end + 2
            continue
        if c == "\\":
            i += 1
            if i >= len(text):
                return None
            c = text[i]
        low = c
        i += 1
        if i + 1 < len(text) and text[i] == "-" and text[i + 1] != "]":
            high = text[i + 1]
            i += 2
            if high == "\\":
                if i >= len(text):
                    return None
                high = text[i]
                i += 1
            if low <= high:  # git's reversed range matches nothing
                members.append(f"{re.escape(low)}-{re.escape(high)}")
            continue
        members.append(re.escape(low))
    return None  # no closing "]"


def _regex(tokens: List[Optional[str]]) -> str:
    """The tokens as a regex that never backtracks over a star: each fixed
    run between stars is matched at its first place (as ``fnmatch`` does:
    a later place could only leave less for the rest)."""
    out: List[str] = []
    i = 0
    while i < len(tokens) and tokens[i] is not _STAR:
        out.append(tokens[i] or "")
        i += 1
    while i < len(tokens):
        i += 1  # the star
        fixed: List[str] = []
        while i < len(tokens) and tokens[i] is not _STAR:
            fixed.append(tokens[i] or "")
            i += 1
        if i == len(tokens):
            out.append(".*" + "".join(fixed))
        else:
            group = next(_GROUPS)  # unique: a file's name patterns are also tried as one regex
            out.append(f"(?=(?P<g{group}>.*?{''.join(fixed)}))(?P=g{group})")
    return "".join(out) + r"\Z"


class _Rules:
    """One ignore file's patterns and the directory they are relative to
    (a real path).  Literal patterns are looked up by name or path; the
    others are tried one by one, last first, those matched against a name
    only when all of them, as one regular expression, match it."""

    def __init__(self, directory: str, patterns: Sequence[_Pattern]) -> None:
        self.prefix = directory.rstrip(os.sep) + os.sep
        self.patterns = tuple(patterns)
        self.by_name: Dict[str, List[int]] = {}
        self.by_path: Dict[str, List[int]] = {}
        self.tried: List[int] = []
        for index, pattern in enumerate(self.patterns):
            if not pattern.literal:
                self.tried.append(index)
            else:
                table = self.by_path if pattern.anchored else self.by_name
                table.setdefault(pattern.text, []).append(index)
        self._names = [i for i in self.tried if not self.patterns[i].anchored]
        self._screen: Optional[Callable[[str], bool]] = None

    def decide(self, path: str, is_directory: bool, budget: Budget) -> Optional[bool]:
        """True ignored, False included again, None: no pattern says."""
        if not path.startswith(self.prefix):
            return None
        budget.spend()
        relative = path[len(self.prefix) :].split(os.sep)
        literal = (*self.by_name.get(relative[-1], ()), *self.by_path.get("/".join(relative), ()))
        best = max(
            (i for i in literal if is_directory or not self.patterns[i].directory_only), default=-1
        )
        names_may_match = bool(self._names) and self._names[-1] > best and self._screened(relative[-1], budget)
        for index in reversed(self.tried):
            if index < best:
                break
            pattern = self.patterns[index]
            if not pattern.anchored and not names_may_match:
                continue
            if pattern.matches(relative, is_directory, budget):
                best = index
                break
        return None if best < 0 else not self.patterns[best].negated

    def _screened(self, name: str, budget: Budget) -> bool:
        """Whether one of the name patterns may match ``name`` (all of them
        as one regular expression: one test instead of one each)."""
        if self._screen is None:
            regexes = []
            for index in self._names:
                part = self.patterns[index].parts[0]
                assert part is not None  # a name pattern is one component
                regexes.append(part.regex(budget))
            combined = "|".join(f"(?:{regex})" for regex in regexes)
            if len(combined) > _MAX_SCREEN:
                self._screen = lambda candidate: True  # each is tried, and counted, on its own
            else:
                budget.spend(len(combined))
                compiled = re.compile(combined, re.DOTALL)
                self._screen = lambda candidate: compiled.match(candidate) is not None
        budget.spend(len(self._names) // _SCREEN_WEIGHT + 1)
        return self._screen(name)


@dataclass(frozen=True)
class Ignores:
    """The rules in force in one directory of a walk, deepest first; empty
    outside a git repository."""

    rules: Tuple[_Rules, ...]
    in_repository: bool
    budget: Budget

    @classmethod
    def above(cls, directory: str, budget: Budget) -> "Ignores":
        """The rules the directories above ``directory`` (a real path) set
        for what is in it: those of its repository's top down to its parent."""
        chain: List[str] = []
        parent = os.path.dirname(directory)
        while parent != directory:
            chain.append(parent)
            if os.path.lexists(os.path.join(parent, ".git")):
                ignores = cls((), False, budget)._repository(parent)
                for step in reversed(chain):  # from the top down: the deepest ends up first
                    ignores = ignores._with_file(step)
                return ignores
            directory, parent = parent, os.path.dirname(parent)
        return cls((), False, budget)

    def entering(self, directory: str, names: Sequence[str]) -> "Ignores":
        """The rules in force inside ``directory`` (a real path), whose entries are ``names``."""
        ignores = self._repository(directory) if ".git" in names else self
        if ignores.in_repository and ".gitignore" in names:
            ignores = ignores._with_file(directory)
        return ignores

    def ignored(self, path: str, is_directory: bool) -> bool:
        for rules in self.rules:
            decided = rules.decide(path, is_directory, self.budget)
            if decided is not None:
                return decided
        return False

    def _repository(self, top: str) -> "Ignores":
        exclude = _exclude_file(top)
        rules = () if exclude is None else self._read(exclude, top)
        return Ignores(rules, True, self.budget)

    def _with_file(self, directory: str) -> "Ignores":
        path = os.path.join(directory, ".gitignore")
        if os.path.islink(path):
            return self  # git does not follow a symbolic link named .gitignore
        return Ignores(self._read(path, directory) + self.rules, self.in_repository, self.budget)

    def _read(self, path: str, directory: str) -> Tuple[_Rules, ...]:
        try:
            data = read_regular(path, limit=MAX_IGNORE_FILE_BYTES)
        except FileNotFoundError:
            return ()
        except FileTooLarge:
            self._warn(f"{path}: larger than {MAX_IGNORE_FILE_BYTES // 1024} KiB; not used")
            return ()
        except NotRegularFile as error:
            self._warn(f"{path}: not a regular file ({error.kind}); not used")
            return ()
        except OSError as error:
            self._warn(f"{path}: cannot read ({error.strerror or type(error).__name__}); not used")
            return ()
        self.budget.spend(len(data))
        patterns = parse(data.decode("utf-8", "surrogateescape"))
        return (_Rules(directory, patterns),) if patterns else ()

    def _warn(self, message: str) -> None:
        if len(self.budget.warnings) < _MAX_WARNINGS:
            self.budget.warnings[message] = None
        else:
            self.budget.warnings["more ignore files could not be used"] = None


def _exclude_file(top: str) -> Optional[str]:
    """``info/exclude`` of the repository whose work tree is ``top``: in
    ``.git/``, or for a linked work tree or a submodule (a ``.git`` file
    saying ``gitdir: ...``), in the repository's common directory."""
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        return os.path.join(dot_git, "info", "exclude")
    pointed = _first_line(dot_git)
    if pointed is None or not pointed.startswith("gitdir:"):
        return None
    git_directory = os.path.join(top, pointed[len("gitdir:") :].strip())
    common = _first_line(os.path.join(git_directory, "commondir"))
    if common:
        git_directory = os.path.join(git_directory, common.strip())
    return os.path.join(git_directory, "info", "exclude")


def _first_line(path: str) -> Optional[str]:
    try:
        data = read_regular(path, limit=4096)
    except OSError:
        return None
    return data.decode("utf-8", "surrogateescape").split("\n", 1)[0].rstrip("\r")
