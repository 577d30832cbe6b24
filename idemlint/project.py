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
import warnings
from dataclasses import dataclass, replace
from typing import Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, TypeVar, Union, cast

import libcst as cst

from idemlint import catalog
from idemlint.cache import UNREADABLE, content_hash
from idemlint.findings import FileProblem
from idemlint.frameworks.schedules import (
    ScheduleEntry, Sweep, may_schedule, names_beat_schedule, requires_on_entry, schedule_entries, sweeps,
)
from idemlint.modules import module_files, module_name
from idemlint.nesting import TooDeep, cpython_parses_safely, too_deep, too_deep_parsed
from idemlint.reading import NO_OVERLAY, Overlay, decode
from idemlint.segments import Later, Piece, Screen, Segment, split
from idemlint.names import Resolver, argument, dotted_name, literal_text
from idemlint.splats import Scope, Splat, entry, reached, returned_dicts
from idemlint.tasks import (
    BoundDecorators,
    ClassOptions,
    Handing,
    Made,
    ModuleIndex,
    Task,
    assignments_in,
    build_index,
    class_assignments,
    class_options,
    enqueue_wrappers,
    find_tasks,
    handed_target,
    registered_function,
    task_classes,
    task_decorator_wrappers,
    task_decorators,
)

MAX_ALIAS_HOPS = 5
# Beat entries and the names schedules are built of, read at most per run:
# a generated schedule of many thousands is not read whole.
MAX_SCHEDULE_ENTRIES = 5000

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
    # The first line of each run of lines holding top-level statements (see
    # segments.split), where nothing is open: () when CPython could not parse it.
    starts: Tuple[int, ...] = ()

    def pieces(self) -> List[Piece]:
        """The parsed statements, in pieces that each align with their CPython statements."""
        return [Piece(self.module, self.tree), *(self.later.pieces if self.later else ())]


