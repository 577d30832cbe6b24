"""The open buffers, analysed as the projects they belong to.

A buffer belongs to the innermost workspace folder that holds it: that
folder is analysed whole, exactly as ``idemlint check FOLDER`` run there
analyses it (the nearest ``[tool.idemlint]`` up from the folder, its
exclusions, its cache), with every open buffer's text in place of its file
on disk.  A finding goes to the buffer of its file, so an edit to a helper
in one buffer changes what the task files in the others report.  A buffer
outside every folder is checked on its own, as ``idemlint check FILE``.

Nothing here raises: a configuration that cannot be used is one ``IDM901``
problem on each buffer of its project (as the flake8 plugin reports it),
a bug in idemlint one ``IDM900``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from idemlint.cache import DIRECTORY_NAME, Cache
from idemlint.config import ConfigError, Configurations
from idemlint.engine import internal_error, lint_paths
from idemlint.findings import FileProblem, Finding
from idemlint.flake8_plugin import CONFIGURATION_ERROR

# What the server runs in: worker processes forked from a process with
# threads (the protocol's) can inherit a lock another thread held.
JOBS = 1


@dataclass(frozen=True)
class Buffer:
    """An open document: its URI as the client spells it, its local path,
    the text the client holds and the version of that text."""

    uri: str
    path: str
    text: str
    version: Optional[int] = None


@dataclass(frozen=True)
class Checked:
    """What one analysis reports on one buffer's text."""

    buffer: Buffer
    findings: Tuple[Finding, ...] = ()
    problems: Tuple[FileProblem, ...] = ()


@dataclass(frozen=True)
class Report:
    """Every buffer's result, by URI, and lines to show the user (a cache
    that could not be used, a configuration error)."""

    checked: Dict[str, Checked] = field(default_factory=dict)
    messages: Tuple[str, ...] = ()


def analyse(buffers: Sequence[Buffer], roots: Sequence[str]) -> Report:
    """Analyse the projects of ``buffers`` (``roots``: the workspace folders)."""
    overlay = {buffer.path: buffer.text for buffer in buffers}
    projects: Dict[Optional[str], List[Buffer]] = {}
    for buffer in buffers:
        projects.setdefault(root_of(buffer.path, roots), []).append(buffer)
    checked: Dict[str, Checked] = {}
    messages: List[str] = []
    for root, members in sorted(projects.items(), key=lambda item: item[0] or ""):
        if root is None:
            for buffer in members:
                _check([buffer.path], os.path.dirname(buffer.path), False, [buffer], overlay, checked, messages)
            continue
        # What a walk of the folder does not find: a buffer not saved yet, a
        # Python file not named *.py.
        named = [b.path for b in members if not b.path.endswith(".py") or not os.path.lexists(b.path)]
        _check([_spelled(root), *named], root, True, members, overlay, checked, messages)
    return Report(checked, tuple(dict.fromkeys(messages)))


def _unusable(error: ConfigError, members: List[Buffer], checked: Dict[str, Checked], messages: List[str]) -> None:
    """A configuration that cannot be used: one IDM901 problem on each buffer."""
    line = f"invalid idemlint configuration: {error}; idemlint checked nothing"
    messages.append(line)
    for buffer in members:
        checked[buffer.uri] = Checked(buffer, problems=(FileProblem(buffer.path, 1, 1, CONFIGURATION_ERROR, line),))


def root_of(path: str, roots: Sequence[str]) -> Optional[str]:
    """The innermost of ``roots`` that holds ``path``."""
    holding = [root for root in roots if path == root or path.startswith(root.rstrip(os.sep) + os.sep)]
    return max(holding, key=len, default=None)


def _spelled(root: str) -> str:
    """``root`` as the CLI run in the server's working directory would name
    it (``.``, ``src``), so that its cache entries serve both; else absolute."""
    try:
        here = os.getcwd()
    except OSError:
        return root
    if root == here:
        return "."
    if root.startswith(here.rstrip(os.sep) + os.sep):
        return os.path.relpath(root, here)
    return root


def _check(
    paths: List[str],
    start: str,
    cached: bool,
    members: List[Buffer],
    overlay: Dict[str, str],
    checked: Dict[str, Checked],
    messages: List[str],
) -> None:
    """One engine run over ``paths``, configured from ``start`` up; each
    member buffer gets what was found in its file."""
    # Each file under the nearest [tool.idemlint] above it, as the CLI reads
    # them; read afresh on every run, so an edited pyproject.toml applies.
    configurations = Configurations()
    try:
        config = configurations.config_file(start)
        settings = configurations.for_directory(start)
    except ConfigError as error:
        _unusable(error, members, checked, messages)
        return
    except Exception as error:  # a bug in reading it: reported, never raised
        _failed(members, "reading the configuration", error, checked)
        return
    cache = None
    if cached or config is not None:
        home = os.path.dirname(os.path.abspath(config)) if config else start
        cache = Cache(os.path.join(home, DIRECTORY_NAME), settings)
    try:
        result = lint_paths(paths, configurations, jobs=JOBS, cache=cache, overlay=overlay)
    except ConfigError as error:  # a configuration further down the folder
        _unusable(error, members, checked, messages)
        return
    except Exception as error:  # the engine isolates files; this is a bug outside any
        _failed(members, "the language server", error, checked)
        return
    if cache is not None and cache.warning is not None:
        messages.append(cache.warning)
    by_file: Dict[str, List[Buffer]] = {}
    for buffer in members:
        by_file.setdefault(_identity(buffer.path), []).append(buffer)
    found: Dict[str, Tuple[List[Finding], List[FileProblem]]] = {b.uri: ([], []) for b in members}
    owners: Dict[str, List[Buffer]] = {}

    def owners_of(path: str) -> List[Buffer]:
        if path not in owners:
            owners[path] = by_file.get(_identity(path), [])
        return owners[path]

    for finding in result.findings:
        for owner in owners_of(finding.path):
            found[owner.uri][0].append(finding)
    for problem in result.problems:
        for owner in owners_of(problem.path):
            found[owner.uri][1].append(problem)
    for buffer in members:
        findings, problems = found[buffer.uri]
        checked[buffer.uri] = Checked(buffer, tuple(findings), tuple(problems))


def _identity(path: str) -> str:
    return os.path.realpath(path)


def _failed(members: List[Buffer], stage: str, error: Exception, checked: Dict[str, Checked]) -> None:
    for buffer in members:
        checked[buffer.uri] = Checked(buffer, problems=(internal_error(buffer.path, stage, error),))
