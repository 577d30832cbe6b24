"""The findings cache: a task file analysed before is not parsed again.

One entry per task file, named by a hash of everything its findings depend
on that is known before analysing it: idemlint's version, the Python version
(it decides what parses), the effective settings, the file's path and its
content.  The analysis also depends on the project modules a task reached;
the entry lists every module name the analysis looked up, the file it
resolved to and that file's content hash, and is used only while each name
still resolves to the same content.  An entry keeps the last few variants
(one per state of those modules), so switching branches back and forth, or
editing a helper and undoing the edit, finds its results again.

Entries live in ``.idemlint_cache/`` (a ``.gitignore`` inside keeps them out
of version control, like ruff's cache), each written atomically, so two runs
at once at worst both write the same entry.  The directory is kept under
:data:`MAX_BYTES` by deleting the entries the run did not use, oldest first.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple

from idemlint import __version__
from idemlint.atomic import write_atomic
from idemlint.findings import FileProblem, Finding
from idemlint.settings import Settings

DIRECTORY_NAME = ".idemlint_cache"
MAX_BYTES = 64 * 1024 * 1024
MAX_VARIANTS = 4
FORMAT = 2

# A module name looked up, the file it resolved to, and that file's content
# hash (both None: no module of that name).
Dependency = Tuple[str, Optional[str], Optional[str]]


@dataclass(frozen=True)
class Entry:
    """What analysing one task file produced, and what else it read."""

    findings: Tuple[Finding, ...]
    problems: Tuple[FileProblem, ...]
    suppressed: Tuple[Finding, ...]  # hidden by ``# noqa``, for --show-unused-noqa
    dependencies: Tuple[Dependency, ...]


def content_hash(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


class Cache:
    """A cache directory for one run's settings."""

    def __init__(self, directory: str, settings: Settings) -> None:
        self.directory = directory
        self.error: Optional[str] = None  # why the cache could not be written
        self._entries = os.path.join(directory, "entries")
        self._salt = repr((FORMAT, __version__, sys.version_info[:2], _fingerprint(settings)))
        self._used: Set[str] = set()
        self._variants: Dict[str, List[Entry]] = {}
        self._written = False

    def key(self, path: str, digest: str) -> str:
        text = "\0".join((self._salt, path, digest))
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()

    def get(self, key: str) -> List[Entry]:
        """The variants stored under ``key``, most recent first."""
        self._used.add(key)
        try:
            with open(self._path(key), "rb") as handle:
                variants = [_entry(variant) for variant in json.loads(handle.read())["variants"]]
        except (OSError, ValueError, KeyError, TypeError):
            variants = []  # absent, or a file this version cannot read: a miss
        self._variants[key] = variants
        return variants

    def put(self, key: str, entry: Entry) -> None:
        """Store ``entry`` as the newest variant of ``key``."""
        older = [v for v in self._variants.get(key, []) if v.dependencies != entry.dependencies]
        self._write(key, [entry, *older][:MAX_VARIANTS])

    def promote(self, key: str, entry: Entry) -> None:
        """Make a variant that was just used the newest, so that a run of edits
        elsewhere (each a new variant) does not push out the state the files
        keep returning to.  Nothing is written when it is the newest already."""
        variants = self._variants.get(key, [])
        if variants and variants[0] is not entry and any(v is entry for v in variants):
            self._write(key, [entry, *(v for v in variants if v is not entry)])

    def _write(self, key: str, variants: List[Entry]) -> None:
        if self.error is not None:
            return
        self._used.add(key)
        self._variants[key] = variants
        try:
            if not self._written:
                self._prepare()
            text = json.dumps({"variants": [_as_json(v) for v in variants]}, separators=(",", ":"))
            write_atomic(self._path(key), text)
            self._written = True
        except OSError as error:
            self.error = f"cannot write {self.directory}: {error.strerror or error}"

    def prune(self, limit: int = MAX_BYTES) -> None:
        """Delete entries this run did not use, oldest first, until under ``limit``."""
        if not self._written:
            return
        try:
            files = [entry for entry in os.scandir(self._entries) if entry.is_file()]
            sizes = {entry.path: entry.stat() for entry in files}
        except OSError:
            return
        total = sum(stat.st_size for stat in sizes.values())
        # Another run's temporary file is being written: leave it unless it
        # is an hour old (that run was killed before its rename).
        abandoned = time.time() - 3600
        unused = [
            e for e in files
            if (e.name.endswith(".json") and e.name[: -len(".json")] not in self._used)
            or (e.name.endswith(".tmp") and sizes[e.path].st_mtime < abandoned)
        ]
        for entry in sorted(unused, key=lambda e: sizes[e.path].st_mtime):
            if total <= limit:
                break
            try:
                os.unlink(entry.path)
                total -= sizes[entry.path].st_size
            except OSError:
                pass  # another run removed it first

    def _path(self, key: str) -> str:
        return os.path.join(self._entries, key + ".json")

    def _prepare(self) -> None:
        os.makedirs(self._entries, exist_ok=True)
        for name, content in (
            (".gitignore", "# Automatically created by idemlint.\n*\n"),
            ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
             "# This file is a cache directory tag created by idemlint.\n"),
        ):
            target = os.path.join(self.directory, name)
            if not os.path.exists(target):
                write_atomic(target, content)


def _fingerprint(settings: Settings) -> Tuple[object, ...]:
    """The settings as a value whose repr does not depend on set order."""
    return tuple(
        (field.name, sorted(value) if isinstance(value, frozenset) else value)
        for field in dataclasses.fields(settings)
        for value in (getattr(settings, field.name),)
    )


def _as_json(entry: Entry) -> Dict[str, object]:
    return {
        "findings": [dataclasses.astuple(finding) for finding in entry.findings],
        "problems": [dataclasses.astuple(problem) for problem in entry.problems],
        "suppressed": [dataclasses.astuple(finding) for finding in entry.suppressed],
        "dependencies": [list(dependency) for dependency in entry.dependencies],
    }


def _entry(data: Dict[str, List[List[object]]]) -> Entry:
    return Entry(
        findings=tuple(Finding(*fields) for fields in data["findings"]),  # type: ignore[arg-type]
        problems=tuple(FileProblem(*fields) for fields in data["problems"]),  # type: ignore[arg-type]
        suppressed=tuple(Finding(*fields) for fields in data["suppressed"]),  # type: ignore[arg-type]
        dependencies=tuple(tuple(item) for item in data["dependencies"]),  # type: ignore[misc]
    )
