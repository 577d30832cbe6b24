"""The non-keyable SDK entries of the catalogue: provenance, precision, and a
positive fixture for each.

Every entry of the e-mail, messaging and ticket families names its PyPI
distribution and the version and file its signature was read from, matches
only names under a module (never a bare method name on anything), and is
exercised by at least one ``# expect: IDM013`` line of an IDM013 fixture:
linted with that entry alone as the catalogue's non-keyable effects, the
fixture still reports IDM013.
"""

from __future__ import annotations

import pathlib
from typing import List

import pytest

from idemlint import catalog, lint_source
from idemlint.settings import Settings

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
FAMILY_FIXTURES = {
    "e-mail": "IDM013_email_sdks.py",
    "SMS, push and chat": "IDM013_messaging_sdks.py",
    "tickets and code hosts": "IDM013_ticket_sdks.py",
}
SDK_ENTRIES = [
    effect
    for effect in catalog.NON_KEYABLE_EFFECTS
    if effect.family in FAMILY_FIXTURES and effect.library
]


def test_every_family_has_sdk_entries() -> None:
    assert {effect.family for effect in SDK_ENTRIES} == set(FAMILY_FIXTURES)


@pytest.mark.parametrize("effect", SDK_ENTRIES, ids=[e.pattern for e in SDK_ENTRIES])
def test_entry_says_where_its_signature_was_read(effect: catalog.NonKeyableEffect) -> None:
    version, _, source = effect.read.partition(": ")
    assert version[:1].isdigit() and source, effect.read


@pytest.mark.parametrize("effect", SDK_ENTRIES, ids=[e.pattern for e in SDK_ENTRIES])
def test_entry_names_a_module(effect: catalog.NonKeyableEffect) -> None:
    module = effect.pattern.split(".", 1)[0]
    assert module and "*" not in module and "(" not in module, effect.pattern
    glob = catalog.compile_glob(effect.pattern)
    for lookalike in ("send", "client.send", "Client().messages.create", "channel.send"):
        assert not glob.matches(lookalike)


def _fixtures_for(effect: catalog.NonKeyableEffect) -> List[pathlib.Path]:
    own = FIXTURES / FAMILY_FIXTURES[effect.family]
    return [own, *sorted(p for p in FIXTURES.glob("IDM013_*.py") if p != own)]


@pytest.mark.sweep
@pytest.mark.parametrize("effect", SDK_ENTRIES, ids=[e.pattern for e in SDK_ENTRIES])
def test_entry_has_a_positive_fixture(effect: catalog.NonKeyableEffect) -> None:
    alone = Settings(non_keyable_effects=(effect,))
    for path in _fixtures_for(effect):
        findings = lint_source(path.read_bytes(), str(path), alone).findings
        if any(finding.code == "IDM013" for finding in findings):
            return
    pytest.fail(f"no IDM013 fixture line exercises {effect.pattern}")
