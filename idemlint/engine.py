"""Files in, findings out: the one engine behind every front end.

For each file: decide on the raw bytes whether it can hold a task at all
(most files of an application cannot, and then cost one read), decode,
bound its nesting (idemlint.nesting), parse once with libcst (CPython's AST,
where the running Python parses the file, says which statements to parse up
front; libcst's grammar decides what is valid), index the module, build
one trace per task (following calls into the project's other modules, parsed
on demand), run every rule over the traces, then compute positions only for
the nodes that are reported, in whichever file they are.
"""

from __future__ import annotations

import gc
import io
import os
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from typing import (
    TYPE_CHECKING,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
)

from idemlint import catalog
from idemlint.codes import INTERNAL_ERROR as INTERNAL_ERROR  # also the flake8 plugin's
from idemlint.deadline import TIMED_OUT, AnalysisTimeout, time_limit, timed_out_message
from idemlint.discovery import Selection, discover
from idemlint.findings import FileProblem, Finding, Related, UnfollowedCall, merged, reach_suffix
from idemlint.fixes import Edit, Fix
from idemlint.reading import NO_OVERLAY, NOT_REGULAR, NotRegularFile, Overlay
from idemlint.settings import DEFAULT_SETTINGS, Fixed, Settings, SettingsSource

if TYPE_CHECKING:
    import ast

    import libcst as cst
    from libcst.metadata import CodePosition, CodeRange

    from idemlint.semantic.trace import Summaries, Unfollowed
    from idemlint.cache import Cache, Dependency, Entry
    from idemlint.screens import Screened
    from idemlint.semantic.reach import Reach
    from idemlint.subtasks import SubTasks
    from idemlint.project import LoadedModule, Lookup, Project
    from idemlint.routes import Place
    from idemlint.rules.base import SuggestedFix
    from idemlint.tasks import Decorators, Task

# The shapes task code takes (a decorator, a registration call, a Task base
# class, an enqueue, arq settings) and Celery's acks_late setting, which
# IDM009 reads outside tasks: plain substring tests first, then patterns
# that each start with a literal, which the regex engine finds by a fast
# substring search (one pattern of alternatives would try each at every
# common letter: twice the cost of reading).  A word boundary before `Task`
# and `arq` is a lookbehind: `OnboardingTask` in a 400 KB Django migration
# must not pass, its libcst tree takes 250 MB; nor may a quoted `'arq'`
# (a language code in a settings or migration module's list of languages).
_TASK_LITERALS = (
    b".task(", b".actor(", b".enqueue", b"shared_task(", b"WorkerSettings", b"acks_late",
    b"ACKS_LATE", b"Job.create(", b"cheduler.schedule(", b"cheduler.cron(", b"register_task(",
    b"send_task(",
)
_TASK_PATTERNS = (rb"@[\w.]*(?:task|actor|job)\b", rb"Task(?<!\wTask)\b", rb"arq(?<![\w'\"]arq)\b(?!['\"])")


@dataclass(frozen=True)
class LintResult:
    findings: Tuple[Finding, ...] = ()
    problems: Tuple[FileProblem, ...] = ()
    # What ``# noqa`` hid, and the files checked: for reporting unused noqa comments.
    suppressed: Tuple[Finding, ...] = ()
    checked: Tuple[str, ...] = ()
    # The distinct call sites a budget cut (for ``--statistics``), sorted.
    unfollowed: Tuple[UnfollowedCall, ...] = ()
    # What the front end shows once on stderr (a .gitignore that could not be used).
    warnings: Tuple[str, ...] = ()


def could_hold_tasks(source: Union[str, bytes], settings: Settings = DEFAULT_SETTINGS) -> bool:
    """Cheap test on the raw text: can this file contain anything we report?"""
    if isinstance(source, str):
        text_literals, text_patterns = _text_shapes(settings.task_decorators)
        return any(literal in source for literal in text_literals) or any(
            pattern.search(source) for pattern in text_patterns
        )
    return _bytes_could_hold_tasks(source, settings.task_decorators)


def _bytes_could_hold_tasks(raw: bytes, task_decorators: Tuple[str, ...]) -> bool:
    literals, patterns = _byte_shapes(task_decorators)
    return any(literal in raw for literal in literals) or any(pattern.search(raw) for pattern in patterns)


@lru_cache(maxsize=8)
def _byte_shapes(extra: Tuple[str, ...]) -> Tuple[Tuple[bytes, ...], Tuple["re.Pattern[bytes]", ...]]:
    """The literals (with the short names of configured decorators) and patterns."""
    literals = (*_TASK_LITERALS, *(name.rpartition(".")[2].encode() for name in extra))
    return literals, tuple(re.compile(pattern) for pattern in _TASK_PATTERNS)


@lru_cache(maxsize=8)
def _text_shapes(extra: Tuple[str, ...]) -> Tuple[Tuple[str, ...], Tuple["re.Pattern[str]", ...]]:
    """The same as text, for the lines flake8 has decoded."""
    literals, patterns = _byte_shapes(extra)
    return (
        tuple(literal.decode() for literal in literals),
        tuple(re.compile(pattern.pattern.decode()) for pattern in patterns),
    )


def lint_source(
    source: Union[str, bytes],
    path: str = "<string>",
    settings: Settings = DEFAULT_SETTINGS,
    *,
    apply_noqa: bool = True,
    tree: Optional["ast.Module"] = None,
) -> LintResult:
    """Lint one file's content on its own (flake8's view: one file at a time).

    ``apply_noqa=False`` leaves suppression to flake8; ``tree`` is CPython's
    AST of ``source`` when the caller has it already.
    """
    if not could_hold_tasks(source, settings):
        return LintResult()
    _analysis_imported()
    try:
        with time_limit(settings.timeout) as limit:
            loaded = _load(source, path, tree, settings.task_decorators)
            result = (
                LintResult(problems=(loaded,))
                if isinstance(loaded, FileProblem)
                else _findings_of([loaded], None, settings, apply_noqa)
            )
    except AnalysisTimeout:
        return LintResult(problems=(timed_out(path, settings.timeout),))
    return LintResult(problems=(timed_out(path, settings.timeout),)) if limit.rang else result


# What an analysis imports, imported before its time starts: a cold import
# of libcst takes 0.3 s (more on a loaded machine) and is no file's
# analysis, and an import cut halfway would leave a module half made.
_ANALYSIS_MODULES = (
    "idemlint.semantic.trace", "idemlint.semantic.resolution", "idemlint.effects", "idemlint.noqa", "idemlint.positions",
    "idemlint.project", "idemlint.routes", "idemlint.rules", "idemlint.subtasks", "idemlint.tasks",
)


def _analysis_imported() -> None:
    import importlib

    for name in _ANALYSIS_MODULES:
        importlib.import_module(name)


def timed_out(path: str, seconds: float) -> FileProblem:
    """The one line that reports a module whose analysis the time limit cut (IDM902)."""
    return FileProblem(path, 1, 1, TIMED_OUT, timed_out_message(seconds))


# ``progress(done, total)``: task files analysed or taken from the cache so far.
Progress = Callable[[int, int], None]


