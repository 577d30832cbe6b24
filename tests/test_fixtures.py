"""Every fixture's findings equal its ``# expect:`` comments, both ways.

A fixture line ending in ``# expect: IDM002`` (or ``# expect: IDM001, IDM002``)
must produce exactly those codes; every other line must produce none.  An
expectation naming a code no rule has is an error, not silently dropped.
"""

from __future__ import annotations

import pathlib
import re
from typing import List, Tuple

import pytest

from idemlint import lint_source
from idemlint.rules import RULES_BY_CODE

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>IDM\d{3}(?:\s*,\s*IDM\d{3})*)")
FIXTURE_FILES = sorted(FIXTURES.rglob("*.py"))


def expected_findings(source: str) -> List[Tuple[int, str]]:
    expected = []
    for number, line in enumerate(source.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            for code in re.split(r"\s*,\s*", match.group("codes")):
                assert code in RULES_BY_CODE, f"line {number}: no rule {code}"
                expected.append((number, code))
    return sorted(expected)


def test_fixture_directory_is_populated() -> None:
    assert len(FIXTURE_FILES) >= 10


@pytest.mark.parametrize(
    "path", FIXTURE_FILES, ids=[str(p.relative_to(FIXTURES)) for p in FIXTURE_FILES]
)
def test_fixture(path: pathlib.Path) -> None:
    source = path.read_bytes()
    result = lint_source(source, str(path))
    assert result.problems == ()
    actual = sorted((f.line, f.code) for f in result.findings)
    expected = expected_findings(source.decode("utf-8"))
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    assert (missing, extra) == ([], []), f"missing={missing} extra={extra}"
    assert len(actual) == len(expected), "a line reports one code twice"


@pytest.mark.parametrize("code", sorted(RULES_BY_CODE))
def test_every_rule_has_enough_positive_fixtures(code: str) -> None:
    files = [p for p in FIXTURE_FILES if p.name.startswith(code)]
    positives = sum(
        1 for p in files for _, c in expected_findings(p.read_text("utf-8")) if c == code
    )
    assert files, f"no fixture for {code}"
    assert positives >= 8, f"{code} has only {positives} positive cases"
