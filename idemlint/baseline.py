"""Adopting idemlint on existing code: record today's findings, report only new ones.

An entry names a finding by its identity (see :mod:`idemlint.report.source`):
the path relative to the baseline file's directory, the code and a hash of
the offending source, with how many times that identity occurs.  Lines
moving do not resurrect an entry; a third copy of a twice-baselined line is
new.  Which tasks reach a finding is not part of it: a task added that calls
a baselined helper does not make the helper's finding new (the place to fix
is the same; ``--diff`` is what comments on the new caller, see
:mod:`idemlint.diff`).  Version 1 baselines, whose entries also named the
first task, are read with that name ignored.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

from idemlint.atomic import write_atomic
from idemlint.findings import Finding
from idemlint.escape import json_escaped
from idemlint.reading import NOT_REGULAR, FileTooLarge, NotRegularFile, read_regular
from idemlint.report.source import Identity, identities, offending_source, relative_to

VERSION = 2
# The versions read: 1 named a task in each entry, which no longer counts.
READABLE_VERSIONS = (1, 2)
EXCERPT_LENGTH = 120
# Far above any real baseline (about 300 bytes an entry), far below what
# would exhaust memory.
MAX_BYTES = 64 << 20


class BaselineError(Exception):
    """The baseline file is missing or not one idemlint wrote; one line for the user."""


@dataclass(frozen=True)
class Filtered:
    findings: Tuple[Finding, ...]
    stale: int  # recorded occurrences that no longer match any finding


def write_baseline(path: str, findings: Sequence[Finding]) -> int:
    """Record ``findings`` in ``path``; returns how many were recorded."""
    keyed = identities(findings, relative_to(_directory(path)))
    counts = Counter(identity for identity, _ in keyed)
    excerpts = {identity: offending_source(f) for (identity, _), f in zip(keyed, findings)}
    entries = [
        {
            "path": identity[0],
            "code": identity[1],
            "source_hash": identity[2],
            "source": excerpts[identity][:EXCERPT_LENGTH],
            "count": count,
        }
        for identity, count in sorted(counts.items())
    ]
    document = {"tool": "idemlint", "version": VERSION, "entries": entries}
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False)
    # The file is reviewed and diffed as text: control characters and bidi
    # overrides from file names and excerpts are written as JSON escapes.
    write_atomic(path, json_escaped(text) + "\n")
    return len(findings)


def apply_baseline(path: str, findings: Sequence[Finding]) -> Filtered:
    """The findings ``path`` does not record, and how many recorded ones are gone."""
    allowed = _read(path)
    found: Dict[Identity, int] = Counter()
    new: List[Finding] = []
    for finding, (identity, occurrence) in zip(
        findings, identities(findings, relative_to(_directory(path)))
    ):
        found[identity] += 1
        if occurrence >= allowed.get(identity, 0):
            new.append(finding)
    stale = sum(max(0, count - found.get(identity, 0)) for identity, count in allowed.items())
    return Filtered(findings=tuple(new), stale=stale)


def _document(path: str) -> object:
    """The baseline's JSON; read bounded, since a baseline committed in the
    checked repository may be a link to ``/dev/zero`` or a FIFO."""
    try:
        data = read_regular(path, limit=MAX_BYTES)
    except FileNotFoundError:
        raise BaselineError(
            f"baseline file {path} does not exist (create it with --write-baseline)"
        ) from None
    except (IsADirectoryError, NotRegularFile):
        raise BaselineError(f"baseline file {path} is {NOT_REGULAR}") from None
    except FileTooLarge:
        raise BaselineError(f"baseline file {path} is larger than {MAX_BYTES >> 20} MiB") from None
    except OSError as error:
        raise BaselineError(f"cannot read baseline file {path}: {error.strerror or error}") from None
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise BaselineError(f"baseline file {path} is not valid JSON: {error}") from None
    except RecursionError:
        raise BaselineError(f"baseline file {path} is not valid JSON: nested too deeply") from None


def _directory(path: str) -> str:
    return os.path.dirname(os.path.abspath(path))


def _read(path: str) -> Dict[Identity, int]:
    document = _document(path)
    version = document.get("version") if isinstance(document, dict) else None
    if not isinstance(document, dict) or type(version) is not int or version not in READABLE_VERSIONS:
        raise BaselineError(f"baseline file {path} is not an idemlint baseline (version {VERSION})")
    entries = document.get("entries")
    if not isinstance(entries, list):
        raise BaselineError(f"baseline file {path} has no list of entries")
    allowed: Dict[Identity, int] = {}
    for entry in entries:
        try:
            identity = (entry["path"], entry["code"], entry["source_hash"])
            count = entry["count"]
        except (KeyError, TypeError):
            raise BaselineError(f"baseline file {path} has a malformed entry: {entry!r}") from None
        if not all(isinstance(part, str) for part in identity) or not isinstance(count, int):
            raise BaselineError(f"baseline file {path} has a malformed entry: {entry!r}")
        allowed[identity] = allowed.get(identity, 0) + count
    return allowed
