"""Every SDK entry of the catalogue is backed by what was read and by a fixture.

An entry that names its library says which version and file its signature
was read from, and some fixture line depends on it: linted with that entry
alone as the catalogue, the fixture reports something it does not report
with no entry at all (IDM002 or IDM001 for a keyable API, IDM013 for a
message, IDM010 where the call's key is required and the mistake is
elsewhere). The safe twins beside each positive are checked both ways by
test_fixtures.py.
"""

from __future__ import annotations

import functools
import pathlib
import re
from typing import FrozenSet, List, Tuple, Union

import pytest

from idemlint import catalog, lint_source
from idemlint.settings import Settings

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
FILES = sorted(
    path
    for pattern in ("catalogue_*.py", "IDM002_*.py", "IDM013_*.py", "IDM001_*.py", "IDM010_*.py")
    for path in FIXTURES.glob(pattern)
)
Entry = Union[catalog.KeyableEffect, catalog.NonKeyableEffect]
ENTRIES: List[Entry] = [
    entry for entry in (*catalog.KEYABLE_EFFECTS, *catalog.NON_KEYABLE_EFFECTS) if entry.library
]
NOTHING = Settings(keyable_effects=(), non_keyable_effects=())
# A release (``2.35.0``, ``5.x``) and a file of it (``client.py``, ``README.rst``).
VERSION = re.compile(r"\b\d+\.(\d+|x)\b")
FILE = re.compile(r"[\w/]+\.(py|c|json|rst|md)\b")


def _alone(entry: Entry) -> Settings:
    if isinstance(entry, catalog.KeyableEffect):
        return Settings(keyable_effects=(entry,), non_keyable_effects=())
    return Settings(keyable_effects=(), non_keyable_effects=(entry,))


@functools.lru_cache(maxsize=None)
def _findings(path: pathlib.Path, settings: Settings) -> FrozenSet[Tuple[int, str]]:
    result = lint_source(path.read_bytes(), str(path), settings)
    return frozenset((finding.line, finding.code) for finding in result.findings)


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry.pattern for entry in ENTRIES])
def test_entry_says_which_version_and_file_it_was_read_from(entry: Entry) -> None:
    assert entry.family, entry.pattern
    assert VERSION.search(entry.read) and FILE.search(entry.read), entry.read


@pytest.mark.sweep  # every entry, each fixture analysed without it: some 8 s
@pytest.mark.parametrize("entry", ENTRIES, ids=[entry.pattern for entry in ENTRIES])
def test_some_fixture_line_depends_on_the_entry(entry: Entry) -> None:
    module = entry.pattern.split(".", 1)[0].strip("{}").split(",")[0]
    # The files that name the entry's module first: most entries end there.
    ordered = sorted(FILES, key=lambda path: module not in path.read_text("utf-8"))
    for path in ordered:
        if _findings(path, _alone(entry)) - _findings(path, NOTHING):
            return
    pytest.fail(f"no fixture line depends on {entry.pattern}")
