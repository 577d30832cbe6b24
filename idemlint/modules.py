"""Dotted module names of files, from the packages that hold them.

A directory with an ``__init__.py`` is a regular package.  A directory
without one inside a package is a namespace package portion (PEP 420):
``import shop.background.tasks`` works when ``shop/__init__.py`` exists and
``background/`` has none, so a file there is named ``shop.background.tasks``.
A directory without ``__init__.py`` and no package above it starts no name:
where it is imported from (``sys.path``) is not known.

A file under a namespace portion is also known by its short name, from its
``__init__.py`` chain alone (``tasks`` above), as it was before namespace
portions were named, so that an import that found it so still does.

Kept apart from :mod:`idemlint.project` (which parses) so that a run served
from the cache can check what a name resolves to without importing libcst.
"""

from __future__ import annotations

import os
from typing import Dict, Iterable, Optional, Tuple

# A directory -> (its packages counting namespace portions, its packages
# from ``__init__.py`` files alone), each from the outermost down.
_Memo = Dict[str, Tuple[Tuple[str, ...], Tuple[str, ...]]]


def module_name(path: str, memo: Optional[_Memo] = None) -> Tuple[str, str]:
    """(dotted module name, package) of a file, namespace portions included.

    ``memo`` shares the directory lookups between the files of one run.
    """
    return _named(path, True, {} if memo is None else memo)


def _named(
    path: str, namespaces: bool, memo: _Memo, absolute: Optional[Dict[str, str]] = None
) -> Tuple[str, str]:
    """(name, package), counting namespace portions or from ``__init__.py``
    files alone; ``absolute`` shares each directory's absolute path."""
    head, filename = os.path.split(path)
    if absolute is None:
        directory = os.path.abspath(head)
    elif head in absolute:
        directory = absolute[head]
    else:
        directory = absolute[head] = os.path.abspath(head)
    stem = filename[:-3] if filename.endswith(".py") else filename
    packages = _packages(directory, memo)[0 if namespaces else 1]
    parts = list(packages) if stem == "__init__" else [*packages, stem]
    name = ".".join(parts)
    package = name if stem == "__init__" else name.rpartition(".")[0]
    return name, package


def _packages(directory: str, memo: _Memo) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """The packages from the outermost one down to ``directory``, counting
    namespace portions and not."""
    if directory not in memo:
        parent, package = os.path.split(directory)
        if parent == directory:
            memo[directory] = ((), ())
        else:
            full, regular = _packages(parent, memo)
            if os.path.isfile(os.path.join(directory, "__init__.py")):
                memo[directory] = ((*full, package), (*regular, package))
            else:
                memo[directory] = ((*full, package) if full else (), ())
    return memo[directory]


def module_files(paths: Iterable[str]) -> Dict[str, str]:
    """Each dotted module name to its file; the first file given wins a
    name, and a file's full name wins over another's short name."""
    files: Dict[str, str] = {}
    short: Dict[str, str] = {}
    memo: _Memo = {}
    absolute: Dict[str, str] = {}  # thousands of files, a few hundred directories
    for path in paths:
        name, _ = _named(path, True, memo, absolute)
        if name:
            files.setdefault(name, path)
        alias, _ = _named(path, False, memo, absolute)
        if alias and alias != name:
            short.setdefault(alias, path)
    for alias, path in short.items():
        files.setdefault(alias, path)
    return files