def lint_paths(
    paths: Iterable[str],
    settings: Union[Settings, SettingsSource] = DEFAULT_SETTINGS,
    *,
    force_exclude: bool = False,
    project: Optional[str] = None,
    jobs: Optional[int] = None,
    cache: Optional["Cache"] = None,
    progress: Optional[Progress] = None,
    overlay: Optional[Mapping[str, Union[str, bytes]]] = None,
) -> LintResult:
    """Lint files and directories (recursively) as one project.

    A task is followed into the project's other modules among the checked
    files.  With ``project`` (a directory), the whole project is indexed and
    analysed, and only findings in ``paths`` are reported: what a pre-commit
    hook needs when it is given the changed files only.  ``jobs`` worker
    processes share the task files (default: as many as the amount of work
    pays for); the result is the same whatever their number.  With a
    ``cache``, a task file whose analysis is cached (and still valid) is not
    parsed at all.  ``progress(done, total)`` is called in this process as
    task files are analysed or taken from the cache (for a progress bar).

    ``overlay`` maps paths to the text an editor holds for them (unsaved):
    those files are analysed from it, the others read from disk.  A path
    only the overlay holds (a new file not saved yet) is checked when
    ``paths`` names it.  The cache stays exact: its keys and dependencies
    are content hashes of the bytes analysed, the overlay's included.

    ``settings`` applies to every file, or says which applies to each (a
    :class:`~idemlint.settings.SettingsSource`, such as the nearest
    ``pyproject.toml``'s, :class:`idemlint.config.Configurations`): a task
    is analysed with its own file's settings (its decorators, catalogue,
    rules), following calls into files under other settings all the same,
    and each finding is reported or not as its own file's settings say
    (``select``, ``ignore``, ``per-file-ignores``).  A configuration that
    cannot be used raises :class:`idemlint.config.ConfigError` before
    anything is analysed.
    """
    buffers = Overlay(overlay) if overlay else NO_OVERLAY
    source = _source(settings)
    named, files, problems, warnings = _files_to_check(paths, source, force_exclude, project, buffers)
    decorators = _screened_decorators(files, source)
    remembered = cache.screens(repr(decorators)) if cache is not None and cache.ready() else None
    candidates, read_problems, project_files, seen, digests = _candidates(files, decorators, remembered, buffers)
    if cache is not None and remembered is not None:
        from idemlint.screens import kept as screens_to_keep

        kept, changed = screens_to_keep(seen, remembered)
        if changed:
            cache.put_screens(kept, repr(decorators))
    results = _results(
        candidates, project_files, source, jobs, cache, progress or _no_progress, digests
    )
    reported = _ReportedFiles(named if project is not None else None)
    findings: List[Finding] = []
    file_problems = list(read_problems)
    suppressed: List[Finding] = []
    unfollowed: Set[UnfollowedCall] = set()
    for (path, _), result in zip(candidates, results):
        findings += result.findings
        file_problems += result.problems
        suppressed += [f for f in result.suppressed if reported.holds(f.path)]
        if reported.holds(path):  # what the tasks of a reported file did not follow, anywhere
            unfollowed.update(result.unfollowed)
    problems += [p for p in file_problems if reported.holds(p.path)]
    # Each file's result names its own tasks; a helper reached from tasks of
    # several files is one finding naming them all (in an order that does not
    # depend on the order of the files).
    return LintResult(
        findings=tuple(f for f in merged(_reported_in_place(findings, source)) if reported.holds_any(f)),
        problems=tuple(sorted(problems)),
        suppressed=tuple(merged(_reported_in_place(suppressed, source))),
        checked=tuple(named),
        unfollowed=tuple(sorted(unfollowed)),
        warnings=tuple(warnings),
    )


def _source(settings: Union[Settings, SettingsSource]) -> SettingsSource:
    return Fixed(settings) if isinstance(settings, Settings) else settings


def _reported_in_place(findings: List[Finding], source: SettingsSource) -> List[Finding]:
    """The findings the settings of their own files report: a task's
    analysis, stored in the cache under its file's settings, may reach
    files under other settings."""
    return [f for f in findings if source.for_file(f.path).enabled(f.code, f.path)]


def _files_to_check(
    paths: Iterable[str],
    source: SettingsSource,
    force_exclude: bool,
    project: Optional[str],
    overlay: Overlay = NO_OVERLAY,
) -> Tuple[List[str], List[str], List[FileProblem], List[str]]:
    """The files named (found under ``paths``), the files analysed (those,
    or every file under ``project``), both in path order, the paths that
    could not be listed, and the warnings of the walks.  A path named that
    only ``overlay`` holds is a file named."""
    # By identity, as _by_settings; each settings is kept with its
    # selection, so that its id is not reused.
    selections: Dict[int, Tuple[Settings, Selection]] = {}

    def selection_for(directory: str) -> Selection:
        settings = source.for_directory(directory)
        if id(settings) not in selections:
            selections[id(settings)] = settings, Selection(
                exclude=settings.excludes(),
                default_skips=settings.exclude is None,
                respect_gitignore=settings.respect_gitignore,
            )
        return selections[id(settings)][1]

    warnings: List[str] = []
    named: List[str] = []
    problems: List[FileProblem] = []
    paths = list(paths)
    unsaved = set(overlay.unsaved()).intersection(paths)
    for item in _discovered([path for path in paths if path not in unsaved], selection_for, force_exclude, warnings):
        if isinstance(item, FileProblem):
            problems.append(item)
        else:
            named.append(item)
    named = _in_path_order(named + sorted(unsaved))
    files = named
    if project is not None:
        found = [item for item in _discovered([project], selection_for, False, warnings) if isinstance(item, str)]
        # A file named that the walk leaves out (excluded, ignored, outside
        # ``project``) is still checked, as it is without ``project``.
        walked = {os.path.realpath(path) for path in found}
        files = _in_path_order(found + [path for path in named if os.path.realpath(path) not in walked])
    return named, files, problems, warnings


def _discovered(
    paths: Iterable[str], selection_for: Callable[[str], Selection], force_exclude: bool, warnings: List[str]
) -> List[Union[str, FileProblem]]:
    """What :func:`discover` finds; walked again without ``.gitignore`` when
    the checked repository's ignore files would cost too much to apply."""
    from idemlint.gitignore import TooCostly

    paths = list(paths)
    try:
        return list(discover(paths, selection_for, force_exclude=force_exclude, warnings=warnings))
    except TooCostly as error:
        warnings.append(str(error))

        def without_gitignore(directory: str) -> Selection:
            return replace(selection_for(directory), respect_gitignore=False)

        return list(discover(paths, without_gitignore, force_exclude=force_exclude, warnings=warnings))


def _screened_decorators(files: Sequence[str], source: SettingsSource) -> Tuple[str, ...]:
    """The task decorators the byte screen looks for: every configuration's
    (a superset for each file: one its own settings do not make a task
    costs a parse, and finds nothing)."""
    found: Set[str] = set()
    for settings, _ in _by_settings(files, source):
        found.update(settings.task_decorators)
    return tuple(sorted(found))


def _in_path_order(files: List[str]) -> List[str]:
    """The files sorted by their absolute paths' components, however the
    command line ordered them.

    Everything downstream keeps the order of the files it is given: which
    file wins a module name two of them claim (a finding's tasks and
    related places are merged in an order of their own,
    :func:`idemlint.findings.merged`).  Sorting here makes it, and so
    baselines and SARIF fingerprints, the same for any permutation.  (Which spelling of a file
    named twice is kept is still the first one named: that is how the user
    asked to see it.)
    """
    absolute = _absolute_paths()
    return sorted(files, key=lambda path: absolute(path).split(os.sep))


def _absolute_paths() -> Callable[[str], str]:
    """``os.path.abspath`` for many paths: on POSIX it joins the working
    directory, read once here instead of once a path."""
    if os.name != "posix":
        return os.path.abspath
    working = os.getcwd()
    return lambda path: os.path.normpath(os.path.join(working, path))


class _ReportedFiles:
    """Which files' findings a run reports: with ``--project``, only those of
    the named files (compared by real path); otherwise every file checked is
    a named one."""

    def __init__(self, named: Optional[List[str]]) -> None:
        self._real = None if named is None else {os.path.realpath(path) for path in named}

    def holds(self, path: str) -> bool:
        return self._real is None or os.path.realpath(path) in self._real

    def holds_any(self, finding: Finding) -> bool:
        """Whether the finding or one of its related places is in a reported
        file: a task added in a named file that reaches a helper elsewhere is
        reported there too."""
        return self.holds(finding.path) or any(self.holds(place.path) for place in finding.related)


# Below this many files to parse, starting worker processes costs more than it saves.
FILES_PER_WORKER = 8
# The files that make a Django app, as idemlint.semantic.registries reads them.
_DJANGO_APP_FILES = ("/models.py", "/models/__init__.py", "/apps.py")


