"""Parse with libcst only the top-level definitions an analysis can use.

libcst turns every token into Python objects, and most of the text of a
module that holds tasks, and nearly all of a module a task reaches, is
definitions no rule reads: a Django migration's one class, a models module's
classes, views.  CPython's AST, which costs a tenth of libcst's parse, tells
where each top-level statement starts and ends and what its header says.  (A
file the running CPython cannot parse, in syntax newer than it, is parsed
whole by libcst instead: idemlint.project.)  A
function or class that :class:`Screen` finds no use for up front stays text;
it is parsed on its own when the analysis asks for it by name (a helper a
task calls, a class whose instance a task makes).

Of the other top-level statements, three kinds stay text as well: imports
(CPython's statement tells the names they bind), a lone literal (a
docstring), and an assignment of data (a settings table, a dict of choices),
parsed when one of its names is looked up (:class:`Constants`).

Everything detection and IDM009 can find is parsed up front: functions
with a decorator that may make a task, ``Task`` subclasses, functions that
may wrap a task decorator, arq settings, and, in a module that enqueues or
sets late acks, any definition mentioning what they then read.  What is
found therefore never depends on what an analysis asked for before, and
equals what parsing the whole module finds (tests/test_segments.py).
"""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from dataclasses import dataclass
from typing import (
    AbstractSet,
    Callable,
    Dict,
    Generic,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
    TypeVar,
    Union,
)

import libcst as cst

from idemlint import catalog
from idemlint.names import absolute_module

Node = TypeVar("Node", cst.FunctionDef, cst.ClassDef)
_Function = (ast.FunctionDef, ast.AsyncFunctionDef)
_Definition = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# The module-level values name resolution reads (see Segment.data_names).
_RESOLVED_VALUES = (ast.Call, ast.Name, ast.Attribute, ast.Subscript, ast.Await)


@dataclass(frozen=True)
class Segment:
    """Top-level statements on a run of whole lines (several only when ``;``
    joins them); ``number`` is its place in the module, for definition order."""

    number: int
    first_line: int
    last_line: int
    statements: Tuple[ast.stmt, ...]

    def definition(self) -> Optional[Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]]:
        if len(self.statements) == 1 and isinstance(self.statements[0], (*_Function, ast.ClassDef)):
            return self.statements[0]
        return None

    def imports(self) -> Tuple[Union[ast.Import, ast.ImportFrom], ...]:
        """The statements when all of them are imports, else ()."""
        if all(isinstance(statement, (ast.Import, ast.ImportFrom)) for statement in self.statements):
            return tuple(s for s in self.statements if isinstance(s, (ast.Import, ast.ImportFrom)))
        return ()

    def is_inert(self) -> bool:
        """A lone literal expression: a module's docstring, nothing anything reads."""
        return (
            len(self.statements) == 1
            and isinstance(self.statements[0], ast.Expr)
            and isinstance(self.statements[0].value, ast.Constant)
        )

    def data_names(self) -> Tuple[str, ...]:
        """The names a lone ``name = value`` (or ``name: T = value``) binds
        to data: a literal, a container, arithmetic, a comprehension.  Only
        a lookup of one of those names reads such a value; name resolution
        never does (it reads aliases, instances and registrations, which are
        calls, names, attributes and subscripts).  () for any other segment."""
        if len(self.statements) != 1:
            return ()
        statement = self.statements[0]
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            return ()
        if isinstance(value, _RESOLVED_VALUES) or not all(isinstance(t, ast.Name) for t in targets):
            return ()
        return tuple(target.id for target in targets if isinstance(target, ast.Name))


def split(tree: ast.Module, line_count: int) -> List[Segment]:
    """The module's top-level statements in segments of whole lines.

    A segment runs to the line before the next one starts: the comments and
    blank lines after a statement stay with it, and so does a line that a
    trailing backslash joins to it (CPython's ``end_lineno`` stops before).
    """
    segments: List[Segment] = []
    for statement in tree.body:
        first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])
        last = statement.end_lineno or statement.lineno
        if segments and first <= segments[-1].last_line:
            joined = segments[-1]
            segments[-1] = Segment(
                joined.number, joined.first_line, max(last, joined.last_line), (*joined.statements, statement)
            )
        else:
            segments.append(Segment(len(segments), first, last, (statement,)))
    ends = [segment.first_line - 1 for segment in segments[1:]] + [max(line_count, 1)]
    return [
        Segment(segment.number, segment.first_line, max(end, segment.last_line), segment.statements)
        for segment, end in zip(segments, ends)
    ]