class Project:
    """Modules by dotted name, loaded on demand by :meth:`load`."""

    def __init__(
        self,
        paths: Iterable[str],
        task_decorators: Sequence[str] = (),
        app_files: Sequence[str] = (),
        overlay: Overlay = NO_OVERLAY,
        named_task_files: Sequence[str] = (),
        implementing_files: Sequence[str] = (),
        schedule_files: Sequence[str] = (),
        registering_files: Sequence[str] = (),
    ) -> None:
        """``app_files``: the files whose text may create or configure a
        Celery app (``Celery(``, ``.Task =``, ``task_cls``), read only when a
        task asks which class its app gives it; ``overlay``: an editor's
        buffers, read instead of those files on disk; ``named_task_files``:
        the files holding tasks whose text may give one a name of its own
        (``name=``), read only when a task is sent by such a name;
        ``implementing_files``: the files whose text may declare a class
        implements an interface (``implementer(``), read only when an
        object is looked up by an interface; ``schedule_files``: the files
        whose text may schedule a task (``schedule``, ``periodic``), read
        only when IDM009 asks whether a lost task is run again;
        ``registering_files``: the files whose text may register an object
        under a name (``register``, ``name=``), read only when something is
        looked up by a name."""
        self.files: Dict[str, str] = module_files(paths)
        self._overlay = overlay
        self._task_decorators = task_decorators
        self._app_files = app_files
        self._named_task_files = named_task_files
        self._implementing_files = implementing_files
        self._schedule_files = schedule_files
        self._registering_files = registering_files
        self._names_by_path: Optional[Dict[str, str]] = None
        # Every module name looked up and the file it named, in order: what an
        # analysis depends on besides its own file (see idemlint.cache).
        self.lookups: List[Lookup] = []
        # Each module with what loading it looked up (which of its definitions
        # are parsed up front depends on it), replayed whenever it is used,
        # and the hash of the bytes read for it (cache.UNREADABLE: none).
        self._loaded: Dict[str, Tuple[Optional[LoadedModule], List[Lookup], str]] = {}
        self._decorators: Dict[str, Tuple[Optional[Made], List[Lookup], int]] = {}
        # The names being followed, whether an answer was cut short, and how
        # many were being followed at most while the current one was (see _followed).
        self._resolving: List[str] = []
        self._cut = False
        self._deepest = 0
        self._enqueue_wrappers: Dict[str, Dict[str, Handing]] = {}
        self._task_bases: Dict[str, Tuple[bool, List[Lookup], int]] = {}
        self._wrappers: Dict[str, Dict[str, str]] = {}
        self._class_options: Dict[str, Tuple[Optional[ClassOptions], List[Lookup], int]] = {}
        # Each app (qualified) and its task class (qualified; None: Celery's own).
        self._apps: Optional[Tuple[Dict[str, Optional[str]], List[Lookup]]] = None
        self._tasks_found: Dict[str, Tuple[List[Task], List[Lookup]]] = {}
        self._pool_copies: Dict[Tuple[str, str], Tuple[List[Optional[str]], List[Lookup]]] = {}
        self._healing: Dict[str, Tuple[Optional[str], List[Lookup]]] = {}
        self._remembered: Dict[str, Tuple[object, List[Lookup]]] = {}
        self._sweeps: Dict[str, List[Sweep]] = {}
        self._scheduled: Optional[Tuple[Dict[str, Tuple[cst.FunctionDef, LoadedModule, str]], List[Lookup]]] = None

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
            loaded, digest = read_module(path, self._task_decorators, self.may_be_task_decorator, self._overlay)
            self._loaded[name] = (loaded, self.lookups[start:], digest)
        else:
            self.lookups += self._loaded[name][1]
        loaded, _, digest = self._loaded[name]
        self.lookups.append((name, path, digest))
        return loaded

    def loaded_from(self, path: str, raw: bytes) -> Optional[Tuple[LoadedModule, List[Lookup]]]:
        """The module a lookup already loaded from the file ``path``, when
        it was read from the bytes ``raw``, with what loading it looked up:
        a task file reached as another's helper first is not parsed again."""
        name, _ = module_name(path)
        loaded, lookups, digest = self._loaded.get(name, (None, [], "")) if name else (None, [], "")
        if loaded is None or loaded.path != path or digest != content_hash(raw):
            return None
        return loaded, list(lookups)

    def register(self, loaded: LoadedModule, lookups: Sequence[Lookup] = ()) -> None:
        """A module the engine parsed itself (a task file) is not parsed again:
        whoever looks it up depends on the bytes the engine read.  A file
        whose module name another file claims (two top-level ``tasks.py``
        in directories without ``__init__.py``) is not what that name loads."""
        if self.files.get(loaded.name) != loaded.path:
            return
        self._loaded[loaded.name] = (loaded, list(lookups), loaded.digest or UNREADABLE)

    def task_decorator(self, qualified: str) -> Optional[Made]:
        """What a project name makes when it decorates a function, None when
        it is no task decorator; found without configuration: a function or
        class that wraps a task decorator (``def timed_task(**kw)``), a
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
        memo: Dict[str, Tuple[Found, List[Lookup], int]],
        qualified: str,
        compute: Callable[[str], Found],
        nothing: Found,
    ) -> Found:
        """``compute(qualified)``, which may ask again about the names it
        re-exports: a cycle or a chain longer than ``MAX_ALIAS_HOPS`` finds
        ``nothing``, and an answer cut so is not remembered (it would make
        what a later question finds depend on the questions before it).
        A remembered answer serves only where the hops it took still fit
        below the question being asked, as computing it there would."""
        depth = len(self._resolving)
        if qualified in memo and depth + memo[qualified][2] <= MAX_ALIAS_HOPS:
            found, lookups, hops = memo[qualified]
            self.lookups += lookups
            self._deepest = max(self._deepest, depth + hops)
            return found
        if qualified in self._resolving or depth >= MAX_ALIAS_HOPS:
            self._cut = True
            return nothing
        cut_before, self._cut = self._cut, False
        deepest_before, self._deepest = self._deepest, depth + 1
        start = len(self.lookups)
        self._resolving.append(qualified)
        try:
            found = compute(qualified)
        finally:
            self._resolving.pop()
        hops, self._deepest = self._deepest - depth, max(deepest_before, self._deepest)
        if not self._cut:
            memo[qualified] = (found, self.lookups[start:], hops)
        self._cut = self._cut or cut_before
        return found

    def _is_task_base(self, qualified: str) -> bool:
        found = self._module_name(qualified)
        if found is None:
            return False
        loaded, name = found
        index = loaded.index
        if name in index.classes:
            owner = index.classes.get(name)
            classes = task_classes(index, index.resolver(), self.is_task_base, among=(name,))
            return any(owner is c for c in classes)
        if name in index.imports:
            return self.is_task_base(index.imports[name])
        return False

    def class_options(self, qualified: str) -> Optional[ClassOptions]:
        """The task options a project class sets as attributes, through its
        project bases (:func:`idemlint.tasks.class_options`), followed
        through re-exports; None when the name is no project class."""
        return self._followed(self._class_options, qualified, self._class_options_of, None)

    def _class_options_of(self, qualified: str) -> Optional[ClassOptions]:
        found = self._module_name(qualified)
        if found is None:
            return None
        loaded, name = found
        index = loaded.index
        if name in index.classes:
            return class_options(index, index.classes[name], self.class_options)
        if name in index.imports:
            return self.class_options(index.imports[name])
        return None

    def app_task_class(self, app: str) -> Optional[ClassOptions]:
        """The options the default ``Task`` class of a Celery app gives its
        tasks (``app.Task = X`` in any module, ``Celery(task_cls=X)``): the
        app a qualified name denotes (through re-exports), or with "" the
        project's only app.  None: Celery's own class, or not known."""
        apps = self._project_apps()
        if app == "":
            owner = next(iter(apps.values())) if len(apps) == 1 else None
        else:
            owner = apps.get(self._canonical_app(app, apps) or "")
        if owner is None or not self.is_task_base(owner):
            return None
        return self.class_options(owner)

    def _canonical_app(self, qualified: str, apps: Mapping[str, Optional[str]]) -> Optional[str]:
        for _ in range(MAX_ALIAS_HOPS):
            if qualified in apps:
                return qualified
            module, _, name = qualified.rpartition(".")
            loaded = self.load(module) if module else None
            if loaded is None or name not in loaded.index.imports:
                return None
            qualified = loaded.index.imports[name]
        return None

    def _project_apps(self) -> Dict[str, Optional[str]]:
        """Every module-level Celery app of the project and its task class;
        what it read is recorded as looked up every time it is asked."""
        if self._apps is not None:
            self.lookups += self._apps[1]
            return self._apps[0]
        start = len(self.lookups)
        names = {path: name for name, path in self.files.items()}
        apps: Dict[str, Optional[str]] = {}
        settings: List[Tuple[str, Optional[str]]] = []
        for path in self._app_files:
            loaded = self.load(names[path]) if path in names else None
            if loaded is not None:
                apps.update(_apps_created(loaded))
                settings += _task_classes_set(loaded)
        for app, owner in settings:  # ``app.Task = X`` wins over ``task_cls``, as it is set later
            canonical = self._canonical_app(app, apps)
            if canonical is not None:
                apps[canonical] = owner
        self._apps = (apps, self.lookups[start:])
        return apps

    def pools_copying(self, module: str, setting: str) -> List[Optional[str]]:
        """The worker pool (``worker_pool = "threads"``; None when unset or
        not a literal) of each app-configuring module that copies
        ``setting`` from ``module`` (``task_acks_late = base.task_acks_late``):
        the workers a shared configuration module is loaded by.  What it read
        is recorded as looked up every time it is asked."""
        key = (module, setting)
        if key not in self._pool_copies:
            start = len(self.lookups)
            names = {path: name for name, path in self.files.items()}
            pools: List[Optional[str]] = []
            for path in self._app_files:
                loaded = self.load(names[path]) if path in names and names[path] != module else None
                if loaded is not None and _copies_setting(loaded, module, setting):
                    pools.append(_worker_pool(loaded))
            self._pool_copies[key] = (pools, self.lookups[start:])
        pools, lookups = self._pool_copies[key]
        self.lookups += lookups
        return pools

    def healing(self, task: str, function: cst.FunctionDef, resolver: Resolver) -> Optional[str]:
        """How a task lost with its worker process is run again, if it is
        (see :mod:`idemlint.frameworks.schedules`): ``task`` is the task
        function's qualified name, ``function`` its definition and
        ``resolver`` its module's.  What it read is recorded as looked up
        every time it is asked."""
        if task not in self._healing:
            start = len(self.lookups)
            self._healing[task] = (self._healed(task, function, resolver), self.lookups[start:])
        healed, lookups = self._healing[task]
        self.lookups += lookups
        return healed

    def _healed(self, task: str, function: cst.FunctionDef, resolver: Resolver) -> Optional[str]:
        scheduled = self._scheduled_functions()
        if task in scheduled:
            return f"scheduled in {scheduled[task][2]}"
        for sweeper, (defined, home, path) in scheduled.items():
            if sweeper not in self._sweeps:  # read once: every task asks about every sweeper
                self._sweeps[sweeper] = sweeps(defined, home.index.resolver())
            for sweep in self._sweeps[sweeper]:
                field, value = sweep.state
                how = f"swept by `{sweeper}` (the rows with `{field}` {value}, scheduled in {path})"
                enqueued = task in {self._function_named(name, home) for name in sweep.enqueued}
                if enqueued and requires_on_entry(function, sweep, resolver, same_model=False):
                    return f"{how}, which enqueues it again"
                if sweep.marks_done and requires_on_entry(function, sweep, resolver, same_model=True):
                    return f"{how}, which does the work and sets `{field}` itself"
        return None

    def _scheduled_functions(self) -> Dict[str, Tuple[cst.FunctionDef, LoadedModule, str]]:
        """Each project function Celery runs on a schedule (qualified), its
        definition, its module and the file that schedules it."""
        if self._scheduled is not None:
            self.lookups += self._scheduled[1]
            return self._scheduled[0]
        start = len(self.lookups)
        scheduled: Dict[str, Tuple[cst.FunctionDef, LoadedModule, str]] = {}
        by_name: Optional[Dict[str, List[Tuple[cst.FunctionDef, LoadedModule]]]] = None
        seen: Set[ScheduleEntry] = set()
        for loaded in self._modules_of(self._schedule_files):
            entries = list(self._schedule_entries_of(loaded))
            while entries:
                entry, home = entries.pop()
                if not entry.by_name and "." not in entry.target:  # a name of the module itself
                    entry = replace(entry, target=f"{home.name}.{entry.target}")
                if entry in seen or len(seen) > MAX_SCHEDULE_ENTRIES:
                    continue
                seen.add(entry)
                if entry.holds_entries:
                    entries += self._entries_held(entry.target)
                    continue
                if entry.by_name and by_name is None:
                    by_name = self._tasks_by_name()
                for function, defined in self._scheduled_by(entry, by_name or {}):
                    scheduled.setdefault(f"{defined.name}.{function.name.value}", (function, defined, home.path))
        self._scheduled = (scheduled, self.lookups[start:])
        return scheduled

    def _schedule_entries_of(self, loaded: LoadedModule) -> Iterator[Tuple[ScheduleEntry, LoadedModule]]:
        """What a module whose text may schedule schedules (its module-level
        statements, the functions that may schedule, its beat schedule
        settings left as text)."""
        functions, constants = loaded.index.functions, loaded.index.constants
        roots: List[cst.CSTNode] = [loaded.module]
        for name in functions:
            outline = functions.outline(name)  # left as text: parsed only if it may schedule
            function = functions.get(name) if outline is None or may_schedule(outline.statement) else None
            if function is not None:
                roots.append(function)
        schedules = [constants[name] for name in constants if names_beat_schedule(name)]
        for entry in schedule_entries(roots, loaded.index.resolver(), schedules):
            yield entry, loaded

    def _entries_held(self, qualified: str) -> List[Tuple[ScheduleEntry, LoadedModule]]:
        """The beat entries of the project constant ``qualified`` (one a
        beat schedule is built of), with the module it is in."""
        found = self._module_name(qualified)
        if found is None or found[1] not in found[0].index.constants:
            return []
        home, name = found
        value = home.index.constants[name]
        return [(entry, home) for entry in schedule_entries((), home.index.resolver(), [value])]

    def _scheduled_by(
        self, entry: ScheduleEntry, by_name: Dict[str, List[Tuple[cst.FunctionDef, LoadedModule]]]
    ) -> Iterator[Tuple[cst.FunctionDef, LoadedModule]]:
        """The function a schedule entry runs: for ``add_periodic_task``, the
        one it is handed; for a beat entry, the task registered under its
        name, as beat finds it: the one task whose ``name=`` is that text,
        else the function defined at that dotted path (not re-exported
        there) that gives itself no other name (``by_name``: the tasks
        registered under a ``name=``, by name)."""
        if not entry.by_name:
            found = self.function(entry.target)
            if found is not None and found[1] is None:
                yield found[0], found[2]
            return
        named = by_name.get(entry.target, [])
        if named:
            if len(named) == 1:
                yield named[0]
            return
        found = self.function(entry.target)
        if found is None or found[1] is not None or f"{found[2].name}.{found[0].name.value}" != entry.target:
            return
        task = next((t for t in self.tasks_in(found[2]) if t.function is found[0]), None)
        if task is not None and "name" not in task.options:
            yield found[0], found[2]

    def _tasks_by_name(self) -> Dict[str, List[Tuple[cst.FunctionDef, LoadedModule]]]:
        """The function tasks registered under a literal ``name=``, by name."""
        named: Dict[str, List[Tuple[cst.FunctionDef, LoadedModule]]] = {}
        for module in self.modules_naming_tasks():
            for task in self.tasks_in(module):
                text = literal_text(task.options["name"]) if "name" in task.options else None
                if task.owner is None and text is not None:
                    named.setdefault(text, []).append((task.function, module))
        return named

    def _function_named(self, name: str, home: LoadedModule) -> Optional[str]:
        """The qualified name of the project function ``name`` denotes in ``home``."""
        found = self.function(name if "." in name else f"{home.name}.{name}")
        if found is None or found[1] is not None:
            return None
        return f"{found[2].name}.{found[0].name.value}"

    def _task_decorator(self, qualified: str) -> Optional[Made]:
        found = self._module_name(qualified)
        if found is None:
            return None
        loaded, name = found
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
        imported ``Class.method``), any function handed to the
        project's own wrapper of ``enqueue`` defined in another module
        (``run_later(refresh)``, or ``schedule({"func": refresh})`` to a
        wrapper that splats its parameter), and those of the job
        definitions an imported function returns when a loop here hands
        them RQ (``for job in definitions(): scheduler.schedule(**job)``)."""
        index = loaded.index
        found: Dict[int, Tuple[Task, LoadedModule]] = {}
        for sent in self._sent_by_name(loaded):
            found.setdefault(id(sent[0].function), sent)
        targets: List[Tuple[LoadedModule, bool, str]] = [(loaded, False, name) for name in index.enqueued]
        for callee, call, scope in index.wrapper_calls:
            handing = self.enqueue_wrapper(callee)
            handed = handing.handed(call) if handing is not None else None
            targets += self._handed_targets(loaded, handed, scope)
        for table, keys in index.enqueued_tables:
            targets += self._table_targets(table, keys)
        how = f"enqueued in {loaded.path}"
        for module, local, name in targets:
            if local:
                function = registered_function(module.index, name)
                if function is not None:
                    found.setdefault(id(function), (Task(name, function, "rq", {}, recognised=how), module))
                continue
            defined = self.function(name) or self._unbound_method(name)
            if defined is None:
                continue
            function, owner, home = defined
            task = function.name.value if owner is None else f"{owner.name.value}.{function.name.value}"
            found.setdefault(id(function), (Task(task, function, "rq", {}, recognised=how), home))
        return list(found.values())

    def _sent_by_name(self, loaded: LoadedModule) -> List[Tuple[Task, LoadedModule]]:
        """The project functions ``loaded`` sends to Celery by their dotted
        name (``app.send_task("pkg.tasks.sync")``) that are no task already,
        as Celery tasks; a name that is no project function is ignored."""
        sent: List[Tuple[Task, LoadedModule]] = []
        for name in loaded.index.sent_by_name:
            defined = self.function(name)
            if defined is None or defined[1] is not None:
                continue
            function, _, home = defined
            if any(task.function is function for task in self.tasks_in(home)):
                continue
            how = f"sent by name in {loaded.path}"
            sent.append((Task(function.name.value, function, "celery", {}, recognised=how), home))
        return sent

    def tasks_in(self, home: LoadedModule) -> List[Task]:
        """The tasks detection finds in a module by their decorators, found
        once per module; what finding them looked up is recorded every time."""
        if home.name in self._tasks_found:
            found, lookups = self._tasks_found[home.name]
            self.lookups += lookups
            return found
        start = len(self.lookups)
        decorators = task_decorators(
            home.index, self._task_decorators, self.task_decorator, self.is_task_base
        )
        found = find_tasks(home.index, decorators)
        self._tasks_found[home.name] = (found, self.lookups[start:])
        return found

    def modules_naming_tasks(self) -> List[LoadedModule]:
        """The modules holding tasks whose text may register one under a
        name of its own (``name=``): where a task sent by such a name is
        looked for.  Each is recorded as looked up, so a task that starts
        or stops being registered under a name renews the answer."""
        return self._modules_of(self._named_task_files)

    def modules_implementing(self) -> List[LoadedModule]:
        """The modules whose text may declare a class implements an
        interface (``implementer(``), each recorded as looked up."""
        return self._modules_of(self._implementing_files)

    def remembered(self, key: str, compute: Callable[[], Found]) -> Found:
        """A project-wide answer, computed on first use and kept for the
        run (the project's own registrations, say); what computing it
        looked up is recorded as looked up on every use."""
        if key not in self._remembered:
            start = len(self.lookups)
            self._remembered[key] = (compute(), self.lookups[start:])
        else:
            self.lookups += self._remembered[key][1]
        return cast(Found, self._remembered[key][0])

    def modules_registering(self) -> List[LoadedModule]:
        """The modules whose text may register an object under a name
        (``register``, ``name=``), each recorded as looked up."""
        return self._modules_of(self._registering_files)

    def _modules_of(self, paths: Sequence[str]) -> List[LoadedModule]:
        if self._names_by_path is None:
            self._names_by_path = {path: name for name, path in self.files.items()}
        found: List[LoadedModule] = []
        for path in paths:
            name = self._names_by_path.get(path)
            loaded = self.load(name) if name is not None else None
            if loaded is not None:
                found.append(loaded)
        return found

    def _handed_targets(
        self, loaded: LoadedModule, handed: Union[cst.BaseExpression, Splat, None], scope: Scope
    ) -> List[Tuple[LoadedModule, bool, str]]:
        """The functions an argument handed to a wrapper names, each with
        the module it is to be resolved in."""
        if handed is None:
            return []
        if not isinstance(handed, Splat):
            target = handed_target(loaded.index, handed)
            return [(loaded, *target)] if target is not None else []
        found = reached(handed.value, scope)
        targets: List[Tuple[LoadedModule, bool, str]] = []
        for dictionary in found.dicts:
            value = entry(dictionary, handed.keys)
            target = handed_target(loaded.index, value) if value is not None else None
            if target is not None:
                targets.append((loaded, *target))
        for table in found.tables:
            qualified = loaded.index.resolver().resolve(table)
            if qualified is not None:
                targets += self._table_targets(qualified, handed.keys)
        return targets

    def _table_targets(self, qualified: str, keys: Tuple[str, ...]) -> List[Tuple[LoadedModule, bool, str]]:
        """The functions of the job definitions a project function returns
        (``[{"func": refresh, ...}]``), resolved in its own module."""
        defined = self.function(qualified)
        if defined is None or defined[1] is not None:
            return []
        function, _, home = defined
        targets: List[Tuple[LoadedModule, bool, str]] = []
        for dictionary in returned_dicts(function):
            value = entry(dictionary, keys)
            target = handed_target(home.index, value) if value is not None else None
            if target is not None:
                targets.append((home, *target))
        return targets

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

    def _module_name(self, qualified: str) -> Optional[Tuple[LoadedModule, str]]:
        """The project module and the one name in it that ``qualified`` denotes."""
        found = self._split(qualified)
        if found is None or len(found[1]) != 1:
            return None
        return found[0], found[1][0]

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


