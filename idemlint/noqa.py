"""``# noqa`` suppression for the standalone CLI, exactly as flake8 reads it.

flake8 searches for the comment not only on the reported physical line but on
the whole logical line around it (a multi-line call or string), and matches
the listed codes as prefixes.  Under flake8 this module is not used: flake8
applies its own ``noqa`` to what the plugin yields.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, List, Sequence

# flake8.defaults.NOQA_INLINE_REGEXP and NOQA_FILE, verbatim.
NOQA_INLINE = re.compile(
    r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?",
    re.IGNORECASE,
)
NOQA_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.I)


class NoqaMap:
    """Answers "is this code suppressed on this line" for one file."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = list(lines)
        self.disabled = any(NOQA_FILE.match(line) for line in self.lines)
        # Tokenizing a large module costs more than analysing it; without a
        # noqa comment anywhere no line needs its logical line.
        mentioned = any("noqa" in line.lower() for line in self.lines)
        self._logical = _logical_line_text(self.lines) if mentioned else {}

    def suppressed(self, line: int, code: str) -> bool:
        if self.disabled:
            return True
        text = self._logical.get(line)
        if text is None:
            text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        match = NOQA_INLINE.search(text)
        if match is None:
            return False
        codes = match.group("codes")
        if not codes:
            return True
        # Case-sensitive, like flake8: "# noqa: idm002" suppresses nothing.
        listed = [c for c in re.split(r"[,\s]+", codes) if c]
        return code in listed or code.startswith(tuple(listed))

    def same_logical_line(self, first: int, second: int) -> bool:
        """Whether a comment on line ``first`` applies to a finding on ``second``."""
        text = self._logical.get(first)
        return first == second or (text is not None and text is self._logical.get(second))


def _logical_line_text(lines: List[str]) -> Dict[int, str]:
    """Line number -> the text of every physical line of its logical line."""
    mapping: Dict[int, str] = {}
    reader = io.StringIO("".join(lines)).readline
    first, last = len(lines) + 2, -1
    try:
        for token in tokenize.generate_tokens(reader):
            if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            first = min(first, token.start[0])
            last = max(last, token.end[0])
            if token.type in (tokenize.NL, tokenize.NEWLINE):
                joined = "".join(lines[first - 1 : last])
                for number in range(first, last + 1):
                    mapping[number] = joined
                first, last = len(lines) + 2, -1
    except (tokenize.TokenError, SyntaxError):
        return {}
    return mapping