# The last parts of the names that make a task decorator or a Task base.
_DECORATOR_WORDS = (
    frozenset(name.rpartition(".")[2] for name in catalog.TASK_DECORATORS)
    | catalog.TASK_DECORATOR_METHODS
    | catalog.UNIMPORTED_TASK_DECORATOR_NAMES
)
_BASE_WORDS = frozenset(name.rpartition(".")[2] for name in catalog.CELERY_TASK_BASES)
# In a module that enqueues, detection scans every body for registrations
# (``queue.enqueue(f)``, ``app.task(f)`` in a method, arq's ``func(f)``);
# in one that sets late acks, IDM009 reads every statement for settings
# (``app.conf``, ``Celery(...)``, task options, a class's attributes).  A
# definition that mentions any of what they look for is then parsed up front.
_ENQUEUE = re.compile("|".join(re.escape(word) for word in catalog.HANDING_TEXT))
_LATE_ACKS = re.compile(r"acks_late|ACKS_LATE")
_ARQ_WRAPPER_WORDS = frozenset(name.rpartition(".")[2] for name in catalog.ARQ_WRAPPERS)
_CELERY_CONFIG_WORDS = frozenset({"Celery", "conf"})
_SETTING_WORDS = r"enqueue|Job\.create|cheduler|send_task|acks_late|ACKS_LATE|reject_on_worker_lost|REJECT_ON_WORKER_LOST"
# ``app.register_task(Sync())``: a class-based task whatever its bases.
_REGISTERED_CLASS = re.compile(r"register_task\(\s*(\w+)")
# The methods that make a class a task (Celery's ``run``) or a decorator.
_TASK_METHODS = frozenset({"run", "__call__"})
# Aliases are followed this many assignments deep (``b = a; c = b``).
MAX_ALIAS_DEPTH = 5

_AnyDefinition = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]


def decorator_mentions(words: Iterable[str]) -> "re.Pattern[str]":
    """Any of ``words`` as a whole name (each alternative a literal: linear)."""
    return re.compile(r"\b(?:%s)\b" % "|".join(sorted(re.escape(word) for word in words)))


def words_or_settings(words: Iterable[str]) -> "re.Pattern[str]":
    """Any of ``words`` as a whole name, or a word that enqueues or sets late acks."""
    return re.compile(r"%s|%s" % (decorator_mentions(words).pattern, _SETTING_WORDS))


# What may stand between a name and the bracket that calls it: space, a
# line continuation, the end of ``(name)``; and comments, to their line's end.
_BEFORE_CALL = frozenset("\\)")
_LINE_END = re.compile(r"[\r\n]")


def called_at(names: "re.Pattern[str]", text: str) -> List[int]:
    """Where in ``text`` a name ``names`` finds is called: followed, past
    space, continuations, closing brackets and comments, by ``(``.  The
    places do not overlap: one found, the next is looked for past its bracket.

    A scan, not a regular expression: a comment's text may hold anything a
    comment can (a banner of ``#``), and a pattern that may end a comment
    anywhere splits such a run in exponentially many ways.  Each stretch
    between comments is read once: a name inside a comment resumes where
    an earlier name's scan already went, past that comment's line end.
    """
    found: List[int] = []
    line_ends: Optional[List[int]] = None
    after_line_end: Dict[int, Optional[int]] = {}
    resume = 0
    for match in names.finditer(text):
        if match.start() < resume:
            continue
        position = match.end()
        passed: List[int] = []  # the line ends of the comments passed
        bracket: Optional[int] = None
        while position < len(text):
            character = text[position]
            if character == "(":
                bracket = position
                break
            if character == "#":
                if line_ends is None:
                    line_ends = [end.start() for end in _LINE_END.finditer(text)]
                index = bisect.bisect_left(line_ends, position)
                position = line_ends[index] if index < len(line_ends) else len(text)
                if position in after_line_end:
                    bracket = after_line_end[position]
                    break
                passed.append(position)
            elif character.isspace() or character in _BEFORE_CALL:
                position += 1
            else:
                break
        for end in passed:
            after_line_end[end] = bracket
        if bracket is not None:
            found.append(match.start())
            resume = bracket + 1
    return found


