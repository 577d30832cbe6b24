"""Every regular expression in idemlint runs in linear time on any input.

The checked repository is untrusted input, and Python's ``re`` backtracks:
one pattern whose quantifiers can split the same text in many ways hangs a
whole run (a comment banner of 55 ``#`` once did).  So every pattern in the
package is found here, in three ways that must agree:

- the patterns a module holds (module and class attributes, in containers
  too), imported;
- the patterns written inline (``re.search("...", text)``), read from the
  source;
- the patterns built at run time from other text (task decorator names,
  ``.gitignore`` globs), each built here by the code that builds it, with
  names chosen to make it slow (:data:`BUILT_AT_RUN_TIME`).

A pattern built at run time that no entry of that table builds fails the
test, so a new one cannot slip in untested.

Each pattern is then fed adversarial text made from its own shape: runs of
each character its atoms match (and of each pair of them), alone and after
each literal the pattern spells, ending in a character that makes the match
fail, 10 000 characters long, in the way the package calls it (``match`` at
a position for a pattern only ever matched there, else ``search``, which
retries at every position).  The runtime shows the cost: a search at 10 000
characters may cost at most a small multiple of ten times its cost at
1 000 (linear), never the hundred times of a quadratic one, and an alarm
turns an exponential one into a failure instead of a hung suite.

regexploit, a static ReDoS analyser, reads every pattern too; it finds
nested quantifiers over overlapping text (the exponential kind), the runs
find the rest (``.*`` chains, ``\\Z`` under ``sub``).
"""

from __future__ import annotations

import ast
import importlib
import itertools
import pathlib
import pkgutil
import re
import signal
import sys
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Set, Tuple

import pytest

import idemlint

if sys.version_info >= (3, 11):
    from re import _constants as sre_constants
    from re import _parser as sre_parse
else:  # pragma: no cover - the modules' old names
    import sre_constants
    import sre_parse

PACKAGE = pathlib.Path(idemlint.__file__).parent
RE_FUNCTIONS = {"compile", "match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"}
ANCHORED_METHODS = {"match", "fullmatch"}
# The adversarial runs' lengths: the cost at LONG may be at most
# MOST_GROWTH times the cost at SHORT (linear: 10x; quadratic: 100x).
SHORT, LONG = 1_000, 10_000
MOST_GROWTH = 30
# A growth past MOST_GROWTH is confirmed at LONGER, four times LONG: linear
# grows 4x there, quadratic 16x; one noisy size cannot fail the test.
LONGER = 40_000
MOST_FURTHER_GROWTH = 10
# Below this many seconds at LONG a search is linear whatever its growth
# (a quadratic one at 10 000 characters costs tens of milliseconds at least).
NOISE_FLOOR = 0.002
# One search taking this long is super-linear: the alarm ends it.
ALARM_SECONDS = 2.0


@dataclass(frozen=True)
class Subject:
    """A pattern to test, where it comes from, and how the package calls it."""

    name: str
    pattern: "re.Pattern[Any]"
    anchored: bool  # only ever matched at a position the caller chose


# --------------------------------------------------------------------------
# Finding every pattern


def _modules() -> Iterator[Any]:
    for info in pkgutil.walk_packages(idemlint.__path__, "idemlint."):
        if info.name != "idemlint.__main__":  # runs the command line when imported
            yield importlib.import_module(info.name)


def _patterns_in(value: Any) -> Iterator[Tuple[str, "re.Pattern[Any]"]]:
    if isinstance(value, re.Pattern):
        yield "", value
    elif isinstance(value, dict):
        for key, item in value.items():
            for suffix, pattern in _patterns_in(item):
                yield f"[{key!r}]{suffix}", pattern
    elif isinstance(value, (tuple, list, frozenset, set)):
        for index, item in enumerate(value):
            for suffix, pattern in _patterns_in(item):
                yield f"[{index}]{suffix}", pattern