def _apps_created(loaded: LoadedModule) -> Dict[str, Optional[str]]:
    """The module's module-level ``app = Celery(...)`` (or an instance of
    the module's own ``Celery`` subclass), each with its ``task_cls``
    (qualified) when it is given one: by keyword, else as the subclass's
    class attribute (``class ProjectCelery(Celery): task_cls = BaseTask``)."""
    index = loaded.index
    resolver = index.resolver()
    apps: Dict[str, Optional[str]] = {}
    for name, value in index.constants.up_front().items():  # a call is never left as text
        if not isinstance(value, cst.Call):
            continue
        given = argument(value, None, "task_cls")
        if resolver.resolve(value.func) not in catalog.CELERY_APP_CLASSES:
            subclass = _celery_subclass(value.func, index)
            if subclass is None:
                continue
            given = given or class_assignments(subclass).get("task_cls")
        apps[f"{loaded.name}.{name}"] = _class_named(given, loaded) if given is not None else None
    return apps


def _celery_subclass(expression: cst.BaseExpression, index: ModuleIndex) -> Optional[cst.ClassDef]:
    """The module's class ``expression`` names when it subclasses ``Celery``."""
    spelled = dotted_name(expression)
    if spelled is None or spelled not in index.classes:
        return None
    owner = index.classes[spelled]
    resolver = index.resolver()
    if any(resolver.resolve(base.value) in catalog.CELERY_APP_CLASSES for base in owner.bases):
        return owner
    return None


