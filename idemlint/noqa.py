"""``# noqa`` suppression for the standalone CLI, exactly as flake8 reads it.

flake8 searches for the comment not only on the reported physical line but on
the whole logical line around it (a multi-line call or string), and matches
the listed codes as prefixes.  Under flake8 this module is not used: flake8
applies its own ``noqa`` to what the plugin yields.
"""

from __future__ import annotations

import bisect
import io
import re
import tokenize
from typing import Dict, Iterable, List, Optional, Sequence, Set

# flake8.defaults.NOQA_INLINE_REGEXP and NOQA_FILE, verbatim.
NOQA_INLINE = re.compile(
    r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?",
    re.IGNORECASE,
)
NOQA_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.I)


class NoqaMap:
    """Answers "is this code suppressed on this line" for one file.

    ``starts``: lines where a top-level statement begins (nothing is open
    there, so no logical line crosses one); each run of lines between two
    is tokenized only when a line in it is asked about.
    """

    def __init__(self, lines: Sequence[str], starts: Iterable[int] = ()) -> None:
        self.lines = list(lines)
        self.disabled = any(NOQA_FILE.match(line) for line in self.lines)
        # Tokenizing a large module costs more than analysing it; without a
        # noqa comment anywhere no line needs its logical line.
        self._mentioned = any("noqa" in line.lower() for line in self.lines)
        self._starts = sorted({1, *(start for start in starts if 1 < start <= len(self.lines))})
        self._tokenized: Set[int] = set()  # the starts of the runs read so far
        self._logical: Dict[int, str] = {}

    def suppressed(self, line: int, code: str) -> bool:
        if self.disabled:
            return True
        text = self._logical_line(line)
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
        text = self._logical_line(first)
        return first == second or (text is not None and text is self._logical_line(second))

    def _logical_line(self, line: int) -> Optional[str]:
        """The text of every physical line of ``line``'s logical line (None
        where no comment can matter, or the tokenizer gave up)."""
        if not self._mentioned or not 0 < line <= len(self.lines):
            return None
        place = bisect.bisect_right(self._starts, line) - 1
        first = self._starts[place]
        if first not in self._tokenized:
            self._tokenized.add(first)
            end = self._starts[place + 1] - 1 if place + 1 < len(self._starts) else len(self.lines)
            self._logical.update(_logical_line_text(self.lines[first - 1 : end], first))
        return self._logical.get(line)


def _logical_line_text(lines: List[str], first: int = 1) -> Dict[int, str]:
    """Line number (``lines`` beginning at line ``first``) -> the text of
    every physical line of its logical line."""
    mapping: Dict[int, str] = {}
    reader = io.StringIO("".join(lines)).readline
    offset = first - 1
    start, last = len(lines) + 2, -1
    try:
        for token in tokenize.generate_tokens(reader):
            if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            start = min(start, token.start[0])
            last = max(last, token.end[0])
            if token.type in (tokenize.NL, tokenize.NEWLINE):
                joined = "".join(lines[start - 1 : last])
                for number in range(start, last + 1):
                    mapping[number + offset] = joined
                start, last = len(lines) + 2, -1
    except (tokenize.TokenError, SyntaxError):
        return {}
    return mapping
