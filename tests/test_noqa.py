"""``idemlint.noqa.NoqaMap``: ``# noqa`` read exactly as flake8 reads it."""

from __future__ import annotations

import ast
import pathlib
from typing import Dict, List, Tuple

import pytest

from idemlint import noqa
from idemlint.noqa import NoqaMap
from idemlint.segments import split

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


def noqa_map(source: str) -> NoqaMap:
    return NoqaMap(source.splitlines(keepends=True))


def suppressed_lines(source: str, code: str = "IDM002") -> List[int]:
    noqa = noqa_map(source)
    return [n for n in range(1, source.count("\n") + 1) if noqa.suppressed(n, code)]


CALL = "requests.post(url, json=payload)"


def test_a_line_without_a_comment_is_not_suppressed() -> None:
    assert not noqa_map(f"{CALL}\n").suppressed(1, "IDM002")


def test_an_unrelated_comment_does_not_suppress() -> None:
    assert not noqa_map(f"{CALL}  # send it\n").suppressed(1, "IDM002")


@pytest.mark.parametrize("comment", ["# noqa", "# NOQA", "# NoQA", "# noqa because reasons"])
def test_bare_noqa_suppresses_every_code(comment: str) -> None:
    noqa = noqa_map(f"{CALL}  {comment}\n")
    assert noqa.suppressed(1, "IDM001")
    assert noqa.suppressed(1, "IDM002")


def test_noqa_without_the_space_after_the_hash_is_not_a_noqa() -> None:
    assert not noqa_map(f"{CALL}  #noqa\n").suppressed(1, "IDM002")


@pytest.mark.parametrize(
    "comment",
    ["# noqa: IDM002", "# noqa:IDM002", "# NOQA: IDM002", "# noqa: IDM001,IDM002", "# noqa: IDM001, IDM002",
     "# noqa: IDM001 IDM002", "# noqa: E501,IDM002"],
)
def test_listed_code_is_suppressed(comment: str) -> None:
    assert noqa_map(f"{CALL}  {comment}\n").suppressed(1, "IDM002")


@pytest.mark.parametrize("comment", ["# noqa: IDM001", "# noqa: E501", "# noqa: IDM003,IDM004"])
def test_other_codes_do_not_suppress(comment: str) -> None:
    assert not noqa_map(f"{CALL}  {comment}\n").suppressed(1, "IDM002")


@pytest.mark.parametrize("prefix", ["IDM0", "IDM00"])
def test_a_listed_prefix_suppresses_the_codes_it_starts_and_no_other(prefix: str) -> None:
    noqa = noqa_map(f"{CALL}  # noqa: {prefix}\n")
    assert noqa.suppressed(1, "IDM002")
    assert noqa.suppressed(1, "IDM004")
    assert not noqa.suppressed(1, "E501")


@pytest.mark.parametrize("comment", ["# noqa: IDM", "# noqa: idm"])
def test_a_code_list_without_digits_is_a_bare_noqa_like_flake8(comment: str) -> None:
    # flake8's regex needs letters *and* digits for a code list; "IDM" is not
    # one, so the comment is a blanket "# noqa" that silences every code.
    noqa = noqa_map(f"{CALL}  {comment}\n")
    assert noqa.suppressed(1, "IDM002")
    assert noqa.suppressed(1, "E501")


def test_a_longer_code_does_not_suppress_its_prefix() -> None:
    assert not noqa_map(f"{CALL}  # noqa: IDM0021\n").suppressed(1, "IDM002")


@pytest.mark.parametrize("comment", ["# noqa: idm002", "# noqa: Idm002", "# noqa: idm0"])
def test_codes_are_case_sensitive_like_flake8(comment: str) -> None:
    # flake8 matches "noqa" case-insensitively but the codes case-sensitively;
    # a lower-case code list is a code list that names nothing.
    assert not noqa_map(f"{CALL}  {comment}\n").suppressed(1, "IDM002")


def test_noqa_applies_only_to_its_own_line() -> None:
    source = f"{CALL}  # noqa: IDM002\n{CALL}\n"
    assert suppressed_lines(source) == [1]


def test_a_line_outside_the_file_is_not_suppressed() -> None:
    noqa = noqa_map(f"{CALL}  # noqa\n")
    assert not noqa.suppressed(0, "IDM002")
    assert not noqa.suppressed(5, "IDM002")


def test_bracketed_multiline_call_lines_are_separate_like_flake8() -> None:
    # tokenize emits NL inside brackets; flake8 starts a new noqa line there.
    source = "requests.post(\n    url,\n    json=payload,\n)  # noqa: IDM002\n"
    assert suppressed_lines(source) == [4]


def test_backslash_continuation_is_one_noqa_line() -> None:
    source = "requests.post(url, \\\n    json=payload)  # noqa: IDM002\nother()\n"
    assert suppressed_lines(source) == [1, 2]