def _task_classes_set(loaded: LoadedModule) -> List[Tuple[str, Optional[str]]]:
    """The module's ``app.Task = X``: the app and the class, both qualified."""
    index = loaded.index
    resolver = index.resolver()
    found: List[Tuple[str, Optional[str]]] = []
    for receiver, value in index.task_class_settings:
        spelled = dotted_name(receiver)
        first = (spelled or "").split(".")[0]
        if resolver.is_imported(first):
            app = resolver.resolve(receiver)
        else:
            app = f"{loaded.name}.{spelled}" if first in index.constants else None
        if app is not None:
            found.append((app, _class_named(value, loaded)))
    return found


def _class_named(expression: cst.BaseExpression, loaded: LoadedModule) -> Optional[str]:
    """The qualified class an expression of ``loaded`` names: a class of the
    module, an imported one, or a string ``"pkg.mod:Class"`` /
    ``"pkg.mod.Class"`` as Celery's ``task_cls`` takes it."""
    text = literal_text(expression)
    if text is not None:
        return text.replace(":", ".") or None
    spelled = dotted_name(expression)
    if spelled is None:
        return None
    if spelled in loaded.index.classes:
        return f"{loaded.name}.{spelled}"
    resolver = loaded.index.resolver()
    return resolver.resolve(expression) if resolver.is_imported(spelled.split(".")[0]) else None


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
    scanned = not cpython_parses_safely(text)
    screened = _screen(text, path, scanned)
    if screened is not None:
        return screened
    parsed = python_ast(text) if tree is None else tree
    digest = content_hash(source) if isinstance(source, bytes) else None
    if isinstance(parsed, Rejected):
        deep = None if scanned else _too_deep(text, path, too_deep(text))
        return deep or _load_with_libcst_only(text, path, parsed, digest)
    tree = parsed
    name, package = module_name(path)
    lines = io.StringIO(text, newline="").readlines()
    deep = None if scanned else _too_deep(text, path, too_deep_parsed(text, lines, tree))
    if deep is not None:
        return deep
    segments = split(tree, len(lines))
    starts = tuple(segment.first_line for segment in segments)
    screen = Screen(tree, segments, lines, task_decorators, package or None, project_decorator)
    waiting = screen.deferred()
    up_front = [segment for segment in segments if segment.number not in waiting]
    partial = _parse_up_front(lines, up_front) if waiting else None
    if partial is None:
        module = _parse(text, path)
        if isinstance(module, FileProblem):
            return module
        index = build_index(module, package or None, scan_bodies=_hands_functions(text))
        return LoadedModule(name or path, path, text, module, tree, index, digest=digest, starts=starts)
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
        digest, starts,
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