class Screen:
    """Which top-level definitions of one module can wait until asked for.

    What detection looks for is parsed up front: functions with a decorator
    that may make a task, ``Task`` subclasses, classes with such a method
    or arq settings, and the module's own task-decorator wrappers
    (functions that call a task decorator, classes that subclass or call
    one).  A decorator may make a task when its last name part is a task
    decorator's, a configured one's, a wrapper's of this module, or bound
    at module level to one of those (an alias, an instance, a ``partial``
    of one); or, in a
    whole-project run (``project_decorator``, see
    :meth:`idemlint.project.Project.may_be_task_decorator`), when the name
    it resolves to may be the project's own wrapper.
    """

    def __init__(
        self,
        tree: ast.Module,
        segments: Sequence[Segment],
        lines: Sequence[str],
        configured: Sequence[str] = (),
        package: Optional[str] = None,
        project_decorator: Optional[Callable[[str], bool]] = None,
    ) -> None:
        self._segments = segments
        self._lines = lines
        self._project_decorator = project_decorator
        self._imports = _imports(tree, package)
        self._aliases = _aliases(tree)
        bindings = list(_bindings(tree))
        decorators = _closure(set(_DECORATOR_WORDS) | {n.rpartition(".")[2] for n in configured}, bindings)
        self._bases = _closure(set(_BASE_WORDS), bindings)
        self._mentions = decorator_mentions(decorators)
        self._calls_decorator = decorators
        text = "".join(lines)
        # The decorator names the module's text holds at all: a definition
        # whose text holds none of them cannot call one, since both patterns
        # above match a name as it is written.
        self._spelled = [word for word in decorators if word in text]
        self._wrapper_names = self._wrappers()
        self._decorators = _closure(decorators | self._wrapper_names, bindings)
        enqueues = _ENQUEUE.search(text) is not None
        self._read_everywhere = self._words_read_everywhere(text, enqueues, bindings)
        self._hands_functions = project_decorator is not None and enqueues
        self._registered = set(_REGISTERED_CLASS.findall(text)) if "register_task" in text else set()
        self._local_classes: Optional[Dict[str, List[ast.ClassDef]]] = None
        self._bases_only: Set[int] = set()
        # The classes left as text that detection still reads (see
        # :meth:`_needed_class`), by segment number; known after :meth:`deferred`.
        self.detected: Set[int] = set()

    def deferred(self) -> Dict[int, Segment]:
        """Segment number -> segment, for the definitions parsed only when asked for."""
        waiting: Dict[int, Segment] = {}
        classes: Dict[str, int] = {}
        for segment in self._segments:
            definition = segment.definition()
            if definition is None:
                # An import's bindings are CPython's to tell (see import_bindings).
                if segment.imports() or segment.is_inert() or self._data_waits(segment):
                    waiting[segment.number] = segment
                continue
            if self._needed(segment, definition):
                continue
            waiting[segment.number] = segment
            if isinstance(definition, ast.ClassDef):
                classes[definition.name] = segment.number
                if id(definition) in self._bases_only:
                    self.detected.add(segment.number)
        # A subclass of a class parsed up front (``class Charge(BaseTask)``)
        # is too; a subclass of one detection reads is read by detection as
        # well (a model's or a repository's family of classes stays text
        # until detection asks whether one is a task).
        eager_classes = _class_names(s for s in self._segments if s.number not in waiting)
        read_classes = {name for name, number in classes.items() if number in self.detected}
        changed = True
        while changed:
            changed = False
            for name, number in list(classes.items()):
                definition = waiting[number].definition()
                assert isinstance(definition, ast.ClassDef)
                bases = {_dotted(base) for base in definition.bases}
                # One that can be a task itself (a ``run``) is parsed up
                # front: class-based tasks are found among those.
                if bases & eager_classes or (bases & read_classes and _defines_task_method(definition)):
                    del waiting[number], classes[name]
                    self.detected.discard(number)
                    read_classes.discard(name)
                    eager_classes.add(name)
                    changed = True
                elif bases & read_classes and name not in read_classes:
                    self.detected.add(number)
                    read_classes.add(name)
                    changed = True
        return waiting

    def _wrappers(self) -> Set[str]:
        """Functions and classes of the module that may wrap a task
        decorator: those that call one (the text mentions it, the syntax tree
        confirms a call), classes that subclass one, and any function defined
        inside a top-level ``if`` or ``try``."""
        wrappers: Set[str] = set()
        for segment in self._segments:
            definition = segment.definition()
            if definition is None:
                wrappers |= {n.name for n in _top_level(segment.statements) if isinstance(n, _Function)}
            elif isinstance(definition, ast.ClassDef) and any(
                _last_part(base) in self._calls_decorator for base in definition.bases
            ):
                wrappers.add(definition.name)
            elif isinstance(definition, _Definition) and self._calls_a_decorator(segment, definition):
                wrappers.add(definition.name)
        return wrappers

    def _calls_a_decorator(self, segment: Segment, definition: _AnyDefinition) -> bool:
        """Whether ``definition`` calls a task decorator: the syntax tree
        confirms what the text says, on the lines where the text says it."""
        lines = self._decorator_call_lines(segment)
        for node in _nodes_on(definition, lines) if lines else ():
            if isinstance(node, ast.Call):
                target = node.func.func if isinstance(node.func, ast.Call) else node.func
                if _last_part(target) in self._calls_decorator:
                    return True
        return False

    def _decorator_call_lines(self, segment: Segment) -> List[int]:
        """The lines on which ``segment`` may call a task decorator, by the
        line of the name called: where the text shows the call and, when
        the text has other than ASCII but mentions a decorator, every line
        with other than ASCII (CPython normalises names, NFKC, so such a
        line may call one spelled otherwise)."""
        text = self._text(segment)
        if not any(word in text for word in self._spelled):
            return []
        ascii_only = text.isascii()
        if not ascii_only and not self._mentions.search(text):
            return []
        lines = self._lines[segment.first_line - 1 : segment.last_line]
        ends = list(itertools.accumulate(map(len, lines)))
        called = [segment.first_line + bisect.bisect_right(ends, start) for start in called_at(self._mentions, text)]
        if ascii_only:
            return called
        return called + [segment.first_line + number for number, line in enumerate(lines) if not line.isascii()]

    def _text(self, segment: Segment) -> str:
        return "".join(self._lines[segment.first_line - 1 : segment.last_line])

    def _words_read_everywhere(
        self, text: str, enqueues: bool, bindings: Sequence[Tuple[str, str]]
    ) -> Optional["re.Pattern[str]"]:
        words: Set[str] = set()
        if enqueues:
            words |= self._decorators | _closure(set(_ARQ_WRAPPER_WORDS), bindings)
        if _LATE_ACKS.search(text):
            words |= self._decorators | _closure(set(_CELERY_CONFIG_WORDS), bindings)
        return words_or_settings(words) if words else None

    def _data_waits(self, segment: Segment) -> bool:
        """Whether a module-level assignment of data can stay text: a
        settings table or a dict of choices is read, if at all, when one of
        its names is looked up.  Not one IDM009 reads among the module's
        statements (a worker's pool, a late-acks setting)."""
        names = segment.data_names()
        if not names or any(name in catalog.WORKER_POOL_SETTINGS for name in names):
            return False
        return self._read_everywhere is None or not self._read_everywhere.search(self._text(segment))

    def _needed(self, segment: Segment, definition: _AnyDefinition) -> bool:
        if self._read_everywhere is not None and self._read_everywhere.search(self._text(segment)):
            return True
        if self._hands_functions and self._may_call_project_wrapper(definition):
            return True
        if definition.name in self._wrapper_names:
            return True
        if isinstance(definition, ast.ClassDef):
            return self._needed_class(definition)
        return self._decorated_as_task(definition)

    def _may_call_project_wrapper(self, definition: _AnyDefinition) -> bool:
        """Whether the definition passes a name to a function imported from
        the project, which may be the project's own wrapper of ``enqueue``
        (``run_later(refresh)``): detection reads such calls in a module
        that hands functions to RQ."""
        assert self._project_decorator is not None
        for node in ast.walk(definition):
            if isinstance(node, ast.Call) and any(
                isinstance(arg, (ast.Name, ast.Attribute)) for arg in node.args
            ):
                spelled = _dotted(node.func)
                qualified = self._qualified(spelled, MAX_ALIAS_DEPTH) if spelled else None
                if qualified is not None and self._project_decorator(qualified):
                    return True
        return False

    def _needed_class(self, definition: ast.ClassDef) -> bool:
        if definition.name in self._registered:
            return True
        if any(_last_part(base) in self._bases or "Task" in _dotted(base) for base in definition.bases):
            return True
        subclasses_project = self._project_decorator is not None and any(
            self._from_project(_dotted(base)) for base in definition.bases
        )
        for member in definition.body:
            if isinstance(member, _Function) and self._decorated_as_task(member):
                return True
            if isinstance(member, (ast.Assign, ast.AnnAssign)) and any(
                isinstance(target, ast.Name) and target.id in catalog.ARQ_SETTINGS_LISTS
                for target in (member.targets if isinstance(member, ast.Assign) else [member.target])
            ):
                return True
        if not subclasses_project:
            return False
        # A subclass of a project class may be a task class through its
        # bases: one that can be a task itself (a ``run`` or ``__call__``, or
        # methods from a base in the module) is parsed up front; any other
        # only matters as a base, and detection parses it when it asks.
        if self._may_be_a_task_itself(definition):
            return True
        self._bases_only.add(id(definition))
        return False

    def _may_be_a_task_itself(self, definition: ast.ClassDef) -> bool:
        """Whether the class defines what a task class runs, or inherits it
        from a class of its own module; what it inherits from elsewhere is
        detection's to ask (a subclass of a local class parsed up front is
        parsed up front too, see :meth:`deferred`)."""
        if self._local_classes is None:
            self._local_classes = _classes_by_name(self._segments)
        return _runs_in_module(definition, self._local_classes, set())

    def _decorated_as_task(self, function: Union[ast.FunctionDef, ast.AsyncFunctionDef]) -> bool:
        return any(self._may_make_task(decorator) for decorator in function.decorator_list)

    def _may_make_task(self, decorator: ast.expr) -> bool:
        spelled = _dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
        if not spelled:
            return False
        if spelled.rpartition(".")[2] in self._decorators:
            return True
        if self._project_decorator is None:
            return False
        qualified = self._qualified(spelled, MAX_ALIAS_DEPTH)
        return qualified is not None and self._project_decorator(qualified)

    def _from_project(self, spelled: str) -> bool:
        assert self._project_decorator is not None
        qualified = self._qualified(spelled, MAX_ALIAS_DEPTH) if spelled else None
        return qualified is not None and self._project_decorator(qualified)

    def _qualified(self, spelled: str, depth: int) -> Optional[str]:
        """The imported name ``spelled`` resolves to, through the module's
        assignments first, as :class:`idemlint.names.Resolver` resolves it."""
        first, _, rest = spelled.partition(".")
        if first in self._aliases and depth > 0:
            base = self._qualified(self._aliases[first], depth - 1)
        else:
            base = self._imports.get(first)
        return ".".join(part for part in (base, rest) if part) if base else None


