"""Text from the checked repository made safe to print.

File names, messages (which quote names and literals from the source) and
the source lines the review format quotes all come from the repository being
checked, which may have been written to attack whoever reads the report.
A newline in a file name would forge a finding line, an escape sequence
would reach the reader's terminal, and a bidirectional override would
reorder what the reader sees ("trojan source").

:func:`visible` is the one escaping every human-readable format applies:
such characters are written as Python writes them in a string literal
(``\\n``, ``\\x1b``, ``\\u202e``), so they are visible and inert.  The JSON
formats keep the text as it is (JSON escapes control characters itself);
a file name that is not valid UTF-8 reaches us with lone surrogates
(``surrogateescape``), which the ``json`` format writes as Python does and
the formats read by other tools replace with :func:`valid_unicode`.
JSON written without ``ensure_ascii`` (the baseline, which people read)
goes through :func:`json_escaped`, which writes the same characters as
``\\uXXXX`` escapes: the file reads back to exactly the same values.
"""

from __future__ import annotations

import re

# C0 controls except TAB (indentation in quoted source, and harmless on a
# terminal), DEL, C1 controls, the Unicode line and paragraph separators
# (str.splitlines and many editors break lines there), the bidirectional
# marks, embeddings, overrides and isolates, and lone surrogates (the bytes
# of a file name that is not UTF-8, which a UTF-8 stdout cannot encode).
_BEYOND_C0 = "\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE = re.compile(f"[\x00-\x08\x0a-\x1f{_BEYOND_C0}]")
# json.dumps escapes C0 controls inside strings; a raw newline is its indentation.
_UNSAFE_IN_JSON = re.compile(f"[{_BEYOND_C0}]")
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r"}
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: "re.Match[str]") -> str:
    character = match.group()
    short = _SHORT_ESCAPES.get(character)
    if short is not None:
        return short
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every character that could forge a line, drive a
    terminal or reorder the display written as a Python-style escape."""
    return _UNSAFE.sub(_escape, text)


# What XML 1.0 cannot hold even as a character reference, beyond what
# visible() escapes: the noncharacters U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\ufffe\uffff]")


def xml_text(text: str) -> str:
    """:func:`visible` text that is also a valid XML 1.0 string."""
    return _NOT_XML.sub(_escape, visible(text))


def valid_unicode(text: str) -> str:
    """``text`` with each lone surrogate (an undecodable file-name byte)
    replaced by U+FFFD, so that it can be written as UTF-8 or strict JSON."""
    return _SURROGATE.sub("\ufffd", text)


def json_escaped(json_text: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with every
    character :func:`visible` would escape written as a ``\\uXXXX`` escape.

    Outside strings JSON text is ASCII, so only string contents change, and
    a JSON parser reads back the same values.
    """
    return _UNSAFE_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", json_text)
