"""Files in, findings out: the one engine behind every front end.

For each file: decide on the raw bytes whether it can hold a task at all
(most files of an application cannot, and then cost one read), decode, parse
once with libcst, index the module, build one trace per task, run every rule
over the traces, then compute positions only for the nodes that are reported.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable, List, Set, Tuple, Union

from idemlint.discovery import Selection, discover
from idemlint.findings import FileProblem, Finding
from idemlint.settings import DEFAULT_SETTINGS, Settings

if TYPE_CHECKING:
    import libcst as cst

    from idemlint.rules import Violation

# Stage one: plain substring tests, as fast as reading. Stage two, only on
# files that pass: the shapes task code takes (a decorator, a registration
# call, a Task base class, an enqueue, arq settings) or Celery's acks_late
# setting, which IDM009 reads outside tasks.
_TASK_WORDS = (
    b"task", b"Task", b"actor", b"job", b"enqueue", b"WorkerSettings", b"arq",
    b"acks_late", b"ACKS_LATE",
)
_TASK_SHAPES = (
    rb"@[\w.]*(?:task|actor|job)\b|\.(?:task|actor)\(|\bTask\b|\.enqueue"
    rb"|WorkerSettings|\barq\b|shared_task\(|acks_late|ACKS_LATE"
)


@dataclass(frozen=True)
class LintResult:
    findings: Tuple[Finding, ...] = ()
    problems: Tuple[FileProblem, ...] = ()


@dataclass
class _Reported:
    node: "cst.CSTNode"
    code: str
    message: str
    task: str


def could_hold_tasks(source: Union[str, bytes], settings: Settings = DEFAULT_SETTINGS) -> bool:
    """Cheap test on the raw text: can this file contain anything we report?"""
    extra = settings.task_decorators
    if isinstance(source, str):
        words = [w.decode() for w in _TASK_WORDS] + _short_names(extra)
        return any(w in source for w in words) and bool(_text_hints(extra).search(source))
    raw_words = [*_TASK_WORDS, *(n.encode() for n in _short_names(extra))]
    return any(w in source for w in raw_words) and bool(_byte_hints(extra).search(source))


def _short_names(decorators: Tuple[str, ...]) -> List[str]:
    return [name.split(".")[-1] for name in decorators]


@lru_cache(maxsize=8)
def _byte_hints(extra: Tuple[str, ...]) -> "re.Pattern[bytes]":
    names = [re.escape(name.encode()) for name in _short_names(extra)]
    return re.compile(b"|".join([_TASK_SHAPES, *names]))


@lru_cache(maxsize=8)
def _text_hints(extra: Tuple[str, ...]) -> "re.Pattern[str]":
    return re.compile(_byte_hints(extra).pattern.decode())


def decode(source: bytes, path: str) -> Union[str, FileProblem]:
    """Decode like Python does: PEP 263 cookie, BOM, UTF-8 by default."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        return FileProblem(path, 1, 1, "E902", f"cannot decode file: {error}")


def lint_source(
    source: Union[str, bytes],
    path: str = "<string>",
    settings: Settings = DEFAULT_SETTINGS,
    *,
    apply_noqa: bool = True,
) -> LintResult:
    """Lint one file's content. ``apply_noqa=False`` leaves suppression to flake8."""
    if not could_hold_tasks(source, settings):
        return LintResult()
    text = source if isinstance(source, str) else decode(source, path)
    if isinstance(text, FileProblem):
        return LintResult(problems=(text,))
    if text.startswith("\ufeff"):
        text = text[1:]
    return _lint_text(text, path, settings, apply_noqa)


def _lint_text(text: str, path: str, settings: Settings, apply_noqa: bool) -> LintResult:
    import libcst as cst

    # libcst's native parser crashes the process (not an exception) on input
    # nested thousands deep; CPython's own parser rejects all of it first, and
    # costs a tenth of the libcst parse, so it screens every file we analyse.
    tree = _python_ast(text, path)
    if isinstance(tree, FileProblem):
        return LintResult(problems=(tree,))
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        message = str(error.message).splitlines()[0] if error.message else "invalid syntax"
        return LintResult(
            problems=(
                FileProblem(path, error.raw_line, error.raw_column + 1, "E999",
                            f"SyntaxError: {message}"),
            )
        )
    try:
        reported, walked = _analyse(module, path, settings, scan_bodies="enqueue" in text)
        if not reported:
            return LintResult()
        findings = _locate(module, tree, reported, walked, path)
    except RecursionError:
        return LintResult(problems=(FileProblem(path, 1, 1, "E999", _TOO_DEEP),))
    if apply_noqa:
        findings = _without_suppressed(findings, text)
    return LintResult(findings=tuple(sorted(findings, key=_order)))


_TOO_DEEP = "file is nested too deeply to analyse"


