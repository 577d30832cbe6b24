"""``--show-unused-noqa``: ``# noqa: IDMnnn`` comments that suppress nothing.

Only comments that name idemlint codes are read: a bare ``# noqa`` or one
naming other tools' codes may be meant for them.  A code the run does not
check (``--ignore``, ``--select``) is not reported, since nothing could
have used it.  Reported as ``IDM800``, a report-level code outside the rule
registry, which is selected like the rules' codes (as ruff's ``RUF100``
must be): ``--select IDM002`` leaves it out, ``--select IDM002,IDM800``
or ``--extend-select IDM800`` keeps it; each file's own settings decide.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from typing import Iterator, List, Optional, Sequence, Tuple, Union

from idemlint.cache import content_hash
from idemlint.engine import LintResult
from idemlint.findings import Finding
from idemlint.fixes import SAFE, Edit, Fix
from idemlint.noqa import NOQA_INLINE, NoqaMap
from idemlint.reading import read_regular
from idemlint.report.meta import UNUSED_NOQA
from idemlint.report.source import source_lines
from idemlint.rules import RULES
from idemlint.settings import Fixed, Settings, SettingsSource

IDEMLINT_PREFIX = "IDM"
# Decided on the raw bytes: most files of a repository have no `# noqa: IDM...`
# at all and are then neither decoded nor tokenized.
# (A ``noqa`` then, on its line and before any other ``noqa``, ``idm``: the
# stretch after each ``noqa`` is read once, where ``noqa[^\n]*idm`` reads the
# rest of the line again from every ``noqa`` on it.)
_MAY_NAME_OUR_CODES = re.compile(rb"(?i:noqa(?:[^\nn]|n(?!oqa))*idm)")


def unused_noqa(result: LintResult, settings: Union[Settings, SettingsSource]) -> Tuple[Finding, ...]:
    """The IDM800 findings of the files ``result`` checked, each under its own settings."""
    source = Fixed(settings) if isinstance(settings, Settings) else settings
    found: List[Finding] = []
    for path in result.checked:
        applied = source.for_file(path)
        raw = _raw(path) if applied.enabled(UNUSED_NOQA.code, path) else None
        if raw is None or _MAY_NAME_OUR_CODES.search(raw) is None:
            continue
        lines = source_lines(path)
        digest = content_hash(raw)  # what a fix's edits are computed on
        noqa = NoqaMap(lines)
        if noqa.disabled:
            continue
        real = os.path.realpath(path)
        suppressed = [f for f in result.suppressed if os.path.realpath(f.path) == real]
        for line, column, end_column, codes, comment in _noqa_comments(lines):
            unused = [
                code
                for code in codes
                if _checked(code, path, applied)
                and not any(
                    f.code.startswith(code) and noqa.same_logical_line(line, f.line)
                    for f in suppressed
                )
            ]
            if unused:
                fix = _removal(lines[line - 1], line, column, comment, unused, digest)
                found.append(_finding(path, line, column, end_column, unused, fix))
    return tuple(found)


def nothing_to_report(result: LintResult, source: SettingsSource) -> bool:
    """Whether no checked file selects IDM800 (``--show-unused-noqa`` would be silently useless)."""
    return bool(result.checked) and not any(
        source.for_file(path).enabled(UNUSED_NOQA.code) for path in result.checked
    )


def _raw(path: str) -> Optional[bytes]:
    try:
        return read_regular(path)
    except OSError:
        return None


def _noqa_comments(lines: Sequence[str]) -> Iterator[Tuple[int, int, int, List[str], str]]:
    """(line, column, end column, idemlint codes, the comment) of each ``# noqa: IDM...`` comment."""
    reader = io.StringIO("".join(lines)).readline
    try:
        for token in tokenize.generate_tokens(reader):
            if token.type != tokenize.COMMENT:
                continue
            match = NOQA_INLINE.search(token.string)
            if match is None or not match.group("codes"):
                continue
            listed = [c for c in re.split(r"[,\s]+", match.group("codes")) if c]
            # In any case: "idm002" names our code, and suppresses nothing
            # (flake8 and ruff compare noqa codes case-sensitively).
            codes = [c for c in listed if c.upper().startswith(IDEMLINT_PREFIX)]
            if codes:
                line, column = token.start
                yield line, column + 1, token.end[1] + 1, codes, token.string
    except (tokenize.TokenError, SyntaxError):
        return


def _checked(code: str, path: str, settings: Settings) -> bool:
    return any(rule.code.startswith(code.upper()) and settings.enabled(rule.code, path) for rule in RULES)


def _removal(
    line_text: str, number: int, column: int, comment: str, unused: List[str], digest: str
) -> Optional[Fix]:
    """The safe fix: the unused codes taken out of the comment, or the
    ``# noqa`` (the whole comment, when it says nothing else) removed;
    text after it stays a comment.  None when another ``# noqa`` follows in
    the comment: flake8 reads the first, so removing this one would let
    the next suppress what it does not today."""
    match = NOQA_INLINE.search(comment)
    if match is None or match.group("codes") is None or NOQA_INLINE.search(comment, match.end()):
        return None
    listed = [c for c in re.split(r"[,\s]+", match.group("codes")) if c]
    kept = [c for c in listed if c not in unused]
    line = line_text.rstrip("\r\n")
    end = column + len(comment)
    if kept:
        codes = match.group("codes")
        trailing = codes[len(codes.rstrip(", \t")) :]
        start, stop = match.span("codes")
        new = comment[:start] + ", ".join(kept) + trailing + comment[stop:]
        title = f"Remove {', '.join(unused)} from the `# noqa`"
    else:
        before, after = comment[: match.start()].rstrip(), comment[match.end() :].strip()
        if after and not after.startswith("#"):
            after = f"# {after}"  # ``# noqa: IDM002 because ...`` keeps its reason as a comment
        new = " ".join(part for part in (before, after) if part)
        title = "Remove the unused `# noqa`"
    if new:
        edit = Edit(number, column, number, end, new)
    else:  # the comment goes, with the blanks before it
        start = len(line[: column - 1].rstrip()) + 1
        edit = Edit(number, start, number, end, "")
    return Fix(title, SAFE, (edit,), digest)


def _finding(
    path: str, line: int, column: int, end_column: int, codes: List[str], fix: Optional[Fix] = None
) -> Finding:
    listed = ", ".join(codes)
    message = f"unused `# noqa` for {listed}: no {listed} finding on this line to suppress"
    miscased = [code for code in codes if code != code.upper()]
    if miscased:
        message += f" (`# noqa` codes are case-sensitive, as in flake8 and ruff: write {miscased[0].upper()})"
    return Finding(
        path=path,
        line=line,
        column=column,
        code=UNUSED_NOQA.code,
        end_line=line,
        end_column=end_column,
        rule=UNUSED_NOQA.name,
        message=message,
        why=UNUSED_NOQA.why,
        fix=UNUSED_NOQA.fix,
        task="",
        suggestion=fix,
    )