def test_multiline_string_is_one_noqa_line() -> None:
    source = 'requests.post(url, data="""\nbody\n""")  # noqa: IDM002\nother()\n'
    assert suppressed_lines(source) == [1, 2, 3]


def test_noqa_inside_a_multiline_string_counts_for_the_whole_string() -> None:
    # As in flake8: the text searched is the physical lines of the logical
    # line, strings included.
    source = 'requests.post(url, data="""\n# noqa\n""")\nother()\n'
    assert suppressed_lines(source) == [1, 2, 3]


def test_untokenizable_source_falls_back_to_physical_lines() -> None:
    source = f'{CALL}  # noqa: IDM002\nx = """never closed\n'
    assert suppressed_lines(source) == [1]


@pytest.mark.parametrize("comment", ["# flake8: noqa", "# flake8:noqa", "# FLAKE8: NOQA", "# flake8= noqa",
                                     "    # flake8: noqa"])
def test_file_level_noqa_on_its_own_line_suppresses_everything(comment: str) -> None:
    source = f'"""Module."""\n{comment}\n{CALL}\n'
    noqa = noqa_map(source)
    assert noqa.disabled
    assert suppressed_lines(source, "IDM001") == [1, 2, 3]


def test_file_level_noqa_after_code_is_not_file_level() -> None:
    source = f"import requests  # flake8: noqa\n{CALL}\n"
    noqa = noqa_map(source)
    assert not noqa.disabled
    assert not noqa.suppressed(2, "IDM002")


def test_file_level_noqa_with_codes_still_disables_the_file_like_flake8() -> None:
    # flake8's NOQA_FILE regex ignores anything after "noqa".
    assert noqa_map(f"# flake8: noqa: E501\n{CALL}\n").disabled


TOP_LEVEL = '''"""Module."""
# leading comment  # noqa: IDM001
import requests


@decorator(
    option=1,  # noqa: IDM003
)
def send(url, payload):
    requests.post(
        url,  # noqa: IDM002
        json=payload,
    )
    text = """
# noqa: IDM004
not code
"""
    return text


x = (1,
     2); y = 3  # noqa
z = 4 \\
    + 5  # noqa: IDM005


class Job:
    def run(self):
        requests.post(URL, json={})  # noqa: IDM002, IDM006
'''


def _statement_starts(source: str) -> List[int]:
    lines = source.splitlines(keepends=True)
    return [segment.first_line for segment in split(ast.parse(source), len(lines))]


@pytest.mark.parametrize(
    "source",
    [TOP_LEVEL, *(path.read_text(encoding="utf-8") for path in sorted(FIXTURES.glob("*.py")))],
    ids=["top_level", *(path.name for path in sorted(FIXTURES.glob("*.py")))],
)
def test_tokenizing_one_statement_at_a_time_reads_what_the_whole_file_gives(source: str) -> None:
    """The runs between top-level statements are tokenized only when asked
    about; every answer is the one tokenizing the whole file gives."""
    lines = source.splitlines(keepends=True)
    whole, by_statement = NoqaMap(lines), NoqaMap(lines, _statement_starts(source))
    numbers = range(1, len(lines) + 1)
    for code in ("IDM001", "IDM002", "IDM003", "IDM004", "IDM005", "IDM006"):
        assert [by_statement.suppressed(n, code) for n in numbers] == [whole.suppressed(n, code) for n in numbers]
    pairs = [(a, b) for a in numbers for b in range(a, min(a + 4, len(lines) + 1))]
    assert [by_statement.same_logical_line(a, b) for a, b in pairs] == [whole.same_logical_line(a, b) for a, b in pairs]


def test_only_the_statement_holding_the_asked_line_is_tokenized(monkeypatch: pytest.MonkeyPatch) -> None:
    tokenized: List[Tuple[int, int]] = []
    read = noqa._logical_line_text

    def recording(lines: List[str], first: int = 1) -> Dict[int, str]:
        tokenized.append((first, first + len(lines) - 1))
        return read(lines, first)

    monkeypatch.setattr(noqa, "_logical_line_text", recording)
    lines = TOP_LEVEL.splitlines(keepends=True)
    by_statement = NoqaMap(lines, _statement_starts(TOP_LEVEL))
    assert by_statement.suppressed(11, "IDM002") and not by_statement.suppressed(11, "IDM001")
    assert by_statement.suppressed(17, "IDM004")  # a string's lines are one logical line
    assert tokenized == [(6, 20)]
    assert by_statement.suppressed(24, "IDM005") and tokenized[1:] == [(23, 26)]
    assert by_statement.suppressed(22, "IDM001") and tokenized[2:] == [(21, 22)]
