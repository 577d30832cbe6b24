"""The nesting scan of a file CPython has parsed (nesting.too_deep_parsed)
answers as the scan of its whole text (nesting.too_deep): the same first
place and message, while scanning only the pieces counting cannot clear."""

from __future__ import annotations

import ast
import io
import pathlib
import re
import sys
import warnings
from typing import Callable, Dict, List, Optional

import libcst
import pytest

import idemlint
from idemlint import nesting
from idemlint.nesting import MAX_BRACKETS, MAX_INDENTATION, MAX_LINKS, TooDeep, too_deep, too_deep_parsed


def chain(n: int, term: str = "a") -> str:
    return " + ".join([term] * (n + 1))


DEEP = chain(MAX_LINKS + 1)
SMALL_FUNCTIONS = "".join(f"def f{n}(a):\n    return g(a, [a.b], {{'k': a}})\n\n\n" for n in range(60))

CASES: Dict[str, str] = {
    "module-level-chain": f"x = {DEEP}\n",
    "chain-in-the-last-of-many-functions": SMALL_FUNCTIONS + f"def last(a):\n    y = 1\n    return {DEEP}\n",
    "chain-in-an-if-header": SMALL_FUNCTIONS + f"if {DEEP}:\n    pass\n",
    "chain-in-an-elif-header": f"if a:\n    pass\nelif b:\n    pass\nelif {DEEP}:\n    pass\nelse:\n    pass\n",
    "chain-in-an-else-body": SMALL_FUNCTIONS + f"if a:\n    pass\nelse:\n    x = 1\n    y = {DEEP}\n",
    "chain-in-an-except-header": f"try:\n    pass\nexcept {DEEP}:\n    pass\nelse:\n    pass\n",
    "chain-in-a-finally-body": f"try:\n    pass\nexcept E:\n    pass\nfinally:\n    x = {DEEP}\n",
    "chain-in-a-decorator": SMALL_FUNCTIONS + f"@decorate({DEEP})\ndef f(a):\n    return a\n",
    "chain-after-a-block-colon": SMALL_FUNCTIONS + f"if a: x = {DEEP}\n",
    "chain-after-a-semicolon": SMALL_FUNCTIONS + f"y = 1; x = {DEEP}\n",
    # The scan counts the header and what a backslash joins to it as one line.
    "header-and-statement-joined-by-a-backslash": (
        SMALL_FUNCTIONS + f"if {chain(MAX_LINKS // 2)}: \\\n    a{'.b' * (MAX_LINKS // 2 + 10)} = 1\n"
    ),
    "statement-after-a-comment-ending-in-a-backslash": SMALL_FUNCTIONS + f"# a note \\\nx = {DEEP}\n",
    "chain-in-a-nested-method": (
        "class A:\n" + "".join(f"    def m{n}(self):\n        return self.x(1)\n\n" for n in range(40))
        + f"    class B:\n        def deep(self):\n            for a in b:\n                while a:\n"
        f"                    with c:\n                        x = {DEEP}\n"
    ),
    "chain-in-a-for-else": f"for a in b:\n    pass\nelse:\n    x = {DEEP}\n",
    "chain-over-many-lines": SMALL_FUNCTIONS + "x = (a" + "\n + a" * (MAX_LINKS + 1) + ")\n",
    "chain-over-backslash-continuations": SMALL_FUNCTIONS + "x = a \\\n" + " + a \\\n" * (MAX_LINKS + 1) + "\n",
    "chain-in-an-f-string-field": SMALL_FUNCTIONS + f"x = f'{{{DEEP}}}'\n",
    "implicitly-concatenated-strings": SMALL_FUNCTIONS + "x = " + "'a' " * (MAX_LINKS + 1) + "\n",
    "deep-in-crlf-lines": (SMALL_FUNCTIONS + f"def last(a):\n    return {DEEP}\n").replace("\n", "\r\n"),
    "deep-in-cr-lines": (SMALL_FUNCTIONS + f"def last(a):\n    return {DEEP}\n").replace("\n", "\r"),
    "deep-after-form-feeds": SMALL_FUNCTIONS.replace("def f3", "\x0cdef f3") + f"\x0c\ndef last(a):\n    return {DEEP}\n",
    "deep-in-tab-indented-lines": SMALL_FUNCTIONS + f"def last(a):\n\tif a:\n\t\treturn {DEEP}\n",
    "two-deep-statements-the-first-wins": SMALL_FUNCTIONS + f"x = {DEEP}\ny = {DEEP}\n",
    "199-nested-brackets": SMALL_FUNCTIONS + "x = " + "(" * (MAX_BRACKETS - 1) + "1" + ")" * (MAX_BRACKETS - 1) + "\n",
    "many-brackets-one-after-another": "def f(a):\n" + "    g(a)[0]\n" * (3 * MAX_BRACKETS) + "    return a\n",
    "chain-under-the-limit": SMALL_FUNCTIONS + f"x = {chain(MAX_LINKS - 10)}\n",
    "long-flat-list": "x = [" + ", ".join(["a.b + c"] * 5000) + "]\n",
    "links-in-strings-and-comments": "x = '''" + "a + " * 5000 + "'''\n# " + "(" * 5000 + "\n",
    "98-indentation-levels": (
        "".join("    " * level + "if a:\n" for level in range(MAX_INDENTATION - 2)) + "    " * 98 + f"x = {DEEP}\n"
    ),
    "98-indentation-levels-of-one-space": (
        "".join(" " * level + "if a:\n" for level in range(MAX_INDENTATION - 2)) + " " * 98 + f"x = {DEEP}\n"
    ),
    "and-chain-in-the-last-function": SMALL_FUNCTIONS + "def last(a):\n    return " + " and ".join(["a"] * (MAX_LINKS + 2)) + "\n",
    "not-chain-under-the-limit": SMALL_FUNCTIONS + "x = " + "not " * (MAX_LINKS - 10) + "a\n",
    # Words inside names are no links: counting substrings cannot clear these, the pattern does.
    "link-words-inside-names": "x = [" + ", ".join(["printing_is_nothing_android"] * 1500) + "]\n",
    "long-elif-chains": "if a:\n    pass\n" + "elif a.b + c:\n    pass\n" * (MAX_LINKS + 5),
    "empty-file": "",
    "comments-only": "# one\n\n# two\n",
}
if sys.version_info >= (3, 10):
    CASES["chain-in-a-match-case"] = f"match a:\n    case 1:\n        pass\n    case _:\n        x = {DEEP}\n"