def _defines_task_method(definition: ast.ClassDef) -> bool:
    """Whether a class's body defines what a task class runs (``run``, ``__call__``)."""
    return any(isinstance(m, _Function) and m.name in _TASK_METHODS for m in definition.body)


def _closure(names: Set[str], bindings: Sequence[Tuple[str, str]]) -> Set[str]:
    """``names`` and every local name bound to one of them, however indirectly."""
    found = set(names)
    for _ in range(MAX_ALIAS_DEPTH):
        added = {local for bound, local in bindings if bound in found} - found
        if not added:
            break
        found |= added
    return found


def _imports(tree: ast.Module, package: Optional[str]) -> Dict[str, str]:
    """Local name -> qualified name, as :func:`idemlint.names.import_bindings` reads them."""
    table: Dict[str, str] = {}
    for node in _top_level(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            table.update(import_bindings(node, package))
    return table


def import_bindings(node: Union[ast.Import, ast.ImportFrom], package: Optional[str]) -> Dict[str, str]:
    """What :func:`idemlint.names.import_bindings` reads of libcst's
    statement, read from CPython's."""
    table: Dict[str, str] = {}
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname is not None:
                table[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                table[top] = top
        return table
    module = node.module or ""
    if node.level:
        module = absolute_module("." * node.level, module, package)
    for alias in node.names:
        if alias.name != "*":
            table[alias.asname or alias.name] = f"{module}.{alias.name}" if module else alias.name
    return table


def _aliases(tree: ast.Module) -> Dict[str, str]:
    """Module-level names assigned a dotted name (``mytask = deco.mytask``)."""
    found: Dict[str, str] = {}
    for node in _top_level(tree.body):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            value = _dotted(node.value)
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    if value:
                        found[target.id] = value
                    else:
                        found.pop(target.id, None)
    return found


def _bindings(tree: ast.Module) -> Iterator[Tuple[str, str]]:
    """(last part of the name bound, local name) for the module's imports and
    its simple aliases (``BaseTask = celery.Task``), at any depth of the top
    level's ``if``/``try`` blocks."""
    for node in _top_level(tree.body):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                yield alias.name, alias.asname or alias.name
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    yield _bound_part(node.value), target.id


def _bound_part(value: ast.expr) -> str:
    """The last name part of what a module-level value applies to a function:
    an alias's (``task = app.task``), a decorator instance's
    (``retrying_task = shared_task(acks_late=True)``), a partial's first
    argument's (``job = partial(rq_job, connection=c)``)."""
    if not isinstance(value, ast.Call):
        return _last_part(value)
    if _last_part(value.func) == "partial" and value.args:
        return _last_part(value.args[0])
    return _last_part(value.func)


def _top_level(statements: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    for statement in statements:
        yield statement
        if isinstance(statement, (ast.If, ast.Try)):
            yield from _top_level(statement.body)
            yield from _top_level(statement.orelse)
            if isinstance(statement, ast.Try):
                for handler in statement.handlers:
                    yield from _top_level(handler.body)


def _runs_in_module(
    definition: ast.ClassDef, local: Mapping[str, Sequence[ast.ClassDef]], seen: Set[str]
) -> bool:
    """Whether ``definition`` or one of its bases among the module's classes
    ``local`` (transitively) defines what a task class runs."""
    if _defines_task_method(definition):
        return True
    for base in map(_dotted, definition.bases):
        if base in local and base not in seen:
            seen.add(base)
            if any(_runs_in_module(owner, local, seen) for owner in local[base]):
                return True
    return False


def _classes_by_name(segments: Iterable[Segment]) -> Dict[str, List[ast.ClassDef]]:
    found: Dict[str, List[ast.ClassDef]] = {}
    for segment in segments:
        for node in _top_level(segment.statements):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(node)
    return found


def _class_names(segments: Iterable[Segment]) -> Set[str]:
    return set(_classes_by_name(segments))


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def _last_part(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


@dataclass(frozen=True)
class Piece:
    """Statements parsed together by libcst, and their CPython counterparts."""

    module: cst.Module
    tree: ast.Module


class Later:
    """The module's definitions left as text, each parsed on its own when first asked for."""

    def __init__(
        self, lines: Sequence[str], waiting: Mapping[int, Segment], detected: AbstractSet[int] = frozenset()
    ) -> None:
        self._lines = lines
        self.waiting = dict(waiting)
        self.detected = detected  # the classes detection reads (Screen.detected)
        self.pieces: List[Piece] = []  # parsed so far, for positions
        # Each member parsed alone, by its CPython statement: every
        # resolution that asks for it gets the same tree, so a method walked
        # for one task is a summary the next can replay.
        self._members: Dict[ast.stmt, Optional[cst.ClassDef]] = {}

    def parse(self, segment: Segment) -> cst.BaseCompoundStatement:
        statement = self._parse(segment)
        assert isinstance(statement, cst.BaseCompoundStatement)
        return statement

    def parse_data(self, segment: Segment) -> cst.BaseExpression:
        """The value of an assignment left as text (see :meth:`Segment.data_names`)."""
        statement = self._parse(segment)
        assert isinstance(statement, cst.SimpleStatementLine)
        (small,) = statement.body
        assert isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None
        return small.value

    def _parse(self, segment: Segment) -> cst.BaseStatement:
        text = "".join(self._lines[segment.first_line - 1 : segment.last_line])
        module = cst.parse_module(text)
        (statement,) = module.body
        self.pieces.append(Piece(module, ast.Module(body=list(segment.statements), type_ignores=[])))
        return statement

    def parse_member(self, segment: Segment, member: ast.stmt) -> Optional[cst.ClassDef]:
        """The class of ``segment`` with ``member`` (a statement of its body)
        as its only member: its header's lines and the member's, parsed
        together.  A method called on a class of thousands of lines costs
        the method's parse, not the class's (a class with a method has an
        indented body, below its header).  Parsed once a run."""
        if member not in self._members:
            self._members[member] = self._parse_member(segment, member)
        return self._members[member]

    def _parse_member(self, segment: Segment, member: ast.stmt) -> Optional[cst.ClassDef]:
        klass = segment.definition()
        if not isinstance(klass, ast.ClassDef) or member not in klass.body:
            return None
        body = klass.body
        header_end = _starts(body[0]) - 1
        place = body.index(member)
        end = _starts(body[place + 1]) - 1 if place + 1 < len(body) else segment.last_line
        lines = self._lines
        text = "".join(lines[segment.first_line - 1 : header_end]) + "".join(lines[_starts(member) - 1 : end])
        module = cst.parse_module(text)
        (statement,) = module.body
        if not isinstance(statement, cst.ClassDef) or len(statement.body.body) != 1:
            return None
        alone = ast.ClassDef(
            name=klass.name,
            bases=klass.bases,
            keywords=klass.keywords,
            body=[member],
            decorator_list=klass.decorator_list,
            lineno=klass.lineno,
            col_offset=klass.col_offset,
        )
        self.pieces.append(Piece(module, ast.Module(body=[alone], type_ignores=[])))
        return statement


def _starts(statement: ast.stmt) -> int:
    """The first line of a statement, its decorators' included."""
    decorators: Sequence[ast.expr] = getattr(statement, "decorator_list", ())
    return min([statement.lineno, *(d.lineno for d in decorators)])


def _nodes_on(root: ast.AST, lines: Sequence[int]) -> Iterator[ast.AST]:
    """The nodes under ``root`` (itself included) that span one of ``lines``
    (a definition from its first decorator), and those that carry no
    position.  CPython 3.9 to 3.13 place what f-string fields hold on their
    own lines too (measured, multi-line and nested f-strings included)."""
    waiting = [root]
    while waiting:
        node = waiting.pop()
        first: Optional[int] = getattr(node, "lineno", None)
        if first is not None:
            if isinstance(node, _Definition):
                first = _starts(node)
            last = getattr(node, "end_lineno", None) or first
            if not any(first <= line <= last for line in lines):
                continue
        yield node
        waiting.extend(ast.iter_child_nodes(node))


@dataclass(frozen=True)
class Outline:
    """CPython's statement of a definition left as text, enough to answer
    what it holds (a class's methods and bases) without parsing it, and
    the way to parse one method of a class alone (:meth:`Later.parse_member`)."""

    statement: ast.stmt
    later: Later
    segment: Segment

    def parse_member(self, member: ast.stmt) -> Optional[cst.ClassDef]:
        return self.later.parse_member(self.segment, member)


class Definitions(Generic[Node]):
    """Top-level functions (or classes) by name, the last definition of a name
    winning; those left as text are parsed on first access.

    Not a full mapping on purpose: detection iterates :meth:`up_front`, and
    nothing can iterate the definitions left waiting (which would parse
    them all, and make what is found depend on what was asked before).
    """

    def __init__(self) -> None:
        self._up_front: Dict[str, Tuple[int, Node]] = {}
        self._waiting: Dict[str, Tuple[int, Callable[[], Node]]] = {}
        self._outlines: Dict[str, Outline] = {}
        self._parsed: Dict[str, Node] = {}
        self._up_front_nodes: Optional[Dict[str, Node]] = None
        self._detected: Dict[str, None] = {}  # waiting, but read by detection (ordered)

    def add(self, name: str, number: int, node: Node) -> None:
        """A definition parsed up front, ``number`` its place in the module."""
        if name not in self._waiting or number > self._waiting[name][0]:
            self._waiting.pop(name, None)
            self._detected.pop(name, None)
            self._up_front[name] = (number, node)
            self._up_front_nodes = None

    def add_waiting(
        self,
        name: str,
        number: int,
        parse: Callable[[], Node],
        outline: Outline,
        detected: bool = False,
    ) -> None:
        """A definition left as text, which ``parse`` turns into its node;
        ``outline`` is what CPython says of it (see :meth:`outline`);
        ``detected``: detection reads it all the same (see :meth:`detected`)."""
        if name not in self._up_front or number > self._up_front[name][0]:
            self._up_front.pop(name, None)
            self._waiting[name] = (number, parse)
            self._outlines[name] = outline
            self._detected.pop(name, None)
            if detected:
                self._detected[name] = None
            self._up_front_nodes = None

    def detected(self) -> List[str]:
        """The names left as text that detection reads besides :meth:`up_front`
        (a class that can be a task only through its bases): parsed when
        detection asks about them, in the same way whatever was asked before."""
        return list(self._detected)

    def up_front(self) -> Dict[str, Node]:
        if self._up_front_nodes is None:
            self._up_front_nodes = {name: node for name, (_, node) in self._up_front.items()}
        return self._up_front_nodes

    def outline(self, name: str) -> Optional[Outline]:
        """The outline of a definition libcst has not parsed yet (None
        once it has, or for one parsed up front)."""
        if name in self._up_front or name in self._parsed:
            return None
        return self._outlines.get(name)

    def get(self, name: str) -> Optional[Node]:
        if name in self._up_front:
            return self._up_front[name][1]
        if name not in self._waiting:
            return None
        if name not in self._parsed:
            self._parsed[name] = self._waiting[name][1]()
        return self._parsed[name]

    def __getitem__(self, name: str) -> Node:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def __iter__(self) -> Iterator[str]:
        """The names (parsing nothing)."""
        yield from self._up_front
        yield from self._waiting

    def __contains__(self, name: object) -> bool:
        return name in self._up_front or name in self._waiting


class Constants(Mapping[str, cst.BaseExpression]):
    """A module's top-level ``name = value`` bindings, added in module order
    so that the last one of a name wins; values left as text (see
    :meth:`Segment.data_names`) are parsed on first access.

    Iterating the names parses nothing; :meth:`up_front` holds the values
    parsed with the module, among them every one name resolution reads.
    """

    def __init__(self) -> None:
        self._up_front: Dict[str, cst.BaseExpression] = {}
        self._waiting: Dict[str, Callable[[], cst.BaseExpression]] = {}
        self._parsed: Dict[str, cst.BaseExpression] = {}
        # Names a module-level ``if``/``try`` binds differently on its
        # branches: every value the name may hold once the module has run,
        # in the order written (the mapping itself holds the last written).
        self.alternatives: Dict[str, List[cst.BaseExpression]] = {}

    def add(self, name: str, value: cst.BaseExpression) -> None:
        """A binding parsed up front."""
        self._waiting.pop(name, None)
        self._parsed.pop(name, None)
        self._up_front[name] = value

    def add_waiting(self, name: str, parse: Callable[[], cst.BaseExpression]) -> None:
        """A binding left as text, whose value ``parse`` gives."""
        self._up_front.pop(name, None)
        self._parsed.pop(name, None)
        self._waiting[name] = parse

    def up_front(self) -> Dict[str, cst.BaseExpression]:
        return dict(self._up_front)

    def waiting(self, name: str) -> bool:
        """Whether ``name``'s value is left as text, not parsed yet."""
        return name in self._waiting and name not in self._parsed

    def __getitem__(self, name: str) -> cst.BaseExpression:
        if name in self._up_front:
            return self._up_front[name]
        if name not in self._parsed:
            self._parsed[name] = self._waiting[name]()  # KeyError for an unknown name
        return self._parsed[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._up_front
        yield from self._waiting

    def __len__(self) -> int:
        return len(self._up_front) + len(self._waiting)

    def __contains__(self, name: object) -> bool:
        return name in self._up_front or name in self._waiting
