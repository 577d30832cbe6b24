"""A cheap bound on how deep a file's syntax tree can be, the same on every Python.

libcst's native parser overflows its stack on input nested too deep (the
process dies: no exception to catch), and the analysis walks trees
recursively.  CPython's parser used to screen every file first, but its
limits differ from one version to the next and it rejects syntax newer than
itself, so this scan decides instead, before anything parses the file.

It tokenizes only what shapes the tree: strings (f-strings with their
replacement fields), comments, brackets, operators, commas and logical line
ends; names and numbers are skipped by the regular expression itself.  For
each expression it bounds the depth of its tree by the links that each nest
one node in another (a binary or boolean operator, a unary one, ``.``, a call
or subscript, a conditional, ``lambda``, an implicitly concatenated string)
plus the depth of what its brackets hold.  A flat list of ten thousand items
is shallow (a comma ends each item); ``a + a + ...`` with ten thousand terms
is ten thousand deep.  Each ``elif`` is a link too (libcst nests it in the
``if`` before it), and blocks nest no deeper than CPython allows.  The bound
is an over-estimate by a few links on ordinary code, which the limit leaves
room for; the analysis then walks any tree within engine.RECURSION_LIMIT.

Scanning every token costs more than CPython's parse, so a file CPython
has parsed is scanned only where counting characters cannot rule it out
(:func:`too_deep_parsed`): a piece of whole logical lines with few enough
operator, bracket and quote characters cannot go past a limit, and a piece
with too many is split at the statements it holds, down to the pieces that
are scanned.  The answer is the scan's, only cheaper.
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Tuple, Union

# Measured on Python 3.9 and 3.13 with libcst 1.9 and an 8 MB stack: libcst's
# parser crashes from about 1250 nested brackets, 3500 chained lambdas (the
# hungriest link), 8000 elifs in one if statement; 199 brackets holding 2400
# lambdas still parse, and the analysis positions a finding in the deepest
# tree these limits allow with 12 000 frames, on 3.9 as on 3.13.  CPython's
# own limits, which every Python file in use respects, are 200 brackets and
# 100 indentation levels.
MAX_BRACKETS = 200
MAX_INDENTATION = 100
MAX_LINKS = 2000

# CPython's parser and compiler recurse once a link too, and on 3.9 and
# 3.10 some of their recursions have no limit: their C stack overflows (the
# process dies) from about 105 000 links in one chain (``1+1+...``,
# ``a.a.a...``, ``a()()...``, ``a[0][0]...``, measured).  A text shorter than
# CPYTHON_SAFE_CHARACTERS holds no such chain (measured on 3.9 to 3.13 with
# 99 990 characters of every kind of link the scan counts: an AST, or
# SyntaxError, MemoryError or RecursionError), nor does one holding fewer
# than CPYTHON_SAFE_LINKS links in all, counted as the pieces of a parsed
# file are (_more_links_than, an over-estimate); any other is scanned whole
# before CPython sees it.
CPYTHON_SAFE_CHARACTERS = 100_000
CPYTHON_SAFE_LINKS = 30_000
# CPython's memory grows with the square of the length of a module name in
# an import, whatever the length of the file: 1 GB for ``import a.a.a...``
# with 30 000 dots, 2.7 GB with 50 000 (3.9 and 3.13 alike).  A file that
# imports a name longer than the scan allows is scanned before CPython
# sees it.
_IMPORTED_NAMES = re.compile(r"(?:import|from)\b(?:[\w., \t\f]+|\\(?:\r\n|\r|\n))*")

TOO_MANY_BRACKETS = "SyntaxError: too many nested parentheses"
TOO_MANY_INDENTS = "IndentationError: too many levels of indentation"
TOO_DEEP = "file is nested too deeply to analyse"

_CODE = re.compile(
    r"""
    (?P<comment>\#[^\r\n]*)
    | (?P<continuation>\\(?:\r\n|\r|\n))
    | (?P<newline>\r\n|\r|\n)
    | (?P<string>(?:(?<!\w)(?P<prefix>[rRbBuUfFtT]{1,2}))?(?P<quote>'''|\"\"\"|'|\"))
    | (?P<open>[(\[{])
    | (?P<close>[)\]}])
    | (?P<colon>:(?!=))
    | (?P<link>==|!=|<=|>=|->|\*\*|//|<<|>>|[-+*/%@&|^~<>.]
        |\b(?:and|or|not|if|else|lambda|await|in|is)\b)
    | (?P<separator>[,;=])
    """,
    re.VERBOSE,
)

# The rest of a string that has no replacement fields, by its opening quote.
_STRING_END = {
    "'": re.compile(r"(?:[^'\\\r\n]|\\(?:\r\n|[\s\S]))*(?:'|(?=[\r\n])|\Z)"),
    '"': re.compile(r'(?:[^"\\\r\n]|\\(?:\r\n|[\s\S]))*(?:"|(?=[\r\n])|\Z)'),
    "'''": re.compile(r"(?:[^'\\]|\\[\s\S]|'(?!''))*(?:'''|\Z)"),
    '"""': re.compile(r'(?:[^"\\]|\\[\s\S]|"(?!""))*(?:"""|\Z)'),
}

# The literal text of an f-string up to a field, its end or (single-quoted) a newline.
_FSTRING_TEXT = {
    "'": re.compile(r"(?:[^'\\\r\n{}]|\\(?:\r\n|[\s\S])|\{\{|\}\})*"),
    '"': re.compile(r'(?:[^"\\\r\n{}]|\\(?:\r\n|[\s\S])|\{\{|\}\})*'),
    "'''": re.compile(r"(?:[^'\\{}]|\\[\s\S]|'(?!'')|\{\{|\}\})*"),
    '"""': re.compile(r'(?:[^"\\{}]|\\[\s\S]|"(?!"")|\{\{|\}\})*'),
}

# A logical line's indentation, and whether it continues an if statement.
_INDENTATION = re.compile(r"[ \t\f]*(?=[^ \t\f\r\n#\\])(?:(?P<elif>elif\b)|(?P<else>else\b))?")

_BRACKET, _LINE, _FSTRING, _FIELD, _SPEC = range(5)


@dataclass(frozen=True)
class TooDeep:
    """Where a file first goes past a limit (0-based offset into its text) and which."""

    offset: int
    message: str


def too_deep(text: str) -> Optional[TooDeep]:
    """The first place ``text`` goes past a nesting limit, or None.

    One loop with its state in locals: it runs over every file parsed, so
    it is written for speed (a method call per token doubles its cost).
    """
    # Each open level: [kind, links in its current item, deepest bracket in
    # that item, deepest item ended]; quotes[i] is level i's f-string quote.
    levels: List[List[int]] = [[_LINE, 0, 0, 0]]
    quotes: List[str] = [""]
    brackets = 0
    end = len(text)
    search = _CODE.search
    blocks = _Blocks()
    started = blocks.start_line(text, 0)
    if isinstance(started, TooDeep):
        return started
    position = started
    while True:
        top = levels[-1]
        kind = top[0]
        if kind == _FSTRING or kind == _SPEC:
            quote = quotes[-1]
            literal = _FSTRING_TEXT[quote].match(text, position)
            assert literal is not None  # it matches the empty string
            position = literal.end()
            if position >= end:
                break
            character = text[position]
            if character == "{":
                position += 1
                brackets += 1
                if brackets > MAX_BRACKETS:
                    return TooDeep(position - 1, TOO_MANY_BRACKETS)
                levels.append([_FIELD, 0, 0, 0])
                quotes.append(quote)
                continue
            if kind == _FSTRING and text.startswith(quote, position):
                position += len(quote)
            elif character == "}":
                position += 1
            # else a newline ends a single-quoted f-string left open, or a
            # quote ends a format spec: close what is open, code again.
        else:
            token = search(text, position)
            if token is None:
                break
            position = token.end()
            group = token.lastgroup
            if group == "link":
                top[1] += 1
                continue
            if group == "separator":
                if top[1] + top[2] > top[3]:
                    top[3] = top[1] + top[2]
                top[1] = top[2] = 0
                continue
            if group == "open":
                top[1] += 1
                brackets += 1
                if brackets > MAX_BRACKETS:
                    return TooDeep(token.start(), TOO_MANY_BRACKETS)
                levels.append([_BRACKET, 0, 0, 0])
                quotes.append("")
                continue
            if group == "newline":
                if len(levels) == 1:
                    if max(top[3], top[1] + top[2]) > MAX_LINKS:
                        return TooDeep(blocks.line_start, TOO_DEEP)
                    levels[0] = [_LINE, 0, 0, 0]
                    started = blocks.start_line(text, position)
                    if isinstance(started, TooDeep):
                        return started
                    position = started
                continue
            if group == "string":
                top[1] += 1  # "a" "b" "c" nests in libcst
                quote = token.group("quote")
                prefix = (token.group("prefix") or "").lower()
                if "f" in prefix or "t" in prefix:
                    levels.append([_FSTRING, 0, 0, 0])
                    quotes.append(quote)
                else:
                    rest = _STRING_END[quote].match(text, position)
                    assert rest is not None
                    position = rest.end()
                continue
            if group == "colon":
                if kind == _FIELD:  # a format spec: text, and fields of its own
                    levels.append([_SPEC, 0, 0, 0])
                    quotes.append(quotes[-1])
                continue
            if group != "close":
                continue  # a comment or a backslash continuation
            if len(levels) == 1:
                continue  # unbalanced: libcst reports it
        # Close the innermost level (a bracket, field, spec or f-string).
        while True:
            closed = levels.pop()
            quotes.pop()
            if closed[0] == _BRACKET or closed[0] == _FIELD:
                brackets -= 1
            parent = levels[-1]
            depth = max(closed[3], closed[1] + closed[2]) + 1
            if depth > parent[2]:
                parent[2] = depth
            if closed[0] != _SPEC:  # the spec's `}` closes its field too
                break
        if parent[1] + parent[2] > MAX_LINKS:
            return TooDeep(blocks.line_start, TOO_DEEP)
    while len(levels) > 1:  # left open at the end of the file
        closed = levels.pop()
        levels[-1][2] = max(levels[-1][2], max(closed[3], closed[1] + closed[2]) + 1)
    if max(levels[0][3], levels[0][1] + levels[0][2]) > MAX_LINKS:
        return TooDeep(blocks.line_start, TOO_DEEP)
    return None


class _Blocks:
    """The indentation of the open blocks, and per block the elifs of the if
    statement last started in it (libcst nests each in the one before)."""

    def __init__(self) -> None:
        self.indents = [0]
        self.elifs = [0]
        self.line_start = 0

    def start_line(self, text: str, position: int) -> Union[int, TooDeep]:
        """Where the logical line starting at ``position`` has its first token."""
        indentation = _INDENTATION.match(text, position)
        if indentation is None:  # a blank line or a comment: the next newline
            return position
        self.line_start = position
        keyword = indentation.group("elif") or indentation.group("else") or ""
        width = indentation.end() - position - len(keyword)
        while width < self.indents[-1]:
            self.indents.pop()
            self.elifs.pop()
        if width > self.indents[-1]:
            self.indents.append(width)
            self.elifs.append(0)
            if len(self.indents) > MAX_INDENTATION + 1:
                return TooDeep(position + width, TOO_MANY_INDENTS)
        if indentation.group("elif"):
            self.elifs[-1] += 1
            if self.elifs[-1] > MAX_LINKS:
                return TooDeep(position, TOO_DEEP)
        elif not keyword:
            self.elifs[-1] = 0
        return position + width


# What counting may take as a link or a nesting: every character that can
# start one (more than the scan counts: names, strings and comments hold
# some too).  An opening bracket counts twice (the call or subscript it
# makes, and the level it opens), a quote once (a string's link, and an
# f-string's level by its closing quote).
_OPENS = "([{"
_LINK_CHARACTERS = "-+*/%@&|^~<>.'\""
_LINK_PAIRS = ("==", "!=")
_WORDS = ("and", "or", "not", "if", "else", "lambda", "await", "in", "is")
_WORD_LINKS = re.compile(r"\b(?:%s)\b" % "|".join(_WORDS))
# A line indented this many characters may open more blocks than allowed.
_DEEP_INDENTATION = re.compile(r"(?:\A|[\r\n])[ \t\f]{%d}" % (MAX_INDENTATION + 1))
# Statements split into their bodies this deep at most (an elif chain is
# an If in an If); past it a piece is scanned whole.
_MAX_SPLITS = 32
_BLOCK_FIELDS = ("body", "handlers", "orelse", "finalbody", "cases")


def too_deep_parsed(text: str, lines: Sequence[str], tree: ast.Module) -> Optional[TooDeep]:
    """:func:`too_deep` of ``text``, whose ``lines`` CPython has parsed into
    ``tree``, scanning only the pieces that counting cannot clear.

    The scan's state does not cross from one logical line to the next but
    for the blocks (indentation, and the elifs of an if statement), which
    are then checked on the whole text first: each piece is whole logical
    lines, and each is cleared or scanned in the order of the text, so the
    first place found is the scan's.
    """
    if text.count("elif") > MAX_LINKS or _indented_too_deep(text):
        return too_deep(text)
    offsets = [0, *itertools.accumulate(map(len, lines))]
    return _Pieces(text, lines, offsets).first_too_deep(tree.body, 1, len(lines), 0)


def _may_be_too_deep(piece: str) -> bool:
    """Whether ``piece`` (whole logical lines) has enough characters to go past a limit."""
    opens = sum(piece.count(character) for character in _OPENS)
    return opens > MAX_BRACKETS or _more_links_than(MAX_LINKS, piece, opens)


def _more_links_than(limit: int, text: str, opens: int) -> bool:
    """Whether ``text``, holding ``opens`` opening brackets, may hold more
    than ``limit`` links (counted by the characters that can start one)."""
    links = 2 * opens + sum(text.count(character) for character in _LINK_CHARACTERS)
    links += sum(text.count(pair) for pair in _LINK_PAIRS)
    if links > limit:
        return True
    # Each word link is also a substring: counting those first (at C
    # speed) clears most pieces without the pattern.
    if links + sum(text.count(word) for word in _WORDS) <= limit:
        return False
    return links + len(_WORD_LINKS.findall(text)) > limit


def cpython_parses_safely(text: str) -> bool:
    """Whether the running CPython may parse ``text`` before it is scanned:
    no imported name in it is longer than the scan allows, and it is
    shorter than :data:`CPYTHON_SAFE_CHARACTERS` or holds fewer links in
    all (elifs included) than :data:`CPYTHON_SAFE_LINKS`, so that no chain
    in it can be deep enough to overflow CPython's stack."""
    if _long_imported_name(text):
        return False
    if len(text) < CPYTHON_SAFE_CHARACTERS:
        return True
    opens = sum(text.count(character) for character in _OPENS)
    return not _more_links_than(CPYTHON_SAFE_LINKS - text.count("elif"), text, opens)


def _long_imported_name(text: str) -> bool:
    """Whether an import in ``text`` may name a module with more than
    MAX_LINKS dots: the dots after each ``import`` or ``from`` (prose
    included), up to the first character a module name or a list of them
    cannot hold, continuation lines included (an over-estimate)."""
    if text.count(".") <= MAX_LINKS:
        return False
    return any(match.group().count(".") > MAX_LINKS for match in _IMPORTED_NAMES.finditer(text))


_TOO_MANY_SPACES = " " * (MAX_INDENTATION + 1)


def _indented_too_deep(text: str) -> bool:
    """Whether a line of ``text`` starts with more indentation characters
    than MAX_INDENTATION (:data:`_DEEP_INDENTATION`); without tabs or form
    feeds, by substring tests instead of the pattern (ten times faster)."""
    if "\t" in text or "\f" in text:
        return _DEEP_INDENTATION.search(text) is not None
    spaces = _TOO_MANY_SPACES
    return text.startswith(spaces) or f"\n{spaces}" in text or f"\r{spaces}" in text


@dataclass(frozen=True)
class _Pieces:
    text: str
    lines: Sequence[str]
    offsets: Sequence[int]  # of each line's start in text, and of its end

    def first_too_deep(
        self, statements: Sequence[ast.stmt], first: int, last: int, splits: int
    ) -> Optional[TooDeep]:
        """The first place lines ``first`` to ``last``, which hold ``statements``, go past a limit."""
        for start, end, alone in self._pieces(statements, first, last):
            piece = self.text[self.offsets[start - 1] : self.offsets[end]]
            if not _may_be_too_deep(piece):
                continue
            inner = _blocks(alone) if alone is not None and splits < _MAX_SPLITS else []
            if inner:
                found = self.first_too_deep(inner, start, end, splits + 1)
            else:
                scanned = too_deep(piece)
                offset = self.offsets[start - 1]
                found = None if scanned is None else TooDeep(offset + scanned.offset, scanned.message)
            if found is not None:
                return found
        return None

    def _pieces(
        self, statements: Sequence[ast.stmt], first: int, last: int
    ) -> Iterator[Tuple[int, int, Optional[ast.stmt]]]:
        """Lines ``first`` to ``last`` cut before each statement that starts
        a logical line: each piece's lines, and its statement when it holds
        only one (the first piece, a block's header, holds none)."""
        cuts: List[Tuple[int, Optional[ast.stmt]]] = []
        for statement in statements:
            line = self._starts_line(statement)
            if line is not None and line > (cuts[-1][0] if cuts else first - 1):
                cuts.append((line, statement))
            elif cuts:  # joined to the piece before
                cuts[-1] = (cuts[-1][0], None)
            else:  # joined to the block's header
                cuts.append((first, None))
        if not cuts or cuts[0][0] > first:
            cuts.insert(0, (first, None))
        ends = [start - 1 for start, _ in cuts[1:]] + [last]
        for (start, alone), end in zip(cuts, ends):
            if start <= end:
                yield start, end, alone

    def _starts_line(self, statement: ast.stmt) -> Optional[int]:
        """The line on which ``statement`` (its first decorator) starts a
        logical line, or None (it follows ``;``, a block's ``:`` or a
        backslash)."""
        decorators: Sequence[ast.expr] = getattr(statement, "decorator_list", ())
        line = min([statement.lineno, *(decorator.lineno for decorator in decorators)])
        text = self.lines[line - 1]
        code = text.lstrip(" \t\f")
        if decorators:
            starts = code.startswith("@")
        else:
            starts = len(text) - len(code) == statement.col_offset  # ASCII before it: bytes are characters
        if line > 1 and self.lines[line - 2].rstrip("\r\n").endswith("\\"):
            return None
        return line if starts else None


def _blocks(statement: ast.stmt) -> List[ast.stmt]:
    """The statements of every block of ``statement``, in the order of the
    text (the fields are in that order; an except or case clause holds a body)."""
    inner: List[ast.stmt] = []
    for field in _BLOCK_FIELDS:
        for child in getattr(statement, field, ()):
            inner.extend([child] if isinstance(child, ast.stmt) else child.body)
    return inner
