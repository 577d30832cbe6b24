"""Which files a run looks at: explicit files always, directories recursively.

Directory walks skip version control, virtual environments, caches and build
output, like ruff's defaults; a ``build`` or ``dist`` directory that is itself
a package (it holds an ``__init__.py``) is source code, not build output.  Symlinked directories are not followed (no
loops); anything that is not a regular file is reported, never opened (a FIFO
would block the run; what is swapped in after the walk, reading refuses).
"""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass
from typing import Iterable, Iterator, List, Set, Tuple, Union

from idemlint.findings import FileProblem
from idemlint.reading import NOT_REGULAR

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
    """What a walk skips.

    ``exclude`` holds globs matched against file and directory names and
    paths.  ``default_skips`` keeps the built-in list above (a configured
    ``exclude`` replaces it, like ruff's).  Files named explicitly are checked
    even when excluded, unless ``force_exclude`` (for pre-commit, which names
    every staged file).
    """

    exclude: Tuple[str, ...] = ()
    default_skips: bool = True
    force_exclude: bool = False


def discover(
    paths: Iterable[str], selection: Selection = Selection()
) -> Iterator[Union[str, FileProblem]]:
    """Python files under ``paths``, each once, or one problem per bad path
    (however many times, and however spelled, it is given)."""
    seen: Set[str] = set()
    for path in paths:
        if selection.force_exclude and _excluded(path, selection):
            continue
        for item, key in _expand(path, selection):
            if key not in seen:
                seen.add(key)
                yield item


# An item found and the real path that identifies it, for telling one file
# given twice (or reached through a symbolic link) from two files.
_Found = Tuple[Union[str, FileProblem], str]


def _expand(path: str, selection: Selection) -> Iterator[_Found]:
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
        yield from _walk(path, os.path.realpath(path), selection, problems, top=True)
        yield from ((problem, os.path.realpath(problem.path)) for problem in problems)
    elif stat.S_ISREG(mode):
        yield path, os.path.realpath(path)
    else:
        yield FileProblem(path, 1, 1, "E902", NOT_REGULAR), os.path.realpath(path)


def _walk(
    directory: str,
    real_directory: str,
    selection: Selection,
    problems: List[FileProblem],
    top: bool = False,
) -> Iterator[_Found]:
    """A directory's Python files in name order, then its subdirectories'.

    ``os.scandir`` tells files, directories and links apart without a system
    call per entry, and a directory that is not a link has the real path of
    its parent plus its name: a tree of ten thousand directories costs one
    listing each, not a ``stat`` and a ``realpath`` per entry.
    """
    try:
        with os.scandir(directory) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError as error:
        problems.append(FileProblem(directory, 1, 1, "E902", error.strerror or "cannot read directory"))
        return
    if not top and selection.default_skips and any(e.name == "pyvenv.cfg" for e in entries):
        return  # a virtual environment
    subdirectories: List[os.DirEntry[str]] = []
    for entry in entries:
        if _is_directory(entry):
            if not _skipped_directory(entry, selection):
                subdirectories.append(entry)
        elif entry.name.endswith(".py") and not _excluded(entry.path, selection):
            yield from _file(entry, real_directory, selection)
    for entry in subdirectories:
        yield from _walk(entry.path, os.path.join(real_directory, entry.name), selection, problems)


def _is_directory(entry: os.DirEntry[str]) -> bool:
    """A directory, or a link to one (which the walk never follows)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _file(entry: os.DirEntry[str], real_directory: str, selection: Selection) -> Iterator[_Found]:
    try:
        link = entry.is_symlink()
        regular = entry.is_file(follow_symlinks=False)
    except OSError:
        link, regular = True, False
    if regular:
        yield entry.path, os.path.join(real_directory, entry.name)
    elif link:
        yield from _expand(entry.path, selection)
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
    """A glob without ``/`` matches a file or directory name; one with ``/``
    matches the path or any trailing part of it (``app/migrations``)."""
    if not selection.exclude:
        return False
    parts = os.path.normpath(path).split(os.sep)
    for pattern in selection.exclude:
        pattern = pattern.strip("/")
        if "/" not in pattern:
            if fnmatch.fnmatch(parts[-1], pattern):
                return True
            continue
        if any(fnmatch.fnmatch("/".join(parts[i:]), pattern) for i in range(len(parts))):
            return True
    return False
