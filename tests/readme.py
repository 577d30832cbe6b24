"""The README as the tests read it: its text and its marked snippets.

Each snippet follows a ``<!-- readme-test: NAME -->`` marker, directly above
its fenced block.
"""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def snippet(name: str) -> str:
    match = re.search(
        rf"<!-- readme-test: {re.escape(name)} -->\n```\w*\n(?P<body>.*?)\n```", README, re.S
    )
    assert match is not None, f"README has no snippet {name!r}"
    return match.group("body") + "\n"