def _screen(text: str, path: str, scan: bool) -> Optional[FileProblem]:
    """E999 for what no parser may be given: NUL bytes (rejected by Python
    itself) and, when ``scan`` (a text CPython may not parse safely, see
    :func:`~idemlint.nesting.cpython_parses_safely`), nesting past the
    limits of idemlint.nesting, which would crash libcst's native parser
    (any other text is checked once CPython has parsed it, which makes the
    check cheaper)."""
    if "\0" in text:
        line, column = _text_position(text, text.index("\0"))
        message = "SyntaxError: source code string cannot contain null bytes"
        return FileProblem(path, line, column, "E999", message)
    return _too_deep(text, path, too_deep(text)) if scan else None


def _too_deep(text: str, path: str, deep: Optional[TooDeep]) -> Optional[FileProblem]:
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
    overlay: Overlay = NO_OVERLAY,
) -> Tuple[Optional[LoadedModule], str]:
    """A project module a task reaches (None when it cannot be read or
    parsed), and the content hash of the bytes read (cache.UNREADABLE: none);
    from an editor's buffer when ``overlay`` holds it."""
    try:
        raw = overlay.read(path)
    except OSError:  # unreadable, or no longer a regular file: never a hang
        return None, UNREADABLE
    loaded = load_source(raw, path, None, task_decorators, project_decorator)
    return (loaded if isinstance(loaded, LoadedModule) else None), content_hash(raw)


def _copies_setting(loaded: LoadedModule, module: str, setting: str) -> bool:
    """``task_acks_late = shared.task_acks_late`` where ``shared`` is ``module``."""
    resolver = loaded.index.resolver()
    return any(
        name == setting
        and isinstance(value, cst.Attribute)
        and value.attr.value == setting
        and resolver.resolve(value.value) == module
        for name, value in assignments_in(loaded.module.body)
    )


def _worker_pool(loaded: LoadedModule) -> Optional[str]:
    pools = [
        literal_text(value)
        for name, value in assignments_in(loaded.module.body)
        if name in catalog.WORKER_POOL_SETTINGS
    ]
    return pools[-1] if pools else None
