"""CHANGELOG.md keeps the Keep a Changelog shape, and describes the version built."""

from __future__ import annotations

import re

from readme import ROOT

import idemlint

VERSION_HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?$", re.M)


def test_unreleased_comes_first_then_the_package_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = [(m["version"], m["date"]) for m in VERSION_HEADING.finditer(text)]
    assert headings[0] == ("Unreleased", None)
    version, date = headings[1]
    assert version == idemlint.__version__ and date is not None, "CHANGELOG.md does not describe this version"
    # Every other level-2 heading is a version.
    assert len(re.findall(r"^## ", text, re.M)) == len(headings)
