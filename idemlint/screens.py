"""What the byte screen found in each file, remembered by content hash.

Every run reads every file and screens its bytes: whether it can hold
tasks, whether it may configure a Celery app, which names it defines at
module level (when it has task text) and which decorators it uses.  On a
large project that is most of a warm run.  The same bytes always screen the
same way under the same settings, so a run with a cache keeps each file's
:class:`Screened` under the hash of its content (in one signed cache entry,
see :meth:`idemlint.cache.Cache.screens`) and the next run screens only the
files whose bytes changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, Mapping, Optional, Tuple

# The most files remembered: this run's first, then the others, in order.
MAX_SCREENED = 200_000
# A module-level name as the screen's patterns find it: ASCII word characters.
_NAME = re.compile(r"[A-Za-z0-9_]{1,200}")
_DIGEST = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True)
class Screened:
    """The byte screen's answers for one file's content.

    ``defined``: the module-level names it defines, None when it has no task
    text; ``decorates``: the last parts of the names it decorates with,
    read only when it cannot hold tasks.
    """

    holds_tasks: bool
    configures_app: bool
    defined: Optional[FrozenSet[bytes]]
    decorates: FrozenSet[bytes]


def as_json(screened: Mapping[str, Screened]) -> Dict[str, object]:
    return {
        digest: [
            record.holds_tasks,
            record.configures_app,
            None if record.defined is None else sorted(n.decode("ascii") for n in record.defined),
            sorted(n.decode("ascii") for n in record.decorates),
        ]
        for digest, record in screened.items()
    }


def from_json(data: object) -> Dict[str, Screened]:
    """The records of :func:`as_json`; ``ValueError`` for anything else
    (the cache is read from a directory the checked repository may hold)."""
    if not isinstance(data, dict) or len(data) > MAX_SCREENED:
        raise ValueError("not a table of screened files")
    records: Dict[str, Screened] = {}
    for digest, fields in data.items():
        if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
            raise ValueError("not a content hash")
        if not isinstance(fields, list) or len(fields) != 4:
            raise ValueError("not a screened file")
        holds_tasks, configures_app, defined, decorates = fields
        if not isinstance(holds_tasks, bool) or not isinstance(configures_app, bool):
            raise ValueError("not a screened file")
        records[digest] = Screened(
            holds_tasks,
            configures_app,
            None if defined is None else _names(defined),
            _names(decorates),
        )
    return records


def _names(value: object) -> FrozenSet[bytes]:
    if not isinstance(value, list) or not all(isinstance(n, str) and _NAME.fullmatch(n) for n in value):
        raise ValueError("not a list of names")
    return frozenset(n.encode("ascii") for n in value)


def kept(seen: Mapping[str, Screened], before: Mapping[str, Screened]) -> Tuple[Dict[str, Screened], bool]:
    """What to remember after a run: the files it saw, then those it did not
    (another run checks other paths), at most :data:`MAX_SCREENED`; and
    whether that differs from ``before``."""
    merged = dict(seen)
    for digest, record in before.items():
        if len(merged) >= MAX_SCREENED:
            break
        merged.setdefault(digest, record)
    return merged, merged.keys() != before.keys()
