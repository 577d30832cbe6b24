"""Catalogue and configured globs: ``*`` and ``{a,b}``, matched without backtracking."""

from __future__ import annotations

import re
from typing import List, Sequence, Set, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idemlint import catalog
from idemlint.catalog import MAX_GLOB_ALTERNATIVES, compile_glob


def reference(pattern: str, ignore_case: bool = False) -> "re.Pattern[str]":
    """The regex translation the matcher replaced (exponential on crafted
    input, exact on small ones)."""
    out = []
    for piece in re.split(r"(\{[^{}]*\}|\*)", pattern):
        if piece == "*":
            out.append(".*")
        elif piece.startswith("{") and piece.endswith("}"):
            alternatives = piece[1:-1].split(",")
            out.append("(?:" + "|".join(".*".join(map(re.escape, a.split("*"))) for a in alternatives) + ")")
        else:
            out.append(re.escape(piece))
    return re.compile("".join(out) + r"\Z", re.IGNORECASE if ignore_case else 0)


@pytest.mark.parametrize(
    "pattern, name, expected",
    [
        ("stripe.*.create", "stripe.Charge.create", True),
        ("stripe.*.create", "stripe.create", False),
        ("stripe.*", "stripe.", True),
        ("*.{save,update}", "order.save", True),
        ("*.{save,update}", "order.delete", False),
        ("{print,len}", "len", True),
        ("{a*b,c}", "axxb", True),
        ("a*a", "a", False),
        ("a*a", "aa", True),
        ("**x**", "x", True),
        ("x.{a,}", "x.", True),
        ("requests.Session().post", "requests.Session().post", True),
    ],
)
def test_glob_semantics(pattern: str, name: str, expected: bool) -> None:
    assert compile_glob(pattern).matches(name) is expected
    assert bool(reference(pattern).match(name)) is expected


def test_ignore_case() -> None:
    glob = compile_glob("*Gateway*.{charge,refund}", ignore_case=True)
    assert glob.matches("shop.PAYMENTGATEWAY.client.Charge")
    assert not glob.matches("shop.gate.charge")


def test_every_catalogue_pattern_agrees_with_the_regex_on_names_built_from_it() -> None:
    patterns = set()
    for value in vars(catalog).values():
        if isinstance(value, (tuple, frozenset)):
            for entry in value:
                if isinstance(entry, str):
                    patterns.add((entry, False))
                elif isinstance(getattr(entry, "pattern", None), str):
                    patterns.add((entry.pattern, getattr(entry, "ignore_case", False)))
    assert len(patterns) > 100
    for pattern, ignore_case in sorted(patterns):
        filled = re.sub(r"\{([^}]*)\}", lambda group: group.group(1).split(",")[-1], pattern)
        names = {filled.replace("*", stuffing) for stuffing in ("", "x", "a.b", "Session()")}
        names |= {name + "x" for name in names} | {name[:-1] for name in names} | {n.upper() for n in names}
        glob, regex = compile_glob(pattern, ignore_case=ignore_case), reference(pattern, ignore_case)
        for name in names:
            assert glob.matches(name) == bool(regex.match(name)), (pattern, name)


def _catalogue_tables() -> List[Tuple[str, Sequence[object]]]:
    return [
        (name, value)
        for name, value in sorted(vars(catalog).items())
        if isinstance(value, tuple)
        and value
        and all(isinstance(entry, str) or isinstance(getattr(entry, "pattern", None), str) for entry in value)
    ]


def _scanned(table: Sequence[object], name: str) -> Tuple[object, ...]:
    """What a table lookup answers, glob by glob in table order."""
    return tuple(
        entry
        for entry in table
        if (
            compile_glob(entry)
            if isinstance(entry, str)
            else compile_glob(entry.pattern, ignore_case=getattr(entry, "ignore_case", False))  # type: ignore[attr-defined]
        ).matches(name)
    )


def _names_built_from(table: Sequence[object]) -> Set[str]:
    names: Set[str] = set()
    for entry in table:
        pattern = entry if isinstance(entry, str) else entry.pattern  # type: ignore[attr-defined]
        for choice in (0, -1):
            filled = re.sub(r"\{([^}]*)\}", lambda group: group.group(1).split(",")[choice], pattern)
            for stuffing in ("", "x", "a.b", "Session()", ".create"):
                name = filled.replace("*", stuffing)
                names |= {name, name + "x", name[:-1], name.upper(), f"x.{name}", name.rpartition(".")[2]}
    return names


def test_table_lookups_answer_as_trying_every_glob_in_order() -> None:
    # Lookups try only the globs filed under the name's last dotted part.
    tables = _catalogue_tables()
    assert {"KEYABLE_EFFECTS", "NON_KEYABLE_EFFECTS", "LOCK_APIS", "COMMIT_HOOKS"} <= {name for name, _ in tables}
    for table_name, table in tables:
        for name in sorted(_names_built_from(table)):
            expected = _scanned(table, name)
            if isinstance(table[0], str):
                assert catalog.matches_any(table, name) == bool(expected), (table_name, name)  # type: ignore[arg-type]
            else:
                assert catalog.all_matches(table, name) == expected, (table_name, name)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(
    patterns=st.lists(
        st.lists(st.sampled_from(["a", "b", ".", "*", "{a,b}", "{a*,.b}", "{.,*b}", "()"]), max_size=7).map("".join),
        min_size=1,
        max_size=6,
    ),
    name=st.text(alphabet="ab.()", min_size=1, max_size=10),  # no name: no lookup
)
def test_a_lookup_in_any_table_answers_as_every_glob_tried(patterns: List[str], name: str) -> None:
    table = tuple(patterns)
    assert catalog.matches_any(table, name) == any(compile_glob(p).matches(name) for p in table)


@settings(max_examples=300, deadline=None)
@given(
    pattern=st.lists(st.sampled_from(["a", "b", ".", "*", "{a,b}", "{a*,}", "{.,*b}"]), max_size=8).map("".join),
    name=st.text(alphabet="ab.", max_size=10),
)
def test_matches_exactly_what_the_regex_matches(pattern: str, name: str) -> None:
    assert compile_glob(pattern).matches(name) == bool(reference(pattern).match(name))


@pytest.mark.parametrize("stars", [6, 20, 100])
def test_many_stars_on_a_long_name_that_almost_matches_complete(stars: int) -> None:
    # The regex of ``*a*a...*a*z*`` backtracks through every way of placing
    # the stars before failing: 6 stars took 17 s on a 93-character name,
    # 20 never finished.  A star-by-star scan fails after one pass.
    name = "a" * 5000
    assert not compile_glob("*a" * stars + "*z*").matches(name)
    assert not compile_glob("a" + "*a" * stars + "z").matches(name)
    assert compile_glob("*a" * stars + "*").matches(name)
    assert not compile_glob("*a" * stars + "*").matches("a" * (stars - 1))


@pytest.mark.parametrize(
    "pattern, reason",
    [
        ("x.{a,b", "'{' without '}'"),
        ("x.a}", "'}' without '{'"),
        ("x.{a,{b,c}}", "nested '{'"),
        ("{a,b}" * 11, f"more than {MAX_GLOB_ALTERNATIVES} alternatives"),
    ],
)
def test_invalid_globs_say_why(pattern: str, reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        compile_glob(pattern)


def test_the_largest_expansion_allowed_compiles() -> None:
    assert compile_glob("{a,b}" * 10).matches("ab" * 5)
