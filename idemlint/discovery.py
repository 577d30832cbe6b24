"""Which files a run looks at: explicit files always, directories recursively.

Directory walks skip version control, virtual environments, caches and build
output, like ruff's defaults.  Symlinked directories are not followed (no
loops); anything that is not a regular file is reported, never opened (a FIFO
would block the run).
"""

from __future__ import annotations

import fnmatch
import os
import stat
from typing import Iterable, Iterator, Sequence, Set, Union

from idemlint.findings import FileProblem

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
        "build",
        "dist",
        "node_modules",
        "site-packages",
        "__pypackages__",
    }
)


def discover(
    paths: Iterable[str], exclude: Sequence[str] = ()
) -> Iterator[Union[str, FileProblem]]:
    """Python files under ``paths``, each once, or a problem per bad path."""
    seen: Set[str] = set()
    for path in paths:
        for item in _expand(path, exclude):
            if isinstance(item, FileProblem):
                yield item
                continue
            key = os.path.realpath(item)
            if key not in seen:
                seen.add(key)
                yield item


def _expand(path: str, exclude: Sequence[str]) -> Iterator[Union[str, FileProblem]]:
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if os.path.islink(path):
            yield FileProblem(path, 1, 1, "E902", "broken symbolic link")
        else:
            yield FileProblem(path, 1, 1, "E902", error.strerror or "cannot access path")
        return
    if stat.S_ISDIR(mode):
        yield from _walk(path, exclude)
    elif stat.S_ISREG(mode):
        yield path
    else:
        yield FileProblem(path, 1, 1, "E902", "not a regular file")


def _walk(root: str, exclude: Sequence[str]) -> Iterator[Union[str, FileProblem]]:
    problems = []

    def on_error(error: OSError) -> None:
        problems.append(
            FileProblem(error.filename or root, 1, 1, "E902", error.strerror or "cannot read directory")
        )

    for directory, subdirectories, files in os.walk(root, onerror=on_error):
        subdirectories[:] = sorted(
            d
            for d in subdirectories
            if not _skipped_directory(directory, d, exclude)
        )
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(directory, name)
            if _excluded(path, exclude):
                continue
            yield from _expand(path, exclude)
    yield from problems


def _skipped_directory(parent: str, name: str, exclude: Sequence[str]) -> bool:
    if name in SKIPPED_DIRECTORIES or name.endswith(".egg-info"):
        return True
    path = os.path.join(parent, name)
    if os.path.islink(path):
        return True
    if os.path.exists(os.path.join(path, "pyvenv.cfg")):
        return True
    return _excluded(path, exclude)


def _excluded(path: str, exclude: Sequence[str]) -> bool:
    name = os.path.basename(path)
    normalised = os.path.normpath(path)
    return any(
        fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(normalised, pattern)
        for pattern in exclude
    )