def parse(text: str) -> Optional[ast.Module]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = compile(text, "<case>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    assert isinstance(tree, ast.Module)
    return tree


def scan_parsed(text: str, tree: ast.Module) -> Optional[TooDeep]:
    return too_deep_parsed(text, io.StringIO(text, newline="").readlines(), tree)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_parsed_scan_answers_as_the_whole_scan(case: str) -> None:
    text = CASES[case]
    tree = parse(text)
    if tree is None:
        pytest.skip("this Python cannot parse the case: the whole text is scanned")
    assert scan_parsed(text, tree) == too_deep(text)


@pytest.mark.parametrize("case", ["chain-in-the-last-of-many-functions", "chain-in-a-nested-method"])
def test_only_the_piece_that_may_be_deep_is_scanned(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = CASES[case]
    tree = parse(text)
    assert tree is not None
    scanned: List[str] = []
    scan: Callable[[str], Optional[TooDeep]] = nesting.too_deep

    def recording(piece: str) -> Optional[TooDeep]:
        scanned.append(piece)
        return scan(piece)

    monkeypatch.setattr(nesting, "too_deep", recording)
    found = scan_parsed(text, tree)
    assert found is not None and found.message == nesting.TOO_DEEP
    assert len(scanned) == 1 and DEEP in scanned[0]
    assert len(scanned[0]) < len(DEEP) + 100


def python_files(package: pathlib.Path) -> List[pathlib.Path]:
    return sorted(path for path in package.rglob("*.py") if path.is_file())


@pytest.mark.parametrize(
    "package",
    # libcst's 300 modules, 3 s (`make test-all`); idemlint's are quick.
    [pytest.param(idemlint, id="idemlint"), pytest.param(libcst, id="libcst", marks=pytest.mark.slow)],
)
def test_real_source_gets_the_whole_scan_s_answer(package: object) -> None:
    root = pathlib.Path(getattr(package, "__file__")).parent
    compared = 0
    for path in python_files(root):
        text = path.read_text(encoding="utf-8")
        tree = parse(text)
        if tree is None:
            continue
        assert scan_parsed(text, tree) == too_deep(text), path
        compared += 1
    assert compared > 50


# A long file for the CPython screen: shallow statements, each with the links given.
def long_file(statement: str) -> str:
    count = -(-nesting.CPYTHON_SAFE_CHARACTERS // len(statement))
    return statement * count


def too_many_links(text: str) -> str:
    """``text`` repeated until it holds more links than CPython is trusted with unscanned."""
    while links_in(text) <= nesting.CPYTHON_SAFE_LINKS:
        text += text
    return text


def links_in(text: str) -> int:
    """Links as the screen counts them, by the pattern (no substring shortcut)."""
    opens = sum(text.count(character) for character in "([{")
    characters = sum(text.count(character) for character in "-+*/%@&|^~<>.'\"")
    words = len(re.findall(r"\b(?:and|or|not|if|else|lambda|await|in|is)\b", text))
    return 2 * opens + characters + text.count("==") + text.count("!=") + words + text.count("elif")


@pytest.mark.parametrize(
    "statement",
    [
        "value_of_the_order = first_value_given\n",
        "def handle_every_order_placed_by_customers(order, customer):\n    return order\n",
        "# a comment: (a + b) and c\n" + "x = 1\n" * 10,
    ],
    ids=["assignments", "functions", "comments"],
)
def test_a_long_file_with_few_links_goes_to_cpython_unscanned(statement: str) -> None:
    text = long_file(statement)
    assert len(text) >= nesting.CPYTHON_SAFE_CHARACTERS
    assert links_in(text) < nesting.CPYTHON_SAFE_LINKS
    assert nesting.cpython_parses_safely(text)


@pytest.mark.parametrize(
    "statement",
    ["x = a.b + c\n", "x = a and b or not c\n", "if a:\n    pass\nelif b:\n    pass\n", "x = 'a' \"b\"\n", "f(a)[b]\n"],
    ids=["operators", "words", "elifs", "quotes", "brackets"],
)
def test_a_long_file_with_many_links_is_scanned_before_cpython(statement: str) -> None:
    text = too_many_links(long_file(statement))
    assert not nesting.cpython_parses_safely(text)
    assert nesting.cpython_parses_safely(text[: nesting.CPYTHON_SAFE_CHARACTERS - 1])


def test_a_short_file_goes_to_cpython_whatever_it_holds() -> None:
    text = too_many_links("x = " + chain(nesting.CPYTHON_SAFE_CHARACTERS // 4) + "\n")
    assert len(text) > nesting.CPYTHON_SAFE_CHARACTERS
    assert not nesting.cpython_parses_safely(text)
    assert nesting.cpython_parses_safely(text[: nesting.CPYTHON_SAFE_CHARACTERS - 10] + "\n")


def test_only_a_long_file_that_may_crash_cpython_is_scanned_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading a long file with few links scans only its pieces that counting
    cannot clear (after CPython's parse); one with many, its whole text first."""
    from idemlint import project

    scanned: List[int] = []
    scan: Callable[[str], Optional[TooDeep]] = nesting.too_deep

    def recording(text: str) -> Optional[TooDeep]:
        scanned.append(len(text))
        return scan(text)

    monkeypatch.setattr(project, "too_deep", recording)
    monkeypatch.setattr(nesting, "too_deep", recording)
    few = long_file("def handle(order):\n    return order\n\n\n")
    assert isinstance(project.load_source(few, "few.py"), project.LoadedModule)
    assert scanned == []
    many = too_many_links(long_file("def handle(order):\n    return order.total + order.tax - order.discount\n\n\n"))
    assert isinstance(project.load_source(many, "many.py"), project.LoadedModule)
    assert scanned == [len(many)]


@pytest.mark.parametrize(
    "text",
    [
        "import order" + ".a" * (MAX_LINKS + 1) + "\n",
        "from order" + ".a" * (MAX_LINKS + 1) + " import b\n",
        "import shop, order" + " . a" * (MAX_LINKS + 1) + "\n",
        "import order" + ".a \\\n" * (MAX_LINKS + 1) + "\n",
        "from " + ". " * (MAX_LINKS + 1) + "import b\n",
    ],
    ids=["import", "from-import", "second-name-spaced", "backslash-continued", "relative-dots"],
)
def test_an_imported_name_longer_than_the_scan_allows_never_reaches_cpython(text: str) -> None:
    """CPython's memory grows with the square of an imported name's length:
    such a file, however short, is scanned first (and found too deep)."""
    assert len(text) < nesting.CPYTHON_SAFE_CHARACTERS
    assert not nesting.cpython_parses_safely(text)
    found = too_deep(text)
    assert found is not None and found.message == nesting.TOO_DEEP


def test_many_imports_of_short_names_go_to_cpython_unscanned() -> None:
    text = "".join(f"from shop.orders.models{n}.fields import Field{n}\n" for n in range(3 * MAX_LINKS))
    assert text.count(".") > MAX_LINKS
    assert nesting.cpython_parses_safely(text[: nesting.CPYTHON_SAFE_CHARACTERS - 1])