def _held_patterns() -> Dict[str, "re.Pattern[Any]"]:
    """Module and class attributes holding patterns, by dotted name."""
    found: Dict[str, "re.Pattern[Any]"] = {}
    for module in _modules():
        for attribute, value in vars(module).items():
            owners = [(attribute, value)]
            if isinstance(value, type) and value.__module__ == module.__name__:
                owners += [(f"{attribute}.{name}", item) for name, item in vars(value).items()]
            for name, item in owners:
                for suffix, pattern in _patterns_in(item):
                    found[f"{module.__name__}.{name}{suffix}"] = pattern
    return found


@dataclass(frozen=True)
class _Site:
    """A call of a function of ``re`` in the package's source, and the
    function it is written in (``<module>`` outside every function)."""

    path: str
    line: int
    function: str
    argument: ast.expr
    flags: int
    within: str


def _is_re_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "re"
        and node.func.attr in RE_FUNCTIONS
        and bool(node.args)
    )


def _flags(call: ast.Call) -> int:
    """The literal flags of a call (``re.I | re.S``), 0 when none are written."""
    assert isinstance(call.func, ast.Attribute)
    written = [k.value for k in call.keywords if k.arg == "flags"]
    position = {"compile": 1, "sub": 4, "subn": 4, "split": 3}.get(call.func.attr, 2)
    if len(call.args) > position:
        written.append(call.args[position])
    value = 0
    for expression in written:
        for name in ast.walk(expression):
            if isinstance(name, ast.Attribute) and isinstance(name.value, ast.Name) and name.value.id == "re":
                value |= getattr(re, name.attr)
    return value


SOURCES: List[Tuple[str, ast.Module]] = [
    (str(path.relative_to(PACKAGE.parent)), ast.parse(path.read_text(encoding="utf-8")))
    for path in sorted(PACKAGE.rglob("*.py"))
]


