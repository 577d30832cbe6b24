"""Parse with libcst only the top-level definitions an analysis can use.

libcst turns every token into Python objects, and most of the text of a
module that holds tasks, and nearly all of a module a task reaches, is
definitions no rule reads: a Django migration's one class, a models module's
classes, views.  CPython's AST, built anyway to screen the file, tells where
each top-level statement starts and ends and what its header says.  A
function or class that :class:`Screen` finds no use for up front stays text;
it is parsed on its own when the analysis asks for it by name (a helper a
task calls, a class whose instance a task makes).

Everything detection iterates over is parsed up front: decorated functions,
``Task`` subclasses, functions that may wrap a task decorator, arq settings,
bodies that enqueue or set ``acks_late``.  What detection finds therefore
never depends on what an analysis happened to ask for before.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import (
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


def split(tree: ast.Module) -> List[Segment]:
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
    return segments


# The last parts of the names that make a task decorator or a Task base.
_DECORATOR_WORDS = (
    frozenset(name.rpartition(".")[2] for name in catalog.TASK_DECORATORS)
    | catalog.TASK_DECORATOR_METHODS
    | catalog.UNIMPORTED_TASK_DECORATOR_NAMES
)
_BASE_WORDS = frozenset(name.rpartition(".")[2] for name in catalog.CELERY_TASK_BASES)
# What else detection and IDM009 read in a body: RQ's enqueue calls, late acks.
_BODY_WORDS = re.compile(r"enqueue|acks_late|ACKS_LATE|reject_on_worker_lost|REJECT_ON_WORKER_LOST")

_AnyDefinition = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]


class Screen:
    """Which top-level definitions of one module can wait until asked for.

    A decorator can make a task when its name is a task decorator's (or an
    alias of one, or configured), a function of this module that calls one
    (the module's own wrapper), or, with ``project_decorator``, an imported
    name that function says may be the project's own wrapper (its module is
    in the project; see :meth:`idemlint.project.Project.may_be_task_decorator`).
    """

    def __init__(
        self,
        tree: ast.Module,
        lines: Sequence[str],
        configured: Sequence[str] = (),
        package: Optional[str] = None,
        project_decorator: Optional[Callable[[str], bool]] = None,
    ) -> None:
        self._lines = lines
        self._project_decorator = project_decorator
        self._decorators = set(_DECORATOR_WORDS) | {name.rpartition(".")[2] for name in configured}
        self._bases = set(_BASE_WORDS)
        for imported, local in _bindings(tree):
            if imported in self._decorators:
                self._decorators.add(local)
            if imported in self._bases:
                self._bases.add(local)
        words = "|".join(sorted(re.escape(word) for word in self._decorators))
        self._decorator_call = re.compile(rf"\b(?:{words})\s*\(")
        self._imports = _imports(tree, package)
        # An imported name also bound by an assignment resolves through the assignment.
        self._rebound = _assigned(tree) & set(self._imports)
        self._wrappers: Set[str] = set()

    def deferred(self, segments: Sequence[Segment]) -> Dict[int, Segment]:
        """Segment number -> segment, for the definitions parsed only when asked for."""
        self._wrappers = self._possible_wrappers(segments)
        waiting: Dict[int, Segment] = {}
        classes: Dict[str, int] = {}
        for segment in segments:
            definition = segment.definition()
            if definition is None or self._needed(segment, definition):
                continue
            waiting[segment.number] = segment
            if isinstance(definition, ast.ClassDef):
                classes[definition.name] = segment.number
        # A subclass of a class parsed up front (``class Charge(BaseTask)``) is too.
        eager_classes = _class_names(s for s in segments if s.number not in waiting)
        changed = True
        while changed:
            changed = False
            for name, number in list(classes.items()):
                definition = waiting[number].definition()
                assert isinstance(definition, ast.ClassDef)
                if any(_dotted(base) in eager_classes for base in definition.bases):
                    del waiting[number], classes[name]
                    eager_classes.add(name)
                    changed = True
        return waiting

    def _possible_wrappers(self, segments: Sequence[Segment]) -> Set[str]:
        """Functions of the module that may wrap a task decorator: those that
        call one, and any defined inside a top-level ``if`` or ``try``."""
        wrappers: Set[str] = set()
        for segment in segments:
            definition = segment.definition()
            if definition is None:
                wrappers |= {
                    node.name
                    for node in _top_level(segment.statements)
                    if isinstance(node, _Function)
                }
            elif isinstance(definition, _Function) and self._decorator_call.search(self._text(segment)):
                wrappers.add(definition.name)
        return wrappers

    def _text(self, segment: Segment) -> str:
        return "".join(self._lines[segment.first_line - 1 : segment.last_line])

    def _needed(self, segment: Segment, definition: _AnyDefinition) -> bool:
        if _BODY_WORDS.search(self._text(segment)):
            return True
        if isinstance(definition, ast.ClassDef):
            return self._needed_class(definition)
        return definition.name in self._wrappers or self._decorated_as_task(definition)

    def _needed_class(self, definition: ast.ClassDef) -> bool:
        if any(_last_part(base) in self._bases or "Task" in _dotted(base) for base in definition.bases):
            return True
        for member in definition.body:
            if isinstance(member, _Function) and self._decorated_as_task(member):
                return True
            if isinstance(member, (ast.Assign, ast.AnnAssign)) and any(
                isinstance(target, ast.Name) and target.id in catalog.ARQ_SETTINGS_LISTS
                for target in (member.targets if isinstance(member, ast.Assign) else [member.target])
            ):
                return True
        return False

    def _decorated_as_task(self, function: Union[ast.FunctionDef, ast.AsyncFunctionDef]) -> bool:
        return any(self._may_make_task(decorator) for decorator in function.decorator_list)

    def _may_make_task(self, decorator: ast.expr) -> bool:
        spelled = _dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
        if not spelled:
            return False
        first, _, rest = spelled.partition(".")
        if spelled.rpartition(".")[2] in self._decorators or first in self._wrappers:
            return True
        if first not in self._imports or self._project_decorator is None:
            return False
        if first in self._rebound:
            return True
        qualified = ".".join(part for part in (self._imports[first], rest) if part)
        return self._project_decorator(qualified)


def _imports(tree: ast.Module, package: Optional[str]) -> Dict[str, str]:
    """Local name -> qualified name, as :func:`idemlint.names.import_bindings` reads them."""
    table: Dict[str, str] = {}
    for node in _top_level(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is not None:
                    table[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    table[top] = top
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                module = absolute_module("." * node.level, module, package)
            for alias in node.names:
                if alias.name != "*":
                    table[alias.asname or alias.name] = f"{module}.{alias.name}" if module else alias.name
    return table


def _assigned(tree: ast.Module) -> Set[str]:
    return {
        target.id
        for node in _top_level(tree.body)
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }


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
                    yield _last_part(node.value), target.id


def _top_level(statements: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    for statement in statements:
        yield statement
        if isinstance(statement, (ast.If, ast.Try)):
            yield from _top_level(statement.body)
            yield from _top_level(statement.orelse)
            if isinstance(statement, ast.Try):
                for handler in statement.handlers:
                    yield from _top_level(handler.body)


def _class_names(segments: Iterable[Segment]) -> Set[str]:
    return {
        node.name
        for segment in segments
        for node in _top_level(segment.statements)
        if isinstance(node, ast.ClassDef)
    }


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

    def __init__(self, lines: Sequence[str], waiting: Mapping[int, Segment]) -> None:
        self._lines = lines
        self.waiting = dict(waiting)
        self.pieces: List[Piece] = []  # parsed so far, for positions

    def parse(self, segment: Segment) -> cst.BaseCompoundStatement:
        text = "".join(self._lines[segment.first_line - 1 : segment.last_line])
        module = cst.parse_module(text)
        (statement,) = module.body
        assert isinstance(statement, cst.BaseCompoundStatement)
        self.pieces.append(Piece(module, ast.Module(body=list(segment.statements), type_ignores=[])))
        return statement


class Definitions(Mapping[str, Node], Generic[Node]):
    """Top-level functions (or classes) by name, the last definition of a name
    winning; those left as text are parsed on first access.

    Detection iterates :meth:`up_front`, never the whole mapping: what waits
    is, by :class:`Screen`'s rules, nothing detection could find.
    """

    def __init__(self) -> None:
        self._up_front: Dict[str, Tuple[int, Node]] = {}
        self._waiting: Dict[str, Tuple[int, Callable[[], Node]]] = {}
        self._parsed: Dict[str, Node] = {}

    def add(self, name: str, number: int, node: Node) -> None:
        if number >= self._waiting.get(name, (-1, None))[0]:
            self._waiting.pop(name, None)
            self._up_front[name] = (number, node)

    def add_waiting(self, name: str, number: int, parse: Callable[[], Node]) -> None:
        if number >= self._up_front.get(name, (-1, None))[0]:
            self._up_front.pop(name, None)
            self._waiting[name] = (number, parse)

    def up_front(self) -> Dict[str, Node]:
        return {name: node for name, (_, node) in self._up_front.items()}

    def __getitem__(self, name: str) -> Node:
        if name in self._up_front:
            return self._up_front[name][1]
        if name not in self._parsed:
            _, parse = self._waiting[name]
            self._parsed[name] = parse()
        return self._parsed[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._up_front
        yield from self._waiting

    def __len__(self) -> int:
        return len(self._up_front) + len(self._waiting)

    def __contains__(self, name: object) -> bool:
        return name in self._up_front or name in self._waiting
