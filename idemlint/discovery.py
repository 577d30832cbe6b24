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
from dataclasses import dataclass
from typing import Iterable, Iterator, Set, Tuple, Union

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
        for item in _expand(path, selection):
            key = os.path.realpath(item.path if isinstance(item, FileProblem) else item)
            if key not in seen:
                seen.add(key)
                yield item


def _expand(path: str, selection: Selection) -> Iterator[Union[str, FileProblem]]:
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if os.path.islink(path):
            yield FileProblem(path, 1, 1, "E902", "broken symbolic link")
        else:
            yield FileProblem(path, 1, 1, "E902", error.strerror or "cannot access path")
        return
    if stat.S_ISDIR(mode):
        yield from _walk(path, selection)
    elif stat.S_ISREG(mode):
        yield path
    else:
        yield FileProblem(path, 1, 1, "E902", "not a regular file")


def _walk(root: str, selection: Selection) -> Iterator[Union[str, FileProblem]]:
    problems = []

    def on_error(error: OSError) -> None:
        problems.append(
            FileProblem(error.filename or root, 1, 1, "E902", error.strerror or "cannot read directory")
        )

    for directory, subdirectories, files in os.walk(root, onerror=on_error):
        subdirectories[:] = sorted(
            d for d in subdirectories if not _skipped_directory(directory, d, selection)
        )
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(directory, name)
            if _excluded(path, selection):
                continue
            yield from _expand(path, selection)
    yield from problems


def _skipped_directory(parent: str, name: str, selection: Selection) -> bool:
    path = os.path.join(parent, name)
    if os.path.islink(path):
        return True
    if selection.default_skips and (
        name in SKIPPED_DIRECTORIES
        or name.endswith(".egg-info")
        or os.path.exists(os.path.join(path, "pyvenv.cfg"))
    ):
        return True
    return _excluded(path, selection)


def _excluded(path: str, selection: Selection) -> bool:
    """A glob without ``/`` matches a file or directory name; one with ``/``
    matches the path or any trailing part of it (``app/migrations``)."""
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
