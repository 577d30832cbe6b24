"""The project's own modules, for following a task into other files.

In real applications the side effect often lives a module away from the
task: ``tasks.py`` calls ``emails.send_receipt()``, which calls
``send_mail``.  A :class:`Project` maps dotted module names to the files
found under the checked roots (``__init__.py`` packages and ``src/``
layouts), and parses a module only when a task actually reaches it; each
module is parsed and indexed at most once per run.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, TypeVar, Union

import libcst as cst

from idemlint import catalog
from idemlint.cache import UNREADABLE, content_hash
from idemlint.findings import FileProblem
from idemlint.modules import module_files, module_name
from idemlint.nesting import too_deep
from idemlint.reading import read_regular
from idemlint.segments import Later, Piece, Screen, Segment, split
from idemlint.tasks import (
    BoundDecorators,
    Handing,
    Made,
    ModuleIndex,
    Task,
    build_index,
    enqueue_wrappers,
    handed_target,
    registered_function,
    task_classes,
    task_decorator_wrappers,
)

MAX_ALIAS_HOPS = 5

Found = TypeVar("Found")

# A module name, the file it resolved to (None: no such module in the
# project) and the content hash of the bytes parsed from that file (None: the
# lookup asked only whether the module exists; see idemlint.cache).
Lookup = Tuple[str, Optional[str], Optional[str]]


@dataclass(frozen=True)
class LoadedModule:
    """One parsed module: its text, its index, and its statements as libcst
    and CPython parsed them: ``module`` and ``tree`` hold those parsed up
    front (all of them unless ``later`` holds some, see idemlint.segments)."""

    name: str
    path: str
    text: str
    module: cst.Module
    tree: ast.Module
    index: ModuleIndex
    later: Optional[Later] = None
    # The content hash of the bytes this was parsed from (None: given as text).
    digest: Optional[str] = None

    def pieces(self) -> List[Piece]:
        """The parsed statements, in pieces that each align with their CPython statements."""
        return [Piece(self.module, self.tree), *(self.later.pieces if self.later else ())]


class Project:
    """Modules by dotted name, loaded on demand by :meth:`load`."""

    def __init__(self, paths: Iterable[str], task_decorators: Sequence[str] = ()) -> None:
        self.files: Dict[str, str] = module_files(paths)
        self._task_decorators = task_decorators
        # Every module name looked up and the file it named, in order: what an
        # analysis depends on besides its own file (see idemlint.cache).
        self.lookups: List[Lookup] = []
        # Each module with what loading it looked up (which of its definitions
        # are parsed up front depends on it), replayed whenever it is used,
        # and the hash of the bytes read for it (cache.UNREADABLE: none).
        self._loaded: Dict[str, Tuple[Optional[LoadedModule], List[Lookup], str]] = {}
        self._decorators: Dict[str, Tuple[Optional[Made], List[Lookup]]] = {}
        # The names being followed, and whether an answer was cut short (see _followed).
        self._resolving: List[str] = []
        self._cut = False
        self._enqueue_wrappers: Dict[str, Dict[str, Handing]] = {}
        self._task_bases: Dict[str, Tuple[bool, List[Lookup]]] = {}
        self._wrappers: Dict[str, Dict[str, str]] = {}

    def load(self, name: str) -> Optional[LoadedModule]:
        """The module ``name`` (None when it is not in the project, or cannot
        be read or parsed); the lookup is recorded with the hash of exactly
        the bytes that were parsed, so that a file saved during the run is not
        cached under its new content."""
        path = self.files.get(name)
        if path is None:
            self.lookups.append((name, None, None))
            return None
        if name not in self._loaded:
            start = len(self.lookups)
            loaded, digest = read_module(path, self._task_decorators, self.may_be_task_decorator)
            self._loaded[name] = (loaded, self.lookups[start:], digest)
        else:
            self.lookups += self._loaded[name][1]
        loaded, _, digest = self._loaded[name]
        self.lookups.append((name, path, digest))
        return loaded

    def register(self, loaded: LoadedModule, lookups: Sequence[Lookup] = ()) -> None:
        """A module the engine parsed itself (a task file) is not parsed again:
        whoever looks it up depends on the bytes the engine read."""
        self._loaded[loaded.name] = (loaded, list(lookups), loaded.digest or UNREADABLE)

    def task_decorator(self, qualified: str) -> Optional[Made]:
        """What a project name makes when it decorates a function, None when
        it is no task decorator; found without configuration: a function or
        class that wraps a task decorator (sentry's ``instrumented_task``), a
        module-level alias, instance or ``partial`` of one, followed through
        re-exports (``from .celery import project_task`` in a package
        ``__init__``).  What it looked up is recorded every time it is asked."""
        return self._followed(self._decorators, qualified, self._task_decorator, None)

    def is_task_base(self, qualified: str) -> bool:
        """Whether a project name is a Celery ``Task`` subclass (a
        project-wide task base such as ``class BaseTask(celery.Task)``),
        followed through re-exports; recorded as looked up every time."""
        return self._followed(self._task_bases, qualified, self._is_task_base, False)

    def _followed(
        self,
        memo: Dict[str, Tuple[Found, List[Lookup]]],
        qualified: str,
        compute: Callable[[str], Found],
        nothing: Found,
    ) -> Found:
        """``compute(qualified)``, which may ask again about the names it
        re-exports: a cycle or a chain longer than ``MAX_ALIAS_HOPS`` finds
        ``nothing``, and an answer cut so is not remembered (it would make
        what a later question finds depend on the questions before it)."""
        if qualified in memo:
            found, lookups = memo[qualified]
            self.lookups += lookups
            return found
        if qualified in self._resolving or len(self._resolving) >= MAX_ALIAS_HOPS:
            self._cut = True
            return nothing
        cut_before, self._cut = self._cut, False
        start = len(self.lookups)
        self._resolving.append(qualified)
        try:
            found = compute(qualified)
        finally:
            self._resolving.pop()
        if not self._cut:
            memo[qualified] = (found, self.lookups[start:])
        self._cut = self._cut or cut_before
        return found

    def _is_task_base(self, qualified: str) -> bool:
        found = self._split(qualified)
        if found is None or len(found[1]) != 1:
            return False
        loaded, (name,) = found
        index = loaded.index
        if name in index.classes:
            owner = index.classes.get(name)
            classes = task_classes(index, index.resolver(), self.is_task_base, among=(name,))
            return any(owner is c for c in classes)
        if name in index.imports:
            return self.is_task_base(index.imports[name])
        return False

    def _task_decorator(self, qualified: str) -> Optional[Made]:
        found = self._split(qualified)
        if found is None or len(found[1]) != 1:
            return None
        loaded, (name,) = found
        index = loaded.index
        if loaded.name not in self._wrappers:  # found once per module
            self._wrappers[loaded.name] = task_decorator_wrappers(index, self._task_decorators)
        # A new one each time: what it remembers was looked up for another question.
        bound = BoundDecorators(
            index, self._task_decorators, self.task_decorator, self._wrappers[loaded.name]
        )(name)
        if bound is not None:
            return bound
        if name in index.imports and name not in index.functions and name not in index.constants:
            return self.task_decorator(index.imports[name])
        return None

    def enqueued_tasks(self, loaded: LoadedModule) -> List[Tuple[Task, LoadedModule]]:
        """The functions ``loaded`` hands RQ that detection in the module
        alone cannot see, as RQ tasks with the module that defines each:
        one of another project module (``queue.enqueue(billing.capture)``, an
        imported ``Class.method``), and any function handed to the
        project's own wrapper of ``enqueue`` defined in another module
        (``run_later(refresh)``)."""
        index = loaded.index
        found: Dict[int, Tuple[Task, LoadedModule]] = {}
        targets: List[Tuple[bool, str]] = [(False, name) for name in index.enqueued]
        for callee, call in index.wrapper_calls:
            handing = self.enqueue_wrapper(callee)
            handed = handing.argument(call) if handing is not None else None
            target = handed_target(index, handed) if handed is not None else None
            if target is not None:
                targets.append(target)
        for local, name in targets:
            if local:
                function = registered_function(index, name)
                if function is not None:
                    how = f"enqueued in {loaded.path}"
                    found.setdefault(id(function), (Task(name, function, "rq", {}, recognised=how), loaded))
                continue
            defined = self.function(name) or self._unbound_method(name)
            if defined is None:
                continue
            function, owner, home = defined
            task = function.name.value if owner is None else f"{owner.name.value}.{function.name.value}"
            how = f"enqueued in {loaded.path}"
            found.setdefault(id(function), (Task(task, function, "rq", {}, recognised=how), home))
        return list(found.values())

    def enqueue_wrapper(self, qualified: str) -> Optional[Handing]:
        """Where a project function that hands one of its parameters to RQ
        takes it (None: it is no such wrapper); what it loads is recorded
        as looked up."""
        defined = self.function(qualified)  # through re-exports
        if defined is None or defined[1] is not None:
            return None
        function, _, home = defined
        if home.name not in self._enqueue_wrappers:
            self._enqueue_wrappers[home.name] = enqueue_wrappers(home.index)
        return self._enqueue_wrappers[home.name].get(function.name.value)

    def _unbound_method(
        self, qualified: str
    ) -> Optional[Tuple[cst.FunctionDef, Optional[cst.ClassDef], LoadedModule]]:
        """``module.Class.method`` handed over as it is: the method of ``Class``."""
        owner, _, method = qualified.rpartition(".")
        return self.function(f"{owner}().{method}") if owner and "()" not in owner else None

    def may_be_task_decorator(self, qualified: str) -> bool:
        """Whether :meth:`task_decorator` could say yes, known without
        parsing anything: the name's module is in the project.  The lookup is
        recorded as that method records it."""
        module = qualified.rpartition(".")[0]
        if not module:
            return False
        self.lookups.append((module, self.files.get(module), None))
        return module in self.files

    def function(
        self, qualified: str
    ) -> Optional[Tuple[cst.FunctionDef, Optional[cst.ClassDef], LoadedModule]]:
        """The project function (or method of ``Class()``) a resolved name denotes.

        ``shop.billing.capture`` is ``capture`` in ``shop/billing.py``;
        ``shop.clients.Zendesk().create_ticket`` is a method of a class whose
        instance the caller made.  Re-exports (``from .billing import capture``
        in a package ``__init__``) are followed a few hops.
        """
        for _ in range(MAX_ALIAS_HOPS):
            found = self._split(qualified)
            if found is None:
                return None
            loaded, rest = found
            index = loaded.index
            if len(rest) == 1 and rest[0] in index.functions:
                return index.functions[rest[0]], None, loaded
            if len(rest) == 2 and rest[0].endswith("()"):
                owner = index.classes.get(rest[0][:-2])
                method = index.methods(owner).get(rest[1]) if owner is not None else None
                return (method, owner, loaded) if method is not None else None
            alias = index.imports.get(rest[0].rstrip("()"))
            if alias is None:
                return None
            suffix = "()" if rest[0].endswith("()") else ""
            qualified = ".".join([alias + suffix, *rest[1:]])
        return None

    def _split(self, qualified: str) -> Optional[Tuple[LoadedModule, List[str]]]:
        """The project module a name starts with, and what follows it.

        Only shapes that can name a function are tried (``module.function``,
        ``module.Class().method``), so ``models.Order.objects.get`` does not
        make us parse ``models``.
        """
        parts = qualified.split(".")
        for cut in (len(parts) - 1, len(parts) - 2):
            if cut < 1 or "()" in "".join(parts[:cut]):
                continue
            rest = parts[cut:]
            if len(rest) == 2 and not rest[0].endswith("()"):
                continue
            loaded = self.load(".".join(parts[:cut]))
            if loaded is not None:
                return loaded, rest
        return None


def decode(source: bytes, path: str) -> Union[str, FileProblem]:
    """Decode like Python does: PEP 263 cookie, BOM, UTF-8 by default."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except (SyntaxError, LookupError) as error:
        return FileProblem(path, 1, 1, "E902", f"cannot decode file: {error}")
    try:
        text = source.decode(encoding)
    except UnicodeDecodeError as error:
        line, column = _byte_position(source, error.start)
        byte = source[error.start]
        return FileProblem(
            path, line, column, "E902", f"cannot decode file as {encoding}: byte 0x{byte:02x}, {error.reason}"
        )
    return text[1:] if text.startswith("\ufeff") else text


def _byte_position(source: bytes, offset: int) -> Tuple[int, int]:
    """1-based line and column (in bytes) of ``offset``, lines ending as Python ends them."""
    before = source[:offset].splitlines(keepends=True) or [b""]
    if before[-1].endswith((b"\n", b"\r")):
        return len(before) + 1, 1
    return len(before), len(before[-1]) + 1


def load_source(
    source: Union[str, bytes],
    path: str,
    tree: Optional[ast.Module] = None,
    task_decorators: Sequence[str] = (),
    project_decorator: Optional[Callable[[str], bool]] = None,
) -> Union[LoadedModule, FileProblem]:
    """Decode, screen, parse with libcst and index one file.

    libcst's grammar decides what is valid, whatever Python runs idemlint.
    CPython's AST (``tree`` when the caller has it, else parsed here) tells
    where each top-level statement is, so that only what detection needs is
    parsed up front; a file the running CPython cannot parse (newer syntax)
    is parsed whole by libcst instead.  Definitions no detection needs are
    left for later, which ``task_decorators`` (the configured ones) and
    ``project_decorator`` (in a whole-project run,
    :meth:`Project.may_be_task_decorator`) help decide.
    """
    text = source if isinstance(source, str) else decode(source, path)
    if isinstance(text, FileProblem):
        return text
    text = text[1:] if text.startswith("\ufeff") else text  # a str given with its BOM
    screened = _screen(text, path)
    if screened is not None:
        return screened
    parsed = python_ast(text) if tree is None else tree
    digest = content_hash(source) if isinstance(source, bytes) else None
    if isinstance(parsed, Rejected):
        return _load_with_libcst_only(text, path, parsed, digest)
    tree = parsed
    name, package = module_name(path)
    lines = io.StringIO(text, newline="").readlines()
    segments = split(tree, len(lines))
    screen = Screen(tree, segments, lines, task_decorators, package or None, project_decorator)
    waiting = screen.deferred()
    up_front = [segment for segment in segments if segment.number not in waiting]
    partial = _parse_up_front(lines, up_front) if waiting else None
    if partial is None:
        module = _parse(text, path)
        if isinstance(module, FileProblem):
            return module
        index = build_index(module, package or None, scan_bodies=_hands_functions(text))
        return LoadedModule(name or path, path, text, module, tree, index, digest=digest)
    later = Later(lines, waiting, screen.detected)
    index = build_index(
        partial,
        package or None,
        scan_bodies=_hands_functions(text),
        later=later,
        numbers=[segment.number for segment in up_front],
    )
    statements = [statement for segment in up_front for statement in segment.statements]
    return LoadedModule(
        name or path, path, text, partial, ast.Module(body=statements, type_ignores=[]), index, later,
        digest,
    )


def _hands_functions(text: str) -> bool:
    """Whether the text may hand RQ a function in a function body (see
    ``tasks._handed_function``)."""
    return any(word in text for word in catalog.HANDING_TEXT)


def _parse(text: str, path: str, rejected: Optional[Rejected] = None) -> Union[cst.Module, FileProblem]:
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        return _syntax_error(path, text, str(error.message or ""), rejected)


# libcst's messages: a parser error names where it stopped and what it
# expected there; a tokenizer error names no position.
_PARSER_ERROR = re.compile(r"parser error: error at (\d+):(\d+): expected one of (.*)")
_TOKENIZER_ERROR = re.compile(r"tokenizer error: (.*)")
_MOST_EXPECTED = 6


def _syntax_error(path: str, text: str, message: str, rejected: Optional[Rejected]) -> FileProblem:
    """E999 in libcst's words (the same whatever Python runs idemlint).

    libcst places a parser error where it could go no further (a token, a
    line or the whole file after the error) and a tokenizer error nowhere;
    the running CPython's position is better when the error is there, not
    syntax that only CPython rejects (see :func:`_error_is_where_cpython_stopped`).
    """
    first = message.splitlines()[0] if message else ""
    parser = _PARSER_ERROR.match(first)
    tokenizer = _TOKENIZER_ERROR.match(first)
    if parser is not None:
        expected = parser.group(3).split(", ")
        said = f" (expected one of {', '.join(expected)})" if len(expected) <= _MOST_EXPECTED else ""
        reason = f"invalid syntax{said}"
        line, column = int(parser.group(1)), int(parser.group(2)) + 1
    else:
        reason = tokenizer.group(1) if tokenizer else first or "invalid syntax"
        line, column = 1, 1
    if rejected is not None and (parser is None or _error_is_where_cpython_stopped(text, rejected)):
        line, column = rejected.line, rejected.column
    return FileProblem(path, line, column, "E999", f"SyntaxError: {reason}")


def _error_is_where_cpython_stopped(text: str, rejected: Rejected) -> bool:
    """Whether libcst also rejects the file up to the end of the line the
    running CPython stopped on (with a body added, should that line open a
    block): then the error is there, not in syntax newer than CPython."""
    lines = io.StringIO(text, newline="").readlines()[: rejected.line]
    if not lines:
        return False
    last = lines[-1]
    indentation = last[: len(last) - len(last.lstrip(" \t"))]
    head = "".join(lines).rstrip("\r\n") + "\n"
    for candidate in (head, f"{head}{indentation}    pass\n"):
        try:
            cst.parse_module(candidate)
        except cst.ParserSyntaxError:
            continue
        return False
    return True


def _parse_up_front(lines: Sequence[str], up_front: List[Segment]) -> Optional[cst.Module]:
    """libcst's tree of the statements parsed up front, or None when it does
    not line up with CPython's (the whole module is parsed instead, and
    reports any error where it is)."""
    text = "".join("".join(lines[s.first_line - 1 : s.last_line]) for s in up_front)
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        return None
    expected = sum(len(segment.statements) for segment in up_front)
    found = sum(
        len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
        for statement in module.body
    )
    return module if found == expected else None


def _screen(text: str, path: str) -> Optional[FileProblem]:
    """E999 for what no parser may be given: NUL bytes (rejected by Python
    itself) and nesting past the limits of idemlint.nesting, which would
    crash libcst's native parser."""
    if "\0" in text:
        line, column = _text_position(text, text.index("\0"))
        message = "SyntaxError: source code string cannot contain null bytes"
        return FileProblem(path, line, column, "E999", message)
    deep = too_deep(text)
    if deep is None:
        return None
    line, column = _text_position(text, deep.offset)
    return FileProblem(path, line, column, "E999", deep.message)


@dataclass(frozen=True)
class Rejected:
    """Where the running CPython stopped in a file it cannot parse."""

    line: int
    column: int


def python_ast(text: str) -> Union[ast.Module, Rejected]:
    """CPython's AST of a screened file, or where the running CPython
    rejected it (libcst then decides whether it is valid)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = compile(text, "<screened>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        return Rejected(error.lineno or 1, max(error.offset or 1, 1))
    except (ValueError, RecursionError, MemoryError):
        return Rejected(1, 1)
    assert isinstance(tree, ast.Module)
    return tree


def _load_with_libcst_only(
    text: str, path: str, rejected: Rejected, digest: Optional[str]
) -> Union[LoadedModule, FileProblem]:
    """The whole module parsed by libcst, without CPython's AST: its
    statements' positions then come from libcst too (idemlint.positions)."""
    module = _parse(text, path, rejected)
    if isinstance(module, FileProblem):
        return module
    name, package = module_name(path)
    index = build_index(module, package or None, scan_bodies=_hands_functions(text))
    no_tree = ast.Module(body=[], type_ignores=[])
    return LoadedModule(name or path, path, text, module, no_tree, index, digest=digest)


def _text_position(text: str, offset: int) -> Tuple[int, int]:
    """1-based line and column of ``offset`` in ``text``, lines ending as Python ends them."""
    before = io.StringIO(text[:offset], newline="").readlines() or [""]
    if before[-1].endswith(("\n", "\r")):
        return len(before) + 1, 1
    return len(before), len(before[-1]) + 1


def read_module(
    path: str,
    task_decorators: Sequence[str] = (),
    project_decorator: Optional[Callable[[str], bool]] = None,
) -> Tuple[Optional[LoadedModule], str]:
    """A project module a task reaches (None when it cannot be read or
    parsed), and the content hash of the bytes read (cache.UNREADABLE: none)."""
    try:
        raw = read_regular(path)
    except OSError:  # unreadable, or no longer a regular file: never a hang
        return None, UNREADABLE
    loaded = load_source(raw, path, None, task_decorators, project_decorator)
    return (loaded if isinstance(loaded, LoadedModule) else None), content_hash(raw)