def _workers(jobs: Optional[int], candidates: int) -> int:
    if jobs is not None:
        return max(1, jobs)
    return max(1, min(os.cpu_count() or 1, candidates // FILES_PER_WORKER))


# A process's memory grows with the modules it parses (libcst trees are large,
# about 8 KB a line): files are analysed in chunks of at most this many, each
# with its own project, whose trees are freed before the next chunk (a
# worker renews its project after as many files).
MAX_FILES_PER_CHUNK = 40


def _chunks(items: Sequence[_Candidate], workers: int) -> List[List[_Candidate]]:
    """Contiguous slices, at least one per worker, so that chunk order is file order."""
    count = max(workers, -(-len(items) // MAX_FILES_PER_CHUNK))
    size = -(-len(items) // count) if items else 0
    return [list(items[i : i + size]) for i in range(0, len(items), size)] if size else [[]]


def _results(
    candidates: List[_Candidate],
    files: "_ProjectFiles",
    source: SettingsSource,
    jobs: Optional[int],
    cache: Optional["Cache"],
    progress: Progress,
    digests: Mapping[str, str],
) -> List[_FileResult]:
    """One result per candidate, in candidate order: from the cache where it
    is still valid, else analysed (in worker processes when that pays);
    ``digests`` holds the content hashes the byte screen already took."""
    if cache is not None and not cache.ready():
        cache = None  # the front end reports cache.warning
    try:
        return _cached_or_analysed(candidates, files, source, jobs, cache, progress, digests)
    finally:
        if cache is not None:
            cache.close()


def _by_settings(paths: Sequence[str], source: SettingsSource) -> List[Tuple[Settings, List[int]]]:
    """The numbers of ``paths`` grouped by the settings of each file, in
    the order each settings first applies (one group without a monorepo),
    by identity: hashing settings hashes the whole catalogue."""
    groups: Dict[int, Tuple[Settings, List[int]]] = {}
    for number, path in enumerate(paths):
        settings = source.for_file(path)
        groups.setdefault(id(settings), (settings, []))[1].append(number)
    return list(groups.values())


def _cached_or_analysed(
    candidates: List[_Candidate],
    files: "_ProjectFiles",
    source: SettingsSource,
    jobs: Optional[int],
    cache: Optional["Cache"],
    progress: Progress,
    digests: Mapping[str, str],
) -> List[_FileResult]:
    """Each group of files under one settings is analysed with them (its own
    projects, over every file of the run); each cache key holds the settings
    its file was analysed with."""
    from idemlint.cache import content_hash, fingerprint

    known = _Known(candidates, files.files, files.overlay, digests)
    groups = _by_settings([path for path, _ in candidates], source)
    # Which files may configure an app is part of every key: a file that
    # starts to (``app.Task = X`` added) was no dependency of any analysis.
    # So are the modules that make Django apps (a ``models`` module added
    # makes a label two apps have; see idemlint.semantic.registries).
    django_apps = sorted(path for path in files.files if path.endswith(_DJANGO_APP_FILES))
    apps = "\0".join((
        *files.app_files, "\1", *files.named_task_files, "\1", *files.implementing_files, "\1", *django_apps,
        "\1", *files.schedule_files, "\1", *files.registering_files,
    ))
    keys = [""] * len(candidates)
    if cache is not None:
        for settings, numbers in groups:
            # Hashed once: the settings' text holds the whole catalogue.
            applied = content_hash(fingerprint(settings).encode("utf-8", "surrogatepass"))
            for number in numbers:
                path, raw = candidates[number]
                keys[number] = cache.key(path, f"{content_hash(raw)}\0{apps}\0{applied}")
    results: List[Optional[_FileResult]] = [
        _cached(cache, key, path, known) if cache else None
        for key, (path, _) in zip(keys, candidates)
    ]
    counted = _Counted(progress, len(candidates), sum(1 for result in results if result is not None))
    for settings, numbers in groups:
        missing = [number for number in numbers if results[number] is None]
        if not missing:
            continue
        workers = _workers(jobs, len(missing))
        chunks = _chunks([candidates[i] for i in missing], workers)
        analysed = [
            result for chunk in _analyse_chunks(chunks, files, settings, workers, counted.add) for result in chunk
        ]
        for index, result in zip(missing, analysed):
            results[index] = result
            if cache is not None and not result.timed_out:  # the next run may have the time
                cache.put(keys[index], _entry(result))
    if cache is not None:
        cache.prune()
    return [result for result in results if result is not None]


@dataclass(frozen=True)
class _FileResult:
    """What analysing one task file found, the module names it looked up,
    and the call sites its traces did not follow for a budget."""

    findings: Tuple[Finding, ...]
    problems: Tuple[FileProblem, ...]
    suppressed: Tuple[Finding, ...] = ()
    lookups: Tuple["Lookup", ...] = ()
    unfollowed: Tuple[UnfollowedCall, ...] = ()

    @property
    def timed_out(self) -> bool:
        return any(problem.code == TIMED_OUT for problem in self.problems)


class _Known:
    """What the run's files hold now, for checking a stored entry: each
    file's content hash (cache.UNREADABLE when it cannot be read) and
    :func:`~idemlint.cache.line_bound`, read again only for a dependency
    whose hash the byte screen did not take (``digests``), and the module
    each name resolves to, all computed when first needed."""

    def __init__(
        self, candidates: List[_Candidate], files: List[str], overlay: Overlay, digests: Mapping[str, str]
    ) -> None:
        self._raw = dict(candidates)
        self._files = files
        self._overlay = overlay
        self._digests = digests
        self._contents: Dict[str, Tuple[str, Optional[int]]] = {}
        self._modules: Optional[Dict[str, str]] = None

    def digest(self, path: str) -> str:
        known = self._digests.get(path)
        return known if known is not None else self._content(path)[0]

    def line_bound(self, path: str) -> Optional[int]:
        return self._content(path)[1]

    def _content(self, path: str) -> Tuple[str, Optional[int]]:
        from idemlint.cache import UNREADABLE, content_hash, line_bound

        if path not in self._contents:
            raw = self._raw.get(path)
            if raw is None:
                read = _read(path, self._overlay)
                raw = read if isinstance(read, bytes) else None
            self._contents[path] = (
                (content_hash(raw), line_bound(raw)) if raw is not None else (UNREADABLE, None)
            )
        return self._contents[path]

    def module(self, name: str) -> Optional[str]:
        if self._modules is None:
            from idemlint.modules import module_files

            self._modules = module_files(self._files)
        return self._modules.get(name)


def _cached(cache: "Cache", key: str, path: str, known: _Known) -> Optional[_FileResult]:
    """The stored variant whose dependencies all still hold and whose
    findings can be this file's, if any."""
    from idemlint.cache import fits

    for entry in cache.get(key):
        if all(_holds(dependency, known) for dependency in entry.dependencies) and fits(
            entry, path, known.line_bound
        ):
            cache.promote(key, entry)
            return _FileResult(entry.findings, entry.problems, entry.suppressed, unfollowed=entry.unfollowed)
    return None


def _holds(dependency: "Dependency", known: _Known) -> bool:
    name, module_path, digest = dependency
    if known.module(name) != module_path:
        return False
    return module_path is None or digest is None or known.digest(module_path) == digest


def _entry(result: _FileResult) -> "Entry":
    """The cache entry of an analysis: each module it looked up with the hash
    of the bytes it parsed there (recorded by the project when it read them,
    never read again), or None when only the name's existence mattered."""
    from idemlint.cache import Entry

    digests: Dict[Tuple[str, Optional[str]], Optional[str]] = {}
    for name, path, digest in result.lookups:
        if digests.get((name, path)) is None:
            digests[(name, path)] = digest
    dependencies = tuple((name, path, digest) for (name, path), digest in digests.items())
    return Entry(result.findings, result.problems, result.suppressed, dependencies, result.unfollowed)


def _analyse_chunks(
    chunks: List[List[_Candidate]],
    files: "_ProjectFiles",
    settings: Settings,
    workers: int,
    analysed: Callable[[int], None] = lambda count: None,
) -> List[List[_FileResult]]:
    """One result per candidate, chunk by chunk.

    In one process the files are analysed one by one, as a worker analyses
    what it is handed (:class:`_WorkerRun`).  With workers, the files of each directory go together (they usually reach
    the same helpers) and the directories are handed out one at a time,
    the largest first, to whichever worker is free; each worker keeps its
    project across what it gets (:class:`_WorkerRun`).  A task file whose
    helpers reach half the application no longer holds up the files that
    shared its contiguous chunk while the other worker idles.
    """
    if workers == 1:
        run = _WorkerRun(files, settings)
        with _collections_paused():
            return [[run.analyse(candidate, analysed) for candidate in chunk] for chunk in chunks]
    from idemlint.workers import worker_pool

    every = [candidate for chunk in chunks for candidate in chunk]
    groups = _by_directory(every, max(1, -(-len(every) // (2 * workers))))
    groups.sort(key=lambda numbers: -sum(len(every[n][1]) for n in numbers))
    results: List[Optional[_FileResult]] = [None] * len(every)
    with worker_pool(workers, _begin_worker_run, (files, settings)) as pool:
        handed = [[every[n] for n in numbers] for numbers in groups]
        for numbers, group in zip(groups, pool.map(_analyse_in_worker, handed)):
            for number, result in zip(numbers, group):
                results[number] = result
            analysed(len(numbers))
    found = iter(results)
    return [[_present(next(found)) for _ in chunk] for chunk in chunks]


def _by_directory(candidates: Sequence[_Candidate], most: int) -> List[List[int]]:
    """The candidates' numbers, grouped by the directory holding the file,
    at most ``most`` a group (a directory holding most task files is still
    shared out)."""
    groups: Dict[str, List[int]] = {}
    for number, (path, _) in enumerate(candidates):
        groups.setdefault(os.path.dirname(os.path.abspath(path)), []).append(number)
    return [numbers[i : i + most] for numbers in groups.values() for i in range(0, len(numbers), most)]


def _present(result: Optional[_FileResult]) -> _FileResult:
    assert result is not None  # every candidate was handed out, and map returns each result
    return result


class _WorkerRun:
    """A worker's share of a run: the files it is handed, one at a time,
    analysed with one project (the modules parsed, the helpers' summaries,
    the enqueued tasks read) that serves them all, renewed every
    ``MAX_FILES_PER_CHUNK`` files so that memory stays bounded.  What each
    file's result depends on is recorded per file, as within a chunk."""

    def __init__(self, files: "_ProjectFiles", settings: Settings) -> None:
        self.files = files
        self.settings = settings
        self._state: Optional[Tuple["Project", "Summaries", "SubTasks"]] = None
        self._analysed = 0

    def analyse(self, candidate: _Candidate, analysed: Callable[[int], None] = lambda count: None) -> _FileResult:
        """One file's result; past the time limit, its IDM902 line, and the
        project is renewed (the analysis stopped anywhere in it)."""
        from idemlint.semantic.trace import Summaries
        from idemlint.project import Project

        if self._state is None or self._analysed >= MAX_FILES_PER_CHUNK:
            self._renew()
            files = self.files
            project = Project(
                files.files, self.settings.task_decorators, files.app_files, files.overlay,
                files.named_task_files, files.implementing_files, files.schedule_files, files.registering_files,
            )
            summaries = Summaries()
            self._state = (project, summaries, _sub_tasks(project, self.settings, summaries))
            self._analysed = 0
        self._analysed += 1
        project, summaries, sub_tasks = self._state
        _analysis_imported()
        try:
            with time_limit(self.settings.timeout) as limit:
                result = _analysed([candidate], project, self.settings, summaries, sub_tasks)[0]
            if limit.rang:  # and the exception became another on its way (see Limit)
                raise AnalysisTimeout()
        except AnalysisTimeout:
            self._renew()
            result = _FileResult((), (timed_out(candidate[0], self.settings.timeout),))
        analysed(1)
        return result

    def _renew(self) -> None:
        if self._state is not None:
            self._state = None
            gc.collect()  # the project just dropped, and what its analyses left (see _collections_paused)


_WORKER_RUN: Optional[_WorkerRun] = None


def _begin_worker_run(files: "_ProjectFiles", settings: Settings) -> None:
    """Run in each worker before any work (see idemlint.workers.worker_pool)."""
    global _WORKER_RUN
    _WORKER_RUN = _WorkerRun(files, settings)
    gc.disable()  # the worker only analyses (see _collections_paused); its runs collect when they renew


def _analyse_in_worker(candidates: List[_Candidate]) -> List[_FileResult]:
    assert _WORKER_RUN is not None, "a worker analyses only after _begin_worker_run"
    return [_WORKER_RUN.analyse(candidate) for candidate in candidates]


@contextmanager
def _collections_paused() -> Iterator[None]:
    """No cycle collection while analysing; when the caller had it on, it is
    on again after, and what the analysis left is collected at once.

    An analysis allocates millions of objects that live until its end
    (libcst trees, indexes), and each collection walks the young ones: even
    every 100 000 allocations, collections took 16 % of a one-process run's
    CPU on weblate, and 18 % of pretix's with two workers.  No reference
    cycle runs through a project, its indexes or a task's knowledge
    (``tests/test_jobs.py``), so a dropped project is freed at once; what
    an analysis still leaves in cycles is small (``ast.literal_eval``'s
    closures: 12 000 objects for forty sentry task files), and the
    collection at the end of the pause (or a worker renewing its project)
    frees it.  When the project itself was held by cycles, it waited for
    that collection, which then walked all of it (0.4 to 0.7 s a renewal
    on sentry); left to the collector's own schedule, a project dropped
    after one chunk outlived the next (sentry in one process peaked at
    261 MB).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
            gc.collect()


def _analysed(
    candidates: List[_Candidate],
    project: "Project",
    settings: Settings,
    summaries: Optional["Summaries"] = None,
    sub_tasks: Optional["SubTasks"] = None,
) -> List[_FileResult]:
    """Analyse task files with ``project`` (and the summaries and enqueued
    tasks' readings of earlier files analysed with it, when given)."""
    from idemlint.semantic.trace import Summaries

    loaded: List[Union["LoadedModule", FileProblem]] = []
    # What deciding which definitions to parse up front looked up is part of
    # what each file's result depends on.
    load_lookups: List[List["Lookup"]] = []
    for path, raw in candidates:
        reused = project.loaded_from(path, raw)
        if reused is not None:
            loaded.append(reused[0])
            load_lookups.append(reused[1])
            continue
        start = len(project.lookups)
        loaded.append(_load(raw, path, None, settings.task_decorators, project.may_be_task_decorator))
        load_lookups.append(project.lookups[start:])
    for module, looked_up in zip(loaded, load_lookups):
        if not isinstance(module, FileProblem):
            project.register(module, looked_up)  # a helper in a task's own file is not parsed twice
    if summaries is None or sub_tasks is None:
        summaries = Summaries()
        sub_tasks = _sub_tasks(project, settings, summaries)
    results = []
    for module, looked_up in zip(loaded, load_lookups):
        if isinstance(module, FileProblem):
            results.append(_FileResult((), (module,), lookups=tuple(dict.fromkeys(looked_up))))
            continue
        start = len(project.lookups)
        found = _findings_of([module], project, settings, True, summaries, sub_tasks, by_path=False)
        lookups = tuple(dict.fromkeys([*looked_up, *project.lookups[start:]]))
        results.append(
            _FileResult(found.findings, found.problems, found.suppressed, lookups, found.unfollowed)
        )
    return results


def _no_progress(done: int, total: int) -> None:
    pass


class _Counted:
    """Counts the task files done and tells ``progress``."""

    def __init__(self, progress: Progress, total: int, done: int) -> None:
        self.progress, self.total, self.done = progress, total, done
        progress(done, total)

    def add(self, count: int) -> None:
        self.done += count
        self.progress(self.done, self.total)


_Candidate = Tuple[str, bytes]


@dataclass(frozen=True)
class _ProjectFiles:
    """The files a run analyses, those of them whose text may create or
    configure a Celery app (see :data:`_APP_TEXT`), the editor's
    buffers they are read from first, the files holding tasks whose
    text may register one under a name of its own (:data:`_NAME_TEXT`),
    the files whose text may declare a class implements an interface
    (:data:`_IMPLEMENTS_TEXT`), those whose text may schedule a task
    (:data:`_SCHEDULE_TEXT`) and those whose text may register an object
    under a name (:data:`_REGISTER_TEXT`)."""

    files: List[str]
    app_files: Tuple[str, ...] = ()
    overlay: Overlay = NO_OVERLAY
    named_task_files: Tuple[str, ...] = ()
    implementing_files: Tuple[str, ...] = ()
    schedule_files: Tuple[str, ...] = ()
    registering_files: Tuple[str, ...] = ()


# ``app = Celery(...)``, ``app.Task = X``, ``Celery(task_cls=...)``: what
# tells which class an app's tasks get; ``worker_pool = ...``: which pool a
# worker configuration runs.  The modules are parsed only when a task or a
# configuration asks (idemlint.project.Project.app_task_class, pools_copying).
_APP_TEXT = re.compile(rb"Celery\(|\.Task[ \t]*=(?!=)|task_cls")
_POOL_TEXT = tuple(setting.encode() for setting in catalog.WORKER_POOL_SETTINGS)


# ``@app.task(name="mail.send")``: a task sent by that name
# (``send_task("mail.send")``) is looked for only in such files.
_NAME_TEXT = re.compile(rb"(?<![\w])name[ \t]*=(?!=)")
# ``@implementer(IMailer)``: an object looked up by an interface is one of
# the classes declared so, looked for only in such files.
_IMPLEMENTS_TEXT = b"implementer("
# A beat schedule (``beat_schedule``, ``CELERY_BEAT_SCHEDULE``) or
# ``add_periodic_task``: where IDM009 looks for what runs on a schedule.
_SCHEDULE_TEXT = (b"beat_schedule", b"BEAT_SCHEDULE", b"add_periodic_task")
# ``register_service_factory(factory, name="aws.session")``: an object
# looked up by a name (``find_service(name="aws.session")``) is looked for
# only in such files (see idemlint.semantic.registries.NamedRegistrations).
_REGISTER_TEXT = b"register"


def _may_configure_an_app(raw: bytes) -> bool:
    # Substring tests first: a third of the time of the pattern on every file.
    return (
        b"Celery(" in raw
        or b"task_cls" in raw
        or any(setting in raw for setting in _POOL_TEXT)
        or (b".Task" in raw and _APP_TEXT.search(raw) is not None)
    )


def _candidates(
    paths: Sequence[str],
    task_decorators: Tuple[str, ...],
    remembered: Optional[Mapping[str, "Screened"]] = None,
    overlay: Overlay = NO_OVERLAY,
) -> Tuple[List[_Candidate], List[FileProblem], _ProjectFiles, Dict[str, "Screened"], Dict[str, str]]:
    """Read every file once; keep those that can hold tasks or task
    configuration, and those that decorate with a name the project may
    define as its own task decorator (see :class:`_ProjectDecoratorNames`);
    also say which may configure a Celery app (:data:`_APP_TEXT`) and
    which of the candidates may register a task by name (:data:`_NAME_TEXT`).

    With ``remembered`` (what a cached run's screen found, by content
    hash), a file whose bytes an earlier run screened is not screened
    again; what each file's bytes screened to comes back by their hash,
    and each file's hash by its path (checking a cached analysis's
    dependencies then reads nothing again).
    """
    from idemlint.cache import content_hash

    candidates: List[_Candidate] = []
    problems: List[FileProblem] = []
    app_files: List[str] = []
    implementing: List[str] = []
    scheduling: List[str] = []
    registering: List[str] = []
    seen: Dict[str, "Screened"] = {}
    digests: Dict[str, str] = {}
    names = _ProjectDecoratorNames()
    for path in paths:
        raw = _read(path, overlay)
        if isinstance(raw, FileProblem):
            problems.append(raw)
            continue
        if remembered is None:
            screened = _screened(raw, task_decorators)
        else:
            digest = digests[path] = content_hash(raw)
            screened = remembered.get(digest) or _screened(raw, task_decorators)
            seen[digest] = screened
        if screened.configures_app:
            app_files.append(path)
        if _IMPLEMENTS_TEXT in raw:
            implementing.append(path)
        if any(text in raw for text in _SCHEDULE_TEXT):
            scheduling.append(path)
        if _REGISTER_TEXT in raw and _NAME_TEXT.search(raw) is not None:
            registering.append(path)
        names.add(path, screened)
        if screened.holds_tasks:
            candidates.append((path, raw))
    for path in sorted(names.users(overlay)):
        raw = _read(path, overlay)  # read again: only a file that uses such a name
        if isinstance(raw, bytes) and names.uses_one(raw):
            candidates.append((path, raw))
    order = {path: number for number, path in enumerate(paths)}
    candidates.sort(key=lambda candidate: order[candidate[0]])
    named = tuple(path for path, raw in candidates if b"name" in raw and _NAME_TEXT.search(raw) is not None)
    files = _ProjectFiles(
        list(paths), tuple(app_files), overlay, named, tuple(implementing), tuple(scheduling), tuple(registering)
    )
    return candidates, problems, files, seen, digests


def _screened(raw: bytes, task_decorators: Tuple[str, ...]) -> "Screened":
    """What the byte screen finds in one file's bytes."""
    from idemlint.screens import Screened

    holds_tasks = _bytes_could_hold_tasks(raw, task_decorators)
    return Screened(
        holds_tasks,
        _may_configure_an_app(raw),
        _ProjectDecoratorNames.definitions(raw),
        frozenset() if holds_tasks else _ProjectDecoratorNames.decorators(raw),
    )


class _ProjectDecoratorNames:
    """The project's own task decorators as far as the text tells: names
    defined at module level (``def``, ``class``, ``name =``) by a statement
    whose text mentions a task decorator (a name ending in ``task``,
    ``actor`` or ``job``) or a ``partial``, such as ``project_task =
    shared_task`` or ``def timed_task(**kw): ... app.task(**kw)``.
    A superset: detection decides on the syntax tree.  A file screened out
    whose decorators (``@background``, ``@tasks.background(...)``) use one
    of those names is analysed too.  (Class bases are not read: too many
    classes are defined next to the word ``task``.)"""

    # Plain substring tests: they cost a tenth of any pattern.  Each pattern
    # starts with a literal, so that the regex engine finds it by a fast
    # search (a newline: the text is read with one put before it).
    _TASK_TEXT = (b"task", b"actor", b"job", b"partial(")
    _DEFINED = re.compile(rb"\n(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)|\n(\w+)[ \t]*(?::[^=\n]*)?=(?!=)")
    # The names _DEFINED finds, as one group: findall then makes no tuples.
    _DEFINED_NAME = re.compile(rb"\n(?:(?:async[ \t]+)?(?:def|class)[ \t]+|(?=\w+[ \t]*(?::[^=\n]*)?=(?!=)))(\w+)")
    _NEXT_STATEMENT = re.compile(rb"\n[^\s#]")
    _DECORATOR = re.compile(rb"\n[ \t]*@([\w.]+)")

    def __init__(self) -> None:
        # The names each file with task text defines at module level, whatever
        # their statements say: what they say is read only for a name some
        # file screened out decorates with (most names are never one).
        self._definitions: Dict[str, Set[bytes]] = {}
        self._used: Dict[str, Set[bytes]] = {}
        self._defined: Set[bytes] = set()

    @classmethod
    def definitions(cls, raw: bytes) -> Optional[FrozenSet[bytes]]:
        """The names a file with task text defines at module level (None without task text)."""
        if any(text in raw for text in cls._TASK_TEXT):
            return frozenset(cls._DEFINED_NAME.findall(b"\n" + raw))
        return None

    @classmethod
    def decorators(cls, raw: bytes) -> FrozenSet[bytes]:
        """The last parts of the names a file decorates with."""
        if b"@" not in raw:  # most migrations and models: no pattern to run
            return frozenset()
        return frozenset(name.rpartition(b".")[2] for name in cls._DECORATOR.findall(b"\n" + raw))

    def add(self, path: str, screened: "Screened") -> None:
        """What the screen found in one file (a file that can hold tasks is
        analysed anyway: what it decorates with does not matter)."""
        if screened.defined is not None:
            self._definitions[path] = set(screened.defined)
        if not screened.holds_tasks and screened.decorates:
            self._used[path] = set(screened.decorates)

    def users(self, overlay: Overlay = NO_OVERLAY) -> Set[str]:
        """The files screened out that use a name defined so."""
        used: Set[bytes] = set().union(*self._used.values())
        for path, names in self._definitions.items():
            if names & used:
                raw = _read(path, overlay)  # read again: only a file that defines such a name
                if isinstance(raw, bytes):
                    self._defined |= self._defined_by_task_text(raw)
        return {path for path, names in self._used.items() if names & self._defined}

    def _defined_by_task_text(self, raw: bytes) -> Set[bytes]:
        """The names defined by a statement whose text mentions a task decorator."""
        defined: Set[bytes] = set()
        text = b"\n" + raw
        for match in self._DEFINED.finditer(text):
            following = self._NEXT_STATEMENT.search(text, match.end())
            end = following.start() if following else len(text)
            if any(text.find(word, match.end(), end) >= 0 for word in self._TASK_TEXT):
                defined.add(match.group(1) or match.group(2))
        return defined

    def uses_one(self, raw: bytes) -> bool:
        return bool(self.decorators(raw) & self._defined)


def _load(
    source: Union[str, bytes],
    path: str,
    tree: Optional["ast.Module"] = None,
    task_decorators: Sequence[str] = (),
    project_decorator: Optional[Callable[[str], bool]] = None,
) -> Union["LoadedModule", FileProblem]:
    """``load_source``, with a bug in parsing or indexing reported on the file."""
    from idemlint.project import load_source

    try:
        return load_source(source, path, tree, task_decorators, project_decorator)
    except Exception as error:  # one file idemlint cannot index must not end the run
        return internal_error(path, "parsing and indexing", error)


def _read(path: str, overlay: Overlay = NO_OVERLAY) -> Union[bytes, FileProblem]:
    """A checked file's bytes (an editor's buffer's, when ``overlay`` holds
    it), or its one ``E902`` line (never a hang: see ``reading``)."""
    try:
        return overlay.read(path)
    except IsADirectoryError:
        return FileProblem(path, 1, 1, "E902", "is a directory")
    except NotRegularFile:
        return FileProblem(path, 1, 1, "E902", NOT_REGULAR)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        return FileProblem(path, 1, 1, "E902", f"cannot read file: {reason}")


@dataclass
class _Reported:
    """A violation as one task reached it: ``task`` is the name its message
    uses, ``qualified`` the dotted one findings list; ``called`` when it is
    in a function the task calls (not in its body), ``route`` the calls from
    the task's body to it, ``related`` the rule's own places."""

    node: "cst.CSTNode"
    code: str
    message: str
    task: str
    module: "LoadedModule"
    qualified: str = ""
    called: bool = False
    route: Tuple["Place", ...] = ()
    related: Tuple["Place", ...] = ()
    fix: Optional["SuggestedFix"] = None


def _findings_of(
    modules: Sequence["LoadedModule"],
    project: Optional["Project"],
    settings: Settings,
    apply_noqa: bool,
    summaries: Optional["Summaries"] = None,
    sub_tasks: Optional["SubTasks"] = None,
    by_path: bool = True,
) -> LintResult:
    """Run every rule over the tasks of ``modules``; locate what they report.

    ``summaries`` and ``sub_tasks`` let what one module's analysis walked
    serve another's.  ``by_path``: drop what ``per-file-ignores`` ignores
    (:func:`lint_paths` does it after the cache, with each file's own
    settings)."""
    from idemlint.semantic.trace import Summaries

    summaries = summaries or Summaries()
    sub_tasks = sub_tasks or _sub_tasks(project, settings, summaries)
    with _deep_recursion():
        reported, walked, problems, cuts = _analyse(modules, project, settings, summaries, sub_tasks)
        aside = [(node, module) for item in reported for node, module, _ in (*item.route, *item.related)]
        starts = _starts(aside, walked, problems)
        findings = _locate(reported, walked, problems, _related_places(reported, starts))
        unfollowed = _unfollowed_calls(cuts)
    findings = [f for f in findings if settings.enabled(f.code, f.path if by_path else None)]
    suppressed: List[Finding] = []
    if apply_noqa:
        findings, suppressed = _without_suppressed(findings, _modules_of(reported))
    return LintResult(
        findings=tuple(merged(findings)),
        problems=tuple(problems),
        suppressed=tuple(merged(suppressed)),
        unfollowed=unfollowed,
    )


@contextmanager
def _deep_recursion() -> Iterator[None]:
    """Walk the deepest trees idemlint.nesting lets through (measured: under
    9000 frames), with a limit low enough for the C stack of Python 3.9 and
    3.10, where each Python call also recurses in C, to hold it."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


RECURSION_LIMIT = 12_000


def _modules_of(reported: Sequence[_Reported]) -> List["LoadedModule"]:
    return list({id(item.module): item.module for item in reported}.values())


def _analyse(
    modules: Sequence["LoadedModule"],
    project: Optional["Project"],
    settings: Settings,
    summaries: "Summaries",
    sub_tasks: "SubTasks",
) -> Tuple[List[_Reported], Set[int], List[FileProblem], List["Unfollowed"]]:
    """What the rules report, the ids of the functions the traces walked,
    the modules a rule failed on (reported, never raised: the run goes on),
    and the calls the traces did not follow for a budget.

    ``summaries`` lets a helper walked for one module be replayed for another.
    """
    from idemlint.semantic.trace import TraceBuilder
    from idemlint.semantic.resolution import Calls
    from idemlint.effects import Knowledge
    from idemlint.facts import ModuleContext, ModuleFacts, TaskFacts
    from idemlint.routes import Routes
    from idemlint.rules import RULES, ModuleRule, TaskRule

    enabled = [rule for rule in RULES if settings.enabled(rule.code)]
    task_rules = [rule for rule in enabled if isinstance(rule, TaskRule)]
    module_rules = [rule for rule in enabled if isinstance(rule, ModuleRule)]
    reported: List[_Reported] = []
    walked: Set[int] = set()
    problems: List[FileProblem] = []
    unfollowed: List["Unfollowed"] = []

    first: Dict[Tuple[str, int, str], int] = {}

    def report(item: _Reported) -> None:
        # A task that reaches a node twice is reported once, as it first
        # does, with the places of its other routes there added as related
        # places (each call of the task's own that leads there).
        key = (item.code, id(item.node), item.qualified)
        if key not in first:
            first[key] = len(reported)
            reported.append(item)
            return
        earlier = reported[first[key]]
        known = {(id(node), note) for node, _, note in (*earlier.route, *earlier.related)}
        added = tuple(place for place in (*item.route, *item.related) if (id(place[0]), place[2]) not in known)
        if added:
            reported[first[key]] = replace(earlier, related=earlier.related + added)

    # What resolving calls learns about classes is shared by the tasks of
    # the modules analysed together: the lookups it made are recorded with
    # those modules' results already.
    calls = Calls(project, settings.effect_methods())
    for loaded in modules:
        stage = "task detection"
        try:
            decorators = _decorators_of(loaded, project, settings)
            context = ModuleContext(
                loaded.name,
                project.pools_copying if project is not None else None,
                project.healing if project is not None else None,
            )
            module_facts = ModuleFacts(loaded.module, loaded.index, decorators, context)
            for module_rule in module_rules:
                stage = module_rule.code
                for violation in module_rule.check_module(module_facts):
                    report(_Reported(
                        violation.node, module_rule.code, violation.message, "", loaded, fix=violation.fix
                    ))
            stage = "task detection"
            for task, home in _tasks_of(loaded, project, decorators):
                stage = f"the trace of task `{task.name}`"
                trace = TraceBuilder(home, task, project, summaries, calls).build()
                unfollowed += trace.unfollowed
                knowledge = Knowledge(
                    trace, loaded.index.constants, settings, calls, partial(sub_tasks.effects, root=task.function)
                )
                facts = TaskFacts(trace, knowledge)
                qualified = f"{home.name}.{task.name}" if home.name else task.name
                routes = Routes(trace, qualified)
                for rule in task_rules:
                    stage = rule.code
                    for violation in rule.check(facts):
                        owner = trace.module_of(violation.node)
                        event = violation.event
                        related = tuple(
                            (check.node, check.scope.module, note) for check, note in violation.related
                        )
                        report(_Reported(
                            violation.node, rule.code, violation.message, task.name, owner, qualified,
                            called=event is not None and not event.scope.is_task,
                            route=routes.of(event) if event is not None else (),
                            related=related,
                            fix=violation.fix,
                        ))
                walked.update(id(event.scope.function) for event in trace.events)
                walked.add(id(task.owner or task.function))
        except Exception as error:  # one broken rule must not end the run
            problems.append(internal_error(loaded.path, stage, error))
    return reported, walked, problems, unfollowed


def _sub_tasks(project: Optional["Project"], settings: Settings, summaries: "Summaries") -> "SubTasks":
    """What enqueued tasks do, asked by the analyses that share ``summaries``."""
    from idemlint.subtasks import SubTasks
    from idemlint.tasks import find_tasks

    def tasks_defined_in(loaded: "LoadedModule") -> List["Task"]:
        return find_tasks(loaded.index, _decorators_of(loaded, project, settings))

    return SubTasks(project, settings, summaries, tasks_defined_in)


def _decorators_of(
    loaded: "LoadedModule", project: Optional["Project"], settings: Settings
) -> "Decorators":
    """The task decorators ``loaded`` may use: configured, its own, and the project's."""
    from idemlint.tasks import task_decorators

    if project is None:
        return task_decorators(loaded.index, settings.task_decorators)
    return task_decorators(
        loaded.index,
        settings.task_decorators,
        project.task_decorator,
        project.is_task_base,
        class_options=project.class_options,
        app_task_class=project.app_task_class,
        module=loaded.name,
    )


def _tasks_of(
    loaded: "LoadedModule", project: Optional["Project"], decorators: "Decorators"
) -> List[Tuple["Task", "LoadedModule"]]:
    """The tasks the analysis of ``loaded`` traces, each with the module that
    defines it: its own, and (with a project) those it hands RQ from other
    modules."""
    from idemlint.tasks import find_tasks

    tasks = [(task, loaded) for task in find_tasks(loaded.index, decorators)]
    if project is not None:
        tasks += project.enqueued_tasks(loaded)
    return tasks


def internal_error(path: str, stage: str, error: Exception) -> FileProblem:
    """The one line that reports a bug in idemlint on one file (IDM900)."""
    if os.environ.get("IDEMLINT_DEBUG"):
        import traceback

        traceback.print_exception(type(error), error, error.__traceback__)
    reason = "nested too deeply" if isinstance(error, RecursionError) else f"{type(error).__name__}: {error}"
    reason = " ".join(reason.split())  # one line, whatever the exception's message holds
    return FileProblem(
        path, 1, 1, INTERNAL_ERROR,
        f"internal error in {stage} ({reason}); this file's other findings may be "
        "missing. Please report it with this file (see 'Reporting a bug' in the README; "
        "IDEMLINT_DEBUG=1 prints the traceback)",
    )


def _locate(
    reported: List[_Reported],
    walked: Set[int],
    problems: List[FileProblem],
    places: Dict[Tuple[int, str], Related],
) -> List[Finding]:
    """The findings, positioned, with their related ``places``; a module
    whose positions fail is added to ``problems`` instead (its findings
    cannot be placed, the others can)."""
    from idemlint.positions import locate
    from idemlint.rules import RULES_BY_CODE

    findings = []
    for loaded in _modules_of(reported):
        items = [item for item in reported if item.module is loaded]
        try:
            lines = io.StringIO(loaded.text, newline="").readlines()
            nodes = [item.node for item in items]
            nodes += [edit.node for item in items if item.fix is not None for edit in item.fix.edits]
            positions = locate(loaded.pieces(), nodes, lines, _walked_statements(loaded, walked))
        except Exception as error:
            _add_problem(problems, internal_error(loaded.path, "position computation", error))
            continue
        for item in items:
            where = positions[id(item.node)]
            rule = RULES_BY_CODE[item.code]
            callers = (item.qualified,) if item.called else ()
            related = (
                places.get((id(node), note)) for node, _, note in (*item.route, *item.related)
            )
            findings.append(
                Finding(
                    path=loaded.path,
                    line=where.start.line,
                    column=where.start.column + 1,
                    code=item.code,
                    end_line=where.end.line,
                    end_column=where.end.column + 1,
                    rule=rule.name,
                    message=item.message + reach_suffix(callers),
                    why=rule.why,
                    fix=rule.fix,
                    task=item.task,
                    tasks=(item.qualified,) if item.qualified else (),
                    callers=callers,
                    related=tuple(sorted({place for place in related if place is not None})),
                    suggestion=(
                        _positioned(item.fix, positions, lines, loaded.digest or "") if item.fix is not None else None
                    ),
                )
            )
    return findings


def _positioned(fix: "SuggestedFix", positions: Dict[int, "CodeRange"], lines: Sequence[str], digest: str) -> Fix:
    """A rule's fix with each edit placed where its node is; ``next_line``
    puts the text on a line of its own after the node's last line, indented
    as the line the node starts on."""
    edits = []
    for edit in fix.edits:
        where = positions[id(edit.node)]
        start = (where.start.line, where.start.column + 1)
        end = (where.end.line, where.end.column + 1)
        text = edit.text
        if edit.where == "after":
            start = end
        elif edit.where == "before":
            end = start
        elif edit.where in ("next_line", "next_line_nested"):
            first = lines[where.start.line - 1]
            indent = first[: len(first) - len(first.lstrip(" \t"))]
            if edit.where == "next_line_nested":  # one level deeper, in the file's own characters
                indent += "\t" if indent.startswith("\t") else "    "
            last = lines[where.end.line - 1]
            newline = "\r\n" if last.endswith("\r\n") else "\n"
            if last.endswith("\n"):
                start = end = (where.end.line + 1, 1)
                text = f"{indent}{text}{newline}"
            else:  # the file's last line, without a newline
                start = end = (where.end.line, len(last) + 1)
                text = f"{newline}{indent}{text}"
        edits.append(Edit(start[0], start[1], end[0], end[1], text))
    return Fix(fix.title, fix.applicability, tuple(edits), digest)


def _related_places(
    reported: List[_Reported], starts: "_Starts"
) -> Dict[Tuple[int, str], Related]:
    """The related places of the reported items, by (id(node), note); those
    of a module that could not be positioned are left out (the findings keep
    the others)."""
    found: Dict[Tuple[int, str], Related] = {}
    for item in reported:
        for node, _, note in (*item.route, *item.related):
            if id(node) in starts:
                path, start = starts[id(node)]
                found[(id(node), note)] = Related(path, start.line, start.column + 1, note)
    return found


def _unfollowed_calls(cuts: List["Unfollowed"]) -> Tuple[UnfollowedCall, ...]:
    """The distinct calls the traces cut for a budget, sorted."""
    from idemlint.semantic.trace import source_text

    texts: Dict[int, str] = {}  # a helper's cut is met again by every task that reaches it
    for cut in cuts:
        if id(cut.node) not in texts:
            texts[id(cut.node)] = source_text(cut.node, _CALL_TEXT)
    found = {UnfollowedCall(cut.module.path, cut.function, texts[id(cut.node)], cut.reason) for cut in cuts}
    return tuple(sorted(found))


# How much of a call's code names it among the calls not followed.
_CALL_TEXT = 200


_Starts = Dict[int, Tuple[str, "CodePosition"]]


def _starts(
    nodes: Iterable[Tuple["cst.CSTNode", "LoadedModule"]], walked: Set[int], problems: List[FileProblem]
) -> _Starts:
    """``id(node) -> (path, start)`` for nodes of any module, each module
    positioned once; a module whose positions fail is added to ``problems``
    and its nodes left out."""
    from idemlint.positions import locate

    by_module: Dict[int, Tuple["LoadedModule", Dict[int, "cst.CSTNode"]]] = {}
    for node, module in nodes:
        by_module.setdefault(id(module), (module, {}))[1][id(node)] = node
    found: _Starts = {}
    for module, wanted in by_module.values():
        try:
            lines = io.StringIO(module.text, newline="").readlines()
            positions = locate(module.pieces(), list(wanted.values()), lines, _walked_statements(module, walked))
        except Exception as error:
            _add_problem(problems, internal_error(module.path, "position computation", error))
            continue
        for key in wanted:
            found[key] = (module.path, positions[key].start)
    return found


def _add_problem(problems: List[FileProblem], problem: FileProblem) -> None:
    """A module can fail to be positioned for its findings and for related places: one line."""
    if problem not in problems:
        problems.append(problem)


def _walked_statements(module: "LoadedModule", walked: Set[int]) -> Set[int]:
    """The ids of the module's top-level statements a trace walked (a
    function, or a class one of whose methods it walked): where to look
    for a reported node first."""
    import libcst as cst

    return {
        id(statement)
        for piece in module.pieces()
        for statement in piece.module.body
        if id(statement) in walked
        or (
            isinstance(statement, cst.ClassDef)
            and any(id(member) in walked for member in statement.body.body)
        )
    }


def _without_suppressed(
    findings: List[Finding], modules: Sequence["LoadedModule"]
) -> Tuple[List[Finding], List[Finding]]:
    """The findings no ``# noqa`` hides, and those it hides."""
    from idemlint.noqa import NoqaMap

    # Not str.splitlines(): it also splits on form feeds, \x1c-\x1e, \x85 and
    # \u2028, which are not line breaks for Python, libcst or flake8.
    maps = {
        module.path: NoqaMap(io.StringIO(module.text, newline="").readlines(), module.starts)
        for module in modules
    }
    hides = [maps[f.path].suppressed(f.line, f.code) for f in findings]
    return (
        [f for f, hidden in zip(findings, hides) if not hidden],
        [f for f, hidden in zip(findings, hides) if hidden],
    )


# The task options ``idemlint tasks`` shows: those the rules read (delivery,
# retries, time limits, binding) and the schedule of a periodic task.
LISTED_OPTIONS = (
    "bind", "acks_late", "reject_on_worker_lost", "soft_time_limit", "time_limit",
    "timeout", "autoretry_for", "max_retries", "retries", "retry_backoff",
    "default_retry_delay", "base", "run_every", "schedule", "crontab", "cron",
)


@dataclass(frozen=True)
class TaskInfo:
    """One task the analysis sees, as ``idemlint tasks`` lists it.

    ``name`` is dotted: ``module.function``, ``module.Class`` for a
    class-based task, ``module.Class.method``; ``options`` holds the listed
    options the task is given (keyword, source text), in LISTED_OPTIONS
    order.
    """

    framework: str
    name: str
    path: str
    line: int
    recognised: str
    options: Tuple[Tuple[str, str], ...] = ()
    # Option -> where it came from, for those not written where the task
    # is made (``("acks_late", "base RetryingTask")``), in ``options`` order.
    origins: Tuple[Tuple[str, str], ...] = ()
    # Where its analysis reaches (``list_tasks(traced=True)``; see
    # idemlint.semantic.reach): None when it was not traced.
    reach: Optional["Reach"] = None
    # How a Celery task lost with its worker is run again (its schedule, a
    # scheduled sweep; see idemlint.frameworks.schedules): None when nothing is seen to.
    runs_again: Optional[str] = None


@dataclass(frozen=True)
class TaskListing:
    tasks: Tuple[TaskInfo, ...] = ()
    problems: Tuple[FileProblem, ...] = ()


def list_tasks(
    paths: Iterable[str],
    settings: Union[Settings, SettingsSource] = DEFAULT_SETTINGS,
    *,
    force_exclude: bool = False,
    project: Optional[str] = None,
    traced: bool = False,
) -> TaskListing:
    """Every task :func:`lint_paths` would analyse with the same arguments,
    sorted by path then line, and the files that could not be read or
    parsed (or whose detection failed).

    The same discovery, byte screen and project index as ``lint_paths``;
    nothing cached.  ``traced``: each task's trace is built as ``check``
    builds it, and its :class:`~idemlint.semantic.reach.Reach` given
    (calls by resolution, the unresolved ones, the effects).
    """
    source = _source(settings)
    named, files, problems, _ = _files_to_check(paths, source, force_exclude, project)
    candidates, read_problems, project_files, _, _ = _candidates(files, _screened_decorators(files, source))
    reported = _ReportedFiles(named if project is not None else None)
    found: Dict[Tuple[str, int, str], TaskInfo] = {}
    file_problems = list(read_problems)
    for group, numbers in _by_settings([path for path, _ in candidates], source):
        for chunk in _chunks([candidates[number] for number in numbers], 1):
            infos, chunk_problems = _tasks_in_chunk(chunk, project_files, group, traced)
            for info in infos:
                found.setdefault((info.path, info.line, info.name), info)
            file_problems += chunk_problems
    problems += [p for p in file_problems if reported.holds(p.path)]
    tasks = sorted((t for t in found.values() if reported.holds(t.path)), key=_task_order)
    return TaskListing(tasks=tuple(tasks), problems=tuple(sorted(problems)))


def _task_order(info: TaskInfo) -> Tuple[str, int, str]:
    return (info.path, info.line, info.name)


def _tasks_in_chunk(
    candidates: List[_Candidate], files: _ProjectFiles, settings: Settings, traced: bool = False
) -> Tuple[List[TaskInfo], List[FileProblem]]:
    """The tasks of some task files, loaded as ``check`` loads them, each
    file's loading and detection (and, ``traced``, each task's trace) under
    the time limit."""
    from idemlint.project import Project

    project = Project(
        files.files, settings.task_decorators, files.app_files,
        named_task_files=files.named_task_files, implementing_files=files.implementing_files,
        schedule_files=files.schedule_files, registering_files=files.registering_files,
    )
    modules: List["LoadedModule"] = []
    problems: List[FileProblem] = []
    _analysis_imported()
    for path, raw in candidates:
        try:
            with time_limit(settings.timeout) as limit:
                loaded = _load(raw, path, None, settings.task_decorators, project.may_be_task_decorator)
            if limit.rang:
                raise AnalysisTimeout()
        except AnalysisTimeout:
            loaded = timed_out(path, settings.timeout)
        if isinstance(loaded, FileProblem):
            problems.append(loaded)
        else:
            modules.append(loaded)
    for module in modules:
        project.register(module)
    found: List[Tuple["Task", "LoadedModule"]] = []
    with _deep_recursion():
        for module in modules:
            try:
                with time_limit(settings.timeout) as limit:
                    found += _tasks_of(module, project, _decorators_of(module, project, settings))
                if limit.rang:
                    raise AnalysisTimeout()
            except AnalysisTimeout:
                problems.append(timed_out(module.path, settings.timeout))
            except Exception as error:  # as in ``check``: the run goes on
                problems.append(internal_error(module.path, "task detection", error))
        infos = _described(found, problems, project)
        if not traced:
            return infos, problems
        reaches = _reaches(found, project, settings, problems)
        return [replace(info, reach=reaches.get((info.path, info.name))) for info in infos], problems


def _reaches(
    found: List[Tuple["Task", "LoadedModule"]], project: "Project", settings: Settings, problems: List[FileProblem]
) -> Dict[Tuple[str, str], "Reach"]:
    """Each task's reach, by its path and dotted name: traced as ``check`` traces
    it, under the time limit (a task cut has none, and its file is
    reported as cut once)."""
    from idemlint.semantic.trace import Summaries, TraceBuilder
    from idemlint.semantic.resolution import Calls
    from idemlint.effects import Knowledge
    from idemlint.semantic.reach import Met

    summaries = Summaries(resolving=True)
    calls = Calls(project, settings.effect_methods())
    sub_tasks = _sub_tasks(project, settings, summaries)
    met: List[Tuple["Task", "LoadedModule", Met]] = []
    cut: Set[str] = set()
    for task, home in found:
        try:
            with time_limit(settings.timeout) as limit:
                trace = TraceBuilder(home, task, project, summaries, calls).build()
                knowledge = Knowledge(
                    trace, home.index.constants, settings, calls, partial(sub_tasks.effects, root=task.function)
                )
                met.append((task, home, Met.of(trace, knowledge)))
            if limit.rang:
                raise AnalysisTimeout()
        except AnalysisTimeout:
            if home.path not in cut:
                cut.add(home.path)
                problems.append(timed_out(home.path, settings.timeout))
        except Exception as error:  # as in ``check``: the run goes on
            problems.append(internal_error(home.path, f"the trace of task `{task.name}`", error))
    place = _placer([node for _, _, seen in met for node in seen.nodes()], problems)
    return {(home.path, _qualified(task, home)): seen.reach(place) for task, home, seen in met}


def _placer(
    nodes: Sequence[Tuple[cst.CSTNode, "LoadedModule"]], problems: List[FileProblem]
) -> Callable[[cst.CSTNode, "LoadedModule"], Tuple[str, int, int]]:
    """Where each of ``nodes`` is (path, line, column, both 1-based); a
    node of a module whose positions fail is placed at 1:1."""
    places = _places(nodes, problems)

    def place(node: cst.CSTNode, module: "LoadedModule") -> Tuple[str, int, int]:
        line, column = places.get(id(node), (1, 1))
        return module.path, line, column

    return place


def _places(
    nodes: Sequence[Tuple[cst.CSTNode, "LoadedModule"]], problems: List[FileProblem]
) -> Dict[int, Tuple[int, int]]:
    """``id(node) -> (line, column)``, both 1-based, each module's positions
    computed once; a module whose positions fail goes to ``problems`` and
    its nodes are left out."""
    from idemlint.positions import locate

    by_module: Dict[int, Tuple["LoadedModule", List[cst.CSTNode]]] = {}
    for node, module in nodes:
        by_module.setdefault(id(module), (module, []))[1].append(node)
    places: Dict[int, Tuple[int, int]] = {}
    for module, wanted in by_module.values():
        try:
            lines = io.StringIO(module.text, newline="").readlines()
            positions = locate(module.pieces(), wanted, lines)
        except Exception as error:
            problems.append(internal_error(module.path, "position computation", error))
            continue
        for node in wanted:
            start = positions[id(node)].start
            places[id(node)] = (start.line, start.column + 1)
    return places


def _described(
    found: List[Tuple["Task", "LoadedModule"]], problems: List[FileProblem], project: "Project"
) -> List[TaskInfo]:
    """Each task with its line; a module whose positions fail goes to ``problems``."""
    places = _places([(task.owner or task.function, home) for task, home in found], problems)
    return [
        _info(task, home, places[id(task.owner or task.function)][0], project)
        for task, home in found
        if id(task.owner or task.function) in places
    ]


def _project_binding(recognised: str, project: "Project") -> str:
    """``@name -> module.name`` followed to the call ``module.name`` is bound
    to in its own module (through re-exports), when it is bound to one:
    ``@retrying_task -> celery.shared_task(acks_late=True)``."""
    from idemlint.project import MAX_ALIAS_HOPS
    from idemlint.tasks import binding_description

    decorator, arrow, qualified = recognised.partition(" -> ")
    if not decorator.startswith("@") or not arrow or "(" in qualified:
        return recognised
    for _ in range(MAX_ALIAS_HOPS):
        module_name, _, name = qualified.rpartition(".")
        loaded = project.load(module_name) if module_name else None
        if loaded is None:
            break
        resolver = loaded.index.resolver()
        bound = binding_description(loaded.index.constants, resolver, name)
        if bound is not None:
            return f"{decorator} -> {bound}"
        imported = loaded.index.imports.get(name)
        if imported is None or imported == qualified:
            break
        qualified = imported
    return recognised


def _qualified(task: "Task", home: "LoadedModule") -> str:
    return f"{home.name}.{task.name}" if home.name else task.name


def _info(task: "Task", home: "LoadedModule", line: int, project: "Project") -> TaskInfo:
    from idemlint.tasks import source_text

    given = dict(task.options)
    if task.schedule is not None:
        given.setdefault("schedule", task.schedule)
    options = tuple(
        (key, source_text(given[key])) for key in LISTED_OPTIONS if key in given
    )
    name = _qualified(task, home)
    recognised = _project_binding(task.recognised, project)
    origins = tuple((key, task.origins[key]) for key, _ in options if key in task.origins)
    runs_again = _runs_again(task, home, project, name) if task.framework in ("celery", "custom") else None
    return TaskInfo(task.framework, name, home.path, line, recognised, options, origins, runs_again=runs_again)


def _runs_again(task: "Task", home: "LoadedModule", project: "Project", name: str) -> Optional[str]:
    """What runs a lost task again, as IDM009 reads it."""
    if task.schedule is not None or "periodic_task" in task.recognised:
        return "scheduled by its decorator"
    if task.owner is not None:
        return None
    return project.healing(name, task.function, home.index.resolver())
