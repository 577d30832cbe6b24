"""Which files a run looks at: explicit files always, directories recursively.

Directory walks skip version control, virtual environments, caches and build
output, like ruff's defaults; a ``build`` or ``dist`` directory that is itself
a package (it holds an ``__init__.py``) is source code, not build output.
They skip what ``.gitignore`` ignores (:mod:`idemlint.gitignore`), and what
the configuration excludes; which configuration applies to a directory's
entries is the caller's answer (a :data:`SelectionFor`), so that each part
of a monorepo is walked with its own.  Symlinked directories are not
followed (no loops); anything that is not a regular file is reported, never
opened (a FIFO would block the run; what is swapped in after the walk,
reading refuses).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from operator import attrgetter
from typing import Callable, Iterable, Iterator, List, Optional, Set, Tuple, Union

from idemlint.findings import FileProblem
from idemlint.gitignore import Budget, Ignores
from idemlint.reading import NOT_REGULAR
from idemlint.settings import PathPattern

SKIPPED_DIRECTORIES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".bzr",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".eggs",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".idemlint_cache",
        "build",  # unless a package: PACKAGE_NAMES_SKIPPED_AS_OUTPUT
        "dist",
        "node_modules",
        "site-packages",
        "__pypackages__",
    }
)

# Skipped names that a Python package may also take (a "build" feature, a
# "dist" module): skipped only when the directory holds no ``__init__.py``.
# setuptools' ``build/lib/pkg/`` has none at its top, so it stays skipped.
PACKAGE_NAMES_SKIPPED_AS_OUTPUT = frozenset({"build", "dist"})


@dataclass(frozen=True)
class Selection:
    """What a walk skips among the entries of a directory.

    ``exclude`` holds path globs matched against each file and directory
    (:meth:`PathPattern.matches_entry`).  ``default_skips`` keeps the
    built-in list above (a configured ``exclude`` replaces it, like
    ruff's).  ``respect_gitignore``: skip what ``.gitignore`` ignores.
    """

    exclude: Tuple[PathPattern, ...] = ()
    default_skips: bool = True
    respect_gitignore: bool = False


SelectionFor = Callable[[str], Selection]
"""The selection for the entries of a directory (as the walk spells it)."""


def discover(
    paths: Iterable[str],
    selection: Union[Selection, SelectionFor] = Selection(),
    *,
    force_exclude: bool = False,
    warnings: Optional[List[str]] = None,
) -> Iterator[Union[str, FileProblem]]:
    """Python files under ``paths``, each once, or one problem per bad path
    (however many times, and however spelled, it is given).

    Files and directories named in ``paths`` are checked even when excluded
    or ignored by git, unless ``force_exclude`` (for pre-commit, which names
    every staged file): then the exclusions of the directory holding one
    apply to it and to its directories (``.gitignore`` never does: git
    passes only files it tracks).  What could not be used of the ignore
    files is added to ``warnings``; ignore files too costly to apply raise
    :class:`idemlint.gitignore.TooCostly`.
    """
    selection_for = selection if callable(selection) else _constant(selection)
    budget = Budget()
    seen: Set[str] = set()
    try:
        for path in paths:
            holder = os.path.dirname(os.path.normpath(path)) or os.curdir
            if force_exclude and _excluded_named(path, selection_for(holder)):
                continue
            for item, key in _expand(path, selection_for, budget):
                if key not in seen:
                    seen.add(key)
                    yield item
    finally:
        if warnings is not None:
            warnings += [w for w in budget.warnings if w not in warnings]


def _constant(selection: Selection) -> SelectionFor:
    return lambda directory: selection


# An item found and the real path that identifies it, for telling one file
# given twice (or reached through a symbolic link) from two files.
_Found = Tuple[Union[str, FileProblem], str]


def _expand(path: str, selection_for: SelectionFor, budget: Budget) -> Iterator[_Found]:
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if os.path.islink(path):
            yield FileProblem(path, 1, 1, "E902", "broken symbolic link"), os.path.realpath(path)
        else:
            message = error.strerror or "cannot access path"
            yield FileProblem(path, 1, 1, "E902", message), os.path.realpath(path)
        return
    if stat.S_ISDIR(mode):
        problems: List[FileProblem] = []
        real = os.path.realpath(path)
        ignores = Ignores.above(real, budget) if selection_for(path).respect_gitignore else None
        yield from _walk(path, real, selection_for, ignores, problems, top=True)
        yield from ((problem, os.path.realpath(problem.path)) for problem in problems)
    elif stat.S_ISREG(mode):
        yield path, os.path.realpath(path)
    else:
        yield FileProblem(path, 1, 1, "E902", NOT_REGULAR), os.path.realpath(path)


def _walk(
    directory: str,
    real_directory: str,
    selection_for: SelectionFor,
    ignores: Optional[Ignores],
    problems: List[FileProblem],
    top: bool = False,
) -> Iterator[_Found]:
    """A directory's Python files in name order, then its subdirectories'.

    ``os.scandir`` tells files, directories and links apart without a system
    call per entry, and a directory that is not a link has the real path of
    its parent plus its name: a tree of ten thousand directories costs one
    listing each, not a ``stat`` and a ``realpath`` per entry.  ``ignores``
    are the ``.gitignore`` rules of the directories above (None: not read).
    """
    try:
        with os.scandir(directory) as listing:
            entries = sorted(listing, key=_name)
    except OSError as error:
        problems.append(FileProblem(directory, 1, 1, "E902", error.strerror or "cannot read directory"))
        return
    names = [entry.name for entry in entries]
    selection = selection_for(directory)
    if not top and selection.default_skips and "pyvenv.cfg" in names:
        return  # a virtual environment
    if ignores is not None:
        ignores = ignores.entering(real_directory, names)
    # Without rules in force (outside a repository, or none that apply),
    # no entry's real path is spelled: most directories of a large tree.
    ignoring = ignores if ignores is not None and ignores.rules and selection.respect_gitignore else None
    subdirectories: List[os.DirEntry[str]] = []
    for entry in entries:
        if _is_directory(entry):
            if not _skipped_directory(entry, selection) and not (
                ignoring is not None and ignoring.ignored(os.path.join(real_directory, entry.name), True)
            ):
                subdirectories.append(entry)
        elif (
            entry.name.endswith(".py")
            and not _excluded(entry.path, selection)
            and not (ignoring is not None and ignoring.ignored(os.path.join(real_directory, entry.name), False))
        ):
            yield from _file(entry, real_directory, selection_for)
    for entry in subdirectories:
        yield from _walk(
            entry.path, os.path.join(real_directory, entry.name), selection_for, ignores, problems
        )


_name = attrgetter("name")


def _is_directory(entry: os.DirEntry[str]) -> bool:
    """A directory, or a link to one (which the walk never follows)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _file(entry: os.DirEntry[str], real_directory: str, selection_for: SelectionFor) -> Iterator[_Found]:
    try:
        link = entry.is_symlink()
        regular = entry.is_file(follow_symlinks=False)
    except OSError:
        link, regular = True, False
    if regular:
        yield entry.path, os.path.join(real_directory, entry.name)
    elif link:
        yield from _expand(entry.path, selection_for, Budget())  # a file: no walk, no budget spent
    else:
        yield FileProblem(entry.path, 1, 1, "E902", NOT_REGULAR), os.path.join(
            real_directory, entry.name
        )


def _skipped_directory(entry: os.DirEntry[str], selection: Selection) -> bool:
    if entry.is_symlink():
        return True
    if selection.default_skips and _skipped_by_default(entry):
        return True
    return _excluded(entry.path, selection)


def _skipped_by_default(entry: os.DirEntry[str]) -> bool:
    if entry.name.endswith(".egg-info"):
        return True
    if entry.name in PACKAGE_NAMES_SKIPPED_AS_OUTPUT:
        return not os.path.isfile(os.path.join(entry.path, "__init__.py"))
    return entry.name in SKIPPED_DIRECTORIES


def _excluded(path: str, selection: Selection) -> bool:
    """A file or directory met in a walk: a glob without ``/`` matches its
    name, one with ``/`` its path below the glob's directory."""
    return bool(selection.exclude) and any(pattern.matches_entry(path) for pattern in selection.exclude)


def _excluded_named(path: str, selection: Selection) -> bool:
    """A path named explicitly, with ``--force-exclude``: it or a directory
    holding it (below each glob's directory) is excluded."""
    return any(pattern.matches(path) for pattern in selection.exclude)
