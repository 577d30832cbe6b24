"""The ``# expect: IDMnnn`` marks of a fixture project, and the findings a
text report gives, both as sorted ``(path, line, code)`` triples."""

from __future__ import annotations

import pathlib
import re
from typing import List, Tuple

EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>IDM\d{3}(?:\s*,\s*IDM\d{3})*)")
FINDING = re.compile(r"^(?P<path>.+?):(?P<line>\d+):\d+: (?P<code>IDM\d{3}) ")


def expectations(root: pathlib.Path) -> List[Tuple[str, int, str]]:
    found = []
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            match = EXPECT.search(line)
            if match:
                found += [(str(path), number, code) for code in re.split(r"\s*,\s*", match["codes"])]
    return sorted(found)


def reported(output: str) -> List[Tuple[str, int, str]]:
    return sorted(
        (match["path"], int(match["line"]), match["code"])
        for match in map(FINDING.match, output.splitlines())
        if match
    )
