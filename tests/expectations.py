"""The ``# expect: IDMnnn`` marks of a fixture project, and the findings a
text report gives, both as sorted ``(path, line, code)`` triples."""

from __future__ import annotations

import pathlib
import re
import shutil
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


def assert_independent_of_order_and_jobs(project: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """A copy of a fixture project gives the same result whichever order
    its files are named in, and with one worker or two."""
    from idemlint import lint_paths

    root = tmp_path / project.name
    shutil.copytree(project, root)
    files = sorted(str(path) for path in root.rglob("*.py"))
    first = lint_paths(files, jobs=1)
    assert lint_paths(list(reversed(files)), jobs=1) == first
    assert lint_paths(files, jobs=2) == first
