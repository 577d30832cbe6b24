"""Lines, positions and URIs between idemlint and the Language Server Protocol.

idemlint counts lines as Python does (a line ends at ``\\n``, ``\\r\\n`` or
a lone ``\\r``; not at a form feed or ``\\u2028``, where ``str.splitlines``
would split) from 1, and columns in characters (code points) from 1, the
end of a range exclusive.  LSP ends lines at the same three, counts them
from 0, and counts columns in the units of the position encoding the client
and server agreed on: UTF-16 code units unless the client offers another
(UTF-8 bytes, UTF-32 code points).  Every conversion clamps to the text:
a position past the end of a line or of the text is its end.
"""

from __future__ import annotations

import io
import os
import urllib.parse
from typing import List, Optional, Sequence, Tuple

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"


def lines_of(text: str) -> List[str]:
    """The lines of ``text`` with their ends, as Python (and LSP) count them."""
    return io.StringIO(text, newline="").readlines()


def _content(line: str) -> str:
    """A line without its end."""
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith(("\n", "\r")) else line


def units(text: str, encoding: str) -> int:
    """How long ``text`` is in the units of ``encoding``."""
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == UTF32:
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def to_lsp(lines: Sequence[str], line: int, column: int, encoding: str) -> Tuple[int, int]:
    """LSP's (line, character) of idemlint's 1-based ``line`` and character ``column``."""
    if not lines or line < 1:
        return 0, 0
    if line > len(lines):
        last = lines[-1]
        if _content(last) != last:  # the text ends with a line end: its end is the next line's start
            return len(lines), 0
        return len(lines) - 1, units(last, encoding)
    content = _content(lines[line - 1])
    return line - 1, units(content[: max(column - 1, 0)], encoding)


def from_lsp(lines: Sequence[str], line: int, character: int, encoding: str) -> Tuple[int, int]:
    """idemlint's 1-based (line, character column) of LSP's ``line`` and ``character``."""
    if line < 0 or not lines:
        return 1, 1
    if line >= len(lines):
        return len(lines) + 1, 1
    content = _content(lines[line])
    counted = 0
    for index, char in enumerate(content):
        if counted >= character:
            return line + 1, index + 1
        counted += units(char, encoding)
    return line + 1, len(content) + 1


def line_end(lines: Sequence[str], line: int) -> int:
    """The character column (1-based) just past the content of ``line``."""
    if not 1 <= line <= len(lines):
        return 1
    return len(_content(lines[line - 1])) + 1


def path_of(uri: str) -> Optional[str]:
    """The local file a ``file:`` URI names (None for any other URI):
    percent-escapes decoded to the exact bytes of the name."""
    try:
        parts = urllib.parse.urlsplit(uri)
    except ValueError:
        return None
    if parts.scheme.lower() != "file" or parts.netloc not in ("", "localhost"):
        return None
    path = urllib.parse.unquote(parts.path, errors="surrogateescape")
    if not path.startswith("/") or "\0" in path:
        return None
    return os.path.normpath(path)


def uri_of(path: str) -> str:
    """The ``file:`` URI of a local path (any bytes of the name kept)."""
    absolute = os.path.abspath(path)
    return "file://" + urllib.parse.quote(os.fsencode(absolute), safe="/")