def _sites() -> List[_Site]:
    sites: List[_Site] = []

    def visit(node: ast.AST, path: str, within: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            within = node.name
        if _is_re_call(node):
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            sites.append(_Site(path, node.lineno, node.func.attr, node.args[0], _flags(node), within))
        for child in ast.iter_child_nodes(node):
            visit(child, path, within)

    for path, tree in SOURCES:
        visit(tree, path, "<module>")
    return sites


def _literal(expression: ast.expr) -> Any:
    try:
        return ast.literal_eval(expression)
    except ValueError:
        return None


def _methods_called_on(names: Set[str]) -> Dict[str, Set[str]]:
    """For each attribute name, the methods the source calls on it
    (``NAME.search(...)``, ``NAME[key].match(...)``, ``self.NAME.sub(...)``)."""
    called: Dict[str, Set[str]] = {name: set() for name in names}
    for _, tree in SOURCES:
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            target = node.func.value
            if isinstance(target, ast.Subscript):
                target = target.value
            name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None
            if name in called:
                called[name].add(node.func.attr)
    return called


def _uses_otherwise() -> Set[str]:
    """The names the source uses other than by calling a method on them
    (passed on, returned): how such a pattern is matched cannot be told here."""
    names: Set[str] = set()
    for _, tree in SOURCES:
        parents: Dict[int, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        for node in ast.walk(tree):
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if name is None or isinstance(getattr(node, "ctx", None), ast.Store):
                continue
            parent = parents.get(id(node))
            if isinstance(parent, ast.Subscript):
                parent = parents.get(id(parent))
            if not isinstance(parent, ast.Attribute):  # NAME.method(...), NAME.pattern
                names.add(name)
    return names


# Patterns built at run time, by the source of the call's first argument in
# its file: each builds the patterns that call makes, from text chosen to
# be costly (long names sharing prefixes, globs full of stars), and says
# whether they are only matched at a position.
def _decorator_words() -> Tuple[str, ...]:
    return ("task", "tasks", "task_", "task_task", "a" * 40, "a" * 41)


def _screen_patterns() -> List["re.Pattern[str]"]:
    from idemlint import segments

    return [segments.decorator_mentions(_decorator_words())]


def _read_everywhere() -> List["re.Pattern[str]"]:
    from idemlint import segments

    return [segments.words_or_settings(set(_decorator_words()))]


def _task_shapes() -> List["re.Pattern[Any]"]:
    from idemlint import engine

    extra = _decorator_words()
    return [*engine._byte_shapes(extra)[1], *engine._text_shapes(extra)[1]]


def _gitignore() -> List["re.Pattern[str]"]:
    from idemlint import gitignore

    budget = gitignore.Budget()
    globs = ["*a*a*a*a*a*a*a*b", "a*" * 20 + "b", "*[ab]*[ab]*[ab]*c", "?*?*?*?*x", "*\\**\\**"]
    return [re.compile(gitignore._Component(glob).regex(budget), re.DOTALL) for glob in globs]


def _temporary_names() -> List["re.Pattern[str]"]:
    from idemlint import atomic

    return [atomic.temporary_pattern(r"[0-9a-f]{40}\.json"), atomic.temporary_pattern(re.escape("a" * 50))]


BUILT_AT_RUN_TIME: Dict[Tuple[str, str], Tuple[Callable[[], List["re.Pattern[Any]"]], bool]] = {
    ("idemlint/segments.py", "decorator_mentions"): (_screen_patterns, False),
    ("idemlint/segments.py", "words_or_settings"): (_read_everywhere, False),
    ("idemlint/engine.py", "_byte_shapes"): (_task_shapes, False),
    ("idemlint/engine.py", "_text_shapes"): (_task_shapes, False),
    ("idemlint/gitignore.py", "matches"): (_gitignore, True),
    ("idemlint/gitignore.py", "_screened"): (_gitignore, True),
    ("idemlint/atomic.py", "temporary_pattern"): (_temporary_names, False),
}


def subjects() -> List[Subject]:
    held = _held_patterns()
    attribute_names = {name.split(".")[-1].split("[")[0] for name in held}
    methods = _methods_called_on(attribute_names)
    passed_on = _uses_otherwise()
    found: Dict[int, Subject] = {}

    def add(name: str, pattern: "re.Pattern[Any]", anchored: bool) -> None:
        earlier = found.get(id(pattern))
        if earlier is None or (earlier.anchored and not anchored):
            found[id(pattern)] = Subject(name, pattern, anchored)

    for name, pattern in held.items():
        attribute = name.split(".")[-1].split("[")[0]
        called = methods.get(attribute, set())
        anchored = bool(called) and called <= ANCHORED_METHODS and attribute not in passed_on
        add(name, pattern, anchored)
    for site in _sites():
        if site.within == "<module>" and site.function == "compile":
            continue  # compiled on import: a held pattern above, matched as the source shows
        literal = _literal(site.argument)
        if isinstance(literal, (str, bytes)):
            add(f"{site.path}:{site.line}", re.compile(literal, site.flags), site.function in ANCHORED_METHODS)
            continue
        if site.within == "<module>":
            continue  # compiled on import, from constants: a held pattern above
        key = (site.path, site.within)
        assert key in BUILT_AT_RUN_TIME, (
            f"{site.path}:{site.line}: re.{site.function}(...) in {site.within} builds a pattern at run time "
            "that no entry of BUILT_AT_RUN_TIME builds: add one, with text chosen to make it slow"
        )
        build, anchored = BUILT_AT_RUN_TIME[key]
        for number, pattern in enumerate(build()):
            add(f"{site.path}:{site.line}#{number}", pattern, anchored)
    return sorted(found.values(), key=lambda subject: subject.name)


SUBJECTS = subjects()


# --------------------------------------------------------------------------
# Adversarial text from a pattern's shape

_BASE = " \t\n\r#\\'\"()[]{}.,:=-*/_aA0é\x00"
_CATEGORY_MEMBERS = {
    sre_constants.CATEGORY_DIGIT: "0",
    sre_constants.CATEGORY_NOT_DIGIT: "a",
    sre_constants.CATEGORY_SPACE: " \n",
    sre_constants.CATEGORY_NOT_SPACE: "a#",
    sre_constants.CATEGORY_WORD: "a_0",
    sre_constants.CATEGORY_NOT_WORD: " #",
    sre_constants.CATEGORY_LINEBREAK: "\n",
    sre_constants.CATEGORY_NOT_LINEBREAK: "a",
}


def _shape(pattern: str, flags: int) -> Tuple[Set[str], Set[str], List[str]]:
    """The characters the pattern's atoms name (literals, class members and
    bounds), those of them under a quantifier, and the literal runs it
    spells (two characters or more), in the pattern's order."""
    named: Set[str] = set()
    repeated: Set[str] = set()
    runs: List[str] = []

    def atom(op: Any, argument: Any, under: bool) -> Set[str]:
        found: Set[str] = set()
        if op in (sre_constants.LITERAL, sre_constants.NOT_LITERAL):
            found.add(chr(argument))
        elif op is sre_constants.IN:
            for item_op, item in argument:
                if item_op is sre_constants.LITERAL:
                    found.add(chr(item))
                elif item_op is sre_constants.RANGE:
                    found.update((chr(item[0]), chr(item[1])))
                elif item_op is sre_constants.CATEGORY:
                    found.update(_CATEGORY_MEMBERS.get(item, ""))
        elif op is sre_constants.ANY:
            found.update("a\n")
        named.update(found)
        if under:
            repeated.update(found)
        return found

    def walk(items: Any, under: bool) -> None:
        run = ""
        for op, argument in items:
            if op is sre_constants.LITERAL:
                run += chr(argument)
                atom(op, argument, under)
                continue
            if len(run) > 1:
                runs.append(run)
            run = ""
            if op in _REPEATS:
                walk(argument[2], under or argument[1] > 1)
            elif op is sre_constants.SUBPATTERN:
                walk(argument[-1], under)
            elif op is sre_constants.BRANCH:
                for branch in argument[1]:
                    walk(branch, under)
            elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
                walk(argument[1], under)
            elif op in _ATOMIC:
                walk(argument, under)
            else:
                atom(op, argument, under)
        if len(run) > 1:
            runs.append(run)

    walk(sre_parse.parse(pattern, flags), False)
    return named, repeated, list(dict.fromkeys(runs))


_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT}
_ATOMIC: Set[Any] = set()
if sys.version_info >= (3, 11):
    _REPEATS.add(sre_constants.POSSESSIVE_REPEAT)
    _ATOMIC.add(sre_constants.ATOMIC_GROUP)


def adversarial(subject: Subject, length: int) -> Iterator[Tuple[str, Any]]:
    """(description, text) pairs of about ``length`` characters: runs of
    each character, of each pair of the characters under its quantifiers,
    of its literal runs one by one and all in order, after nothing or one
    literal run, ending in nothing or a character that fails the match."""
    pattern = subject.pattern
    binary = isinstance(pattern.pattern, bytes)
    source = pattern.pattern.decode("latin-1") if binary else pattern.pattern
    named, repeated, runs = _shape(source, pattern.flags & ~re.UNICODE if binary else pattern.flags)
    characters = sorted(set(_BASE) | named)
    pairs = sorted(repeated | set(" a"))
    shapes = characters + [a + b for a, b in itertools.product(pairs, repeat=2) if a != b]
    shapes += [run + " " for run in runs] + ([" ".join(runs) + " "] if len(runs) > 1 else [])
    for prefix in [""] + runs[:3]:
        for shape in shapes:
            count = max(1, length // len(shape))
            for ending in ("", "\x00"):
                text = prefix + shape * count + ending
                if binary and any(ord(c) > 255 for c in text):
                    continue
                described = f"{prefix!r} + {shape!r} * {count} + {ending!r}"
                yield described, text.encode("latin-1") if binary else text


class _TooSlow(BaseException):
    pass


def _stop(signum: int, frame: Any) -> None:
    raise _TooSlow()


def _cost(subject: Subject, text: Any, runs: int = 1) -> float:
    """The fewest seconds of ``runs`` runs of the package's own use on
    ``text``, in this thread's CPU time: the other processes of a loaded
    machine (pytest's workers, CI) take nothing from it."""
    pattern = subject.pattern
    best = float("inf")
    for _ in range(runs):
        start = time.thread_time()
        if subject.anchored:
            pattern.match(text)
        else:
            for _ in pattern.finditer(text):
                pass
        best = min(best, time.thread_time() - start)
    return best


def _super_linear(subject: Subject) -> List[str]:
    """What makes this pattern cost more than linear time: the first text
    found to, or nothing."""
    short_texts = dict(adversarial(subject, SHORT))
    previous = signal.signal(signal.SIGALRM, _stop)
    try:
        for number, ((described, text), short) in enumerate(zip(adversarial(subject, LONG), short_texts.values())):
            signal.setitimer(signal.ITIMER_REAL, ALARM_SECONDS)
            try:
                long_cost = _cost(subject, text)
                if long_cost < NOISE_FLOOR or long_cost / max(_cost(subject, short), 1e-7) <= MOST_GROWTH:
                    continue
                # Confirmed on the fewest seconds of five runs each, the machine's noise aside...
                long_cost = _cost(subject, text, runs=5)
                growth = long_cost / max(_cost(subject, short, runs=5), 1e-7)
                if growth <= MOST_GROWTH:
                    continue
                # ... and at a third length.
                _, longer = next(itertools.islice(adversarial(subject, LONGER), number, None))
                further = _cost(subject, longer, runs=3) / long_cost
            except _TooSlow:
                return [f"{described}: over {ALARM_SECONDS} s"]
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if further > MOST_FURTHER_GROWTH:
                return [
                    f"{described}: {long_cost:.3f} s, {growth:.0f}x the cost at {SHORT},"
                    f" then {further:.0f}x at {LONGER}"
                ]
    finally:
        signal.signal(signal.SIGALRM, previous)
    return []


# --------------------------------------------------------------------------
# The tests


def test_patterns_are_found() -> None:
    """The sweep sees what it must: held, inline and built patterns alike."""
    from idemlint import noqa

    names = {subject.name for subject in SUBJECTS}
    assert len(SUBJECTS) > 60
    assert any(subject.pattern is noqa.NOQA_INLINE for subject in SUBJECTS)
    assert any(name.startswith("idemlint/gitignore.py:") for name in names)
    assert any(name.startswith("idemlint/segments.py:") for name in names)


@pytest.mark.sweep
@pytest.mark.parametrize("subject", SUBJECTS, ids=[subject.name for subject in SUBJECTS])
def test_linear_on_adversarial_text(subject: Subject) -> None:
    assert _super_linear(subject) == []


@pytest.mark.slow  # with the sweep it checks
def test_the_sweep_catches_each_kind_of_super_linear_pattern() -> None:
    """The measurement itself: an exponential, a quadratic and a quartic
    pattern, each of the kind once in the package, are caught."""
    kinds = [
        Subject("exponential", re.compile(r"\b(?:task)(?:[\s\\)]|#[^\r\n]*)*\("), False),
        Subject("quadratic", re.compile(r"[,\s]+\Z"), False),
        Subject("quartic", re.compile(r"\bupdate\b.*\bset\b.*\bwhere\b.*\bstatus\b=", re.I | re.S), False),
    ]
    for kind in kinds:
        assert _super_linear(kind), kind.name


@pytest.mark.parametrize("subject", SUBJECTS, ids=[subject.name for subject in SUBJECTS])
def test_no_redos_regexploit_finds(subject: Subject) -> None:
    from regexploit.ast.sre import SreOpParser
    from regexploit.redos import find

    source = subject.pattern.pattern
    if isinstance(source, bytes):
        source = source.decode("latin-1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            parsed = SreOpParser().parse_sre(source, subject.pattern.flags & ~re.UNICODE)
        except Exception as error:  # a construct regexploit does not read; the runs above still test it
            pytest.skip(f"regexploit cannot read it: {type(error).__name__}")
        found = [f"{redos.example()} (starriness {redos.starriness})" for redos in find(parsed)]
    assert found == []