def _python_ast(text: str, path: str) -> Union[ast.Module, FileProblem]:
    """CPython's AST of the file, or E999 where CPython puts the error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = compile(text, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        return FileProblem(path, error.lineno or 1, max(error.offset or 1, 1), "E999",
                           f"{type(error).__name__}: {error.msg}")
    except (RecursionError, MemoryError):
        return FileProblem(path, 1, 1, "E999", _TOO_DEEP)
    except ValueError as error:
        return FileProblem(path, 1, 1, "E999", f"SyntaxError: {error}")
    assert isinstance(tree, ast.Module)
    return tree


def _analyse(
    module: "cst.Module", path: str, settings: Settings, scan_bodies: bool
) -> Tuple[List[_Reported], Set[int]]:
    """What the rules report, and the ids of the functions the traces walked."""
    from idemlint.analysis import TraceBuilder
    from idemlint.effects import Knowledge
    from idemlint.rules import RULES, ModuleRule, TaskRule
    from idemlint.tasks import build_index, find_tasks

    enabled = [rule for rule in RULES if settings.enabled(rule.code, path)]
    task_rules = [rule for rule in enabled if isinstance(rule, TaskRule)]
    module_rules = [rule for rule in enabled if isinstance(rule, ModuleRule)]
    index = build_index(module, scan_bodies=scan_bodies)
    reported: List[_Reported] = []
    walked: Set[int] = set()
    seen = set()

    def report(code: str, violation: "Violation", task: str) -> None:
        key = (code, id(violation.node))
        if key not in seen:
            seen.add(key)
            reported.append(_Reported(violation.node, code, violation.message, task))

    for module_rule in module_rules:
        for violation in module_rule.check_module(module, index):
            report(module_rule.code, violation, "")
    for task in find_tasks(index, settings.task_decorators):
        trace = TraceBuilder(index, task).build()
        knowledge = Knowledge(trace, index.constants, settings)
        for rule in task_rules:
            for violation in rule.check(trace, knowledge):
                report(rule.code, violation, task.name)
        walked.update(id(event.scope.function) for event in trace.events)
        walked.add(id(task.owner or task.function))
    return reported, walked


def _locate(
    module: "cst.Module",
    tree: ast.Module,
    reported: List[_Reported],
    walked: Set[int],
    path: str,
) -> List[Finding]:
    import libcst as cst

    from idemlint.positions import locate
    from idemlint.rules import RULES_BY_CODE

    likely = {
        id(statement)
        for statement in module.body
        if id(statement) in walked
        or (
            isinstance(statement, cst.ClassDef)
            and any(id(member) in walked for member in statement.body.body)
        )
    }
    positions = locate(module, tree, [item.node for item in reported], likely)
    findings = []
    for item in reported:
        where = positions[id(item.node)]
        rule = RULES_BY_CODE[item.code]
        findings.append(
            Finding(
                path=path,
                line=where.start.line,
                column=where.start.column + 1,
                code=item.code,
                end_line=where.end.line,
                end_column=where.end.column + 1,
                rule=rule.name,
                message=item.message,
                why=rule.why,
                fix=rule.fix,
                task=item.task,
            )
        )
    return findings


def _without_suppressed(findings: List[Finding], text: str) -> List[Finding]:
    from idemlint.noqa import NoqaMap

    # Not str.splitlines(): it also splits on form feeds, \x1c-\x1e, \x85 and
    # \u2028, which are not line breaks for Python, libcst or flake8.
    noqa = NoqaMap(io.StringIO(text, newline="").readlines())
    return [f for f in findings if not noqa.suppressed(f.line, f.code)]


def _order(finding: Finding) -> Tuple[str, int, int, str]:
    return (finding.path, finding.line, finding.column, finding.code)


def lint_file(path: str, settings: Settings = DEFAULT_SETTINGS) -> LintResult:
    """Read and lint one file; any problem reading it becomes a FileProblem."""
    try:
        with open(path, "rb") as handle:
            source = handle.read()
    except IsADirectoryError:
        return LintResult(problems=(FileProblem(path, 1, 1, "E902", "is a directory"),))
    except OSError as error:
        reason = error.strerror or type(error).__name__
        return LintResult(problems=(FileProblem(path, 1, 1, "E902", f"cannot read file: {reason}"),))
    return lint_source(source, path, settings)


def lint_paths(
    paths: Iterable[str],
    settings: Settings = DEFAULT_SETTINGS,
    *,
    force_exclude: bool = False,
) -> LintResult:
    """Lint files and directories (recursively); results sorted by position."""
    findings: List[Finding] = []
    problems: List[FileProblem] = []
    selection = Selection(
        exclude=(settings.exclude or ()) + settings.extend_exclude,
        default_skips=settings.exclude is None,
        force_exclude=force_exclude,
    )
    for item in discover(paths, selection):
        if isinstance(item, FileProblem):
            problems.append(item)
            continue
        result = lint_file(item, settings)
        findings.extend(result.findings)
        problems.extend(result.problems)
    return LintResult(
        findings=tuple(sorted(findings, key=_order)),
        problems=tuple(sorted(problems)),
    )
