"""Dotted module names of files, from their ``__init__.py`` parents.

Kept apart from :mod:`idemlint.project` (which parses) so that a run served
from the cache can check what a name resolves to without importing libcst.
"""

from __future__ import annotations

import os
from typing import Dict, Iterable, Optional, Tuple


_Memo = Dict[str, Tuple[str, ...]]


def module_name(path: str, memo: Optional[_Memo] = None) -> Tuple[str, str]:
    """(dotted module name, package) of a file, from its ``__init__.py`` parents.

    ``memo`` shares the directory lookups between the files of one run.
    """
    directory, filename = os.path.split(os.path.abspath(path))
    stem = filename[:-3] if filename.endswith(".py") else filename
    packages = _packages(directory, {} if memo is None else memo)
    parts = list(packages) if stem == "__init__" else [*packages, stem]
    name = ".".join(parts)
    package = name if stem == "__init__" else name.rpartition(".")[0]
    return name, package


def _packages(directory: str, memo: _Memo) -> Tuple[str, ...]:
    """The package names from the outermost ``__init__.py`` parent down to ``directory``."""
    if directory not in memo:
        parent, package = os.path.split(directory)
        if parent == directory or not os.path.isfile(os.path.join(directory, "__init__.py")):
            memo[directory] = ()
        else:
            memo[directory] = (*_packages(parent, memo), package)
    return memo[directory]


def module_files(paths: Iterable[str]) -> Dict[str, str]:
    """Each dotted module name to its file; the first file given wins a name."""
    files: Dict[str, str] = {}
    memo: _Memo = {}
    for path in paths:
        name, _ = module_name(path, memo)
        if name:
            files.setdefault(name, path)
    return files
