"""One grammar, whatever Python runs idemlint: libcst's.

Task files written in syntax newer than the running Python are analysed with
their findings (``.ci/run`` runs these tests on the oldest supported Python
too), a file libcst rejects is one E999 line in libcst's words, and input
nested deep enough to crash libcst's native parser is one line naming the
file, through the CLI and flake8, in subprocesses (a crash would take the
test runner down).
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import warnings
from typing import Callable, List

import pytest

from idemlint import lint_source
from idemlint.nesting import MAX_BRACKETS, MAX_INDENTATION, MAX_LINKS, too_deep

HEAD = "import requests\nfrom celery import shared_task\n\n\n"
POST = "    requests.post(url, json={'order': order_id})\n"

# One task file per PEP, each with a keyless POST (IDM002) at the line and column named.
MODERN = {
    "pep695-generic-function": (
        HEAD + "@shared_task\ndef notify[T](url: str, order_id: T) -> None:\n" + POST,
        (7, 5),
    ),
    "pep695-generic-class": (
        HEAD + "class Box[T]:\n    item: T\n\n\n@shared_task\ndef notify(url, order_id):\n" + POST,
        (11, 5),
    ),
    "pep695-type-alias": (
        HEAD + "type OrderId = int\n\n\n@shared_task\ndef notify(url, order_id: OrderId):\n" + POST,
        (10, 5),
    ),
    "pep701-f-string": (
        HEAD
        + "@shared_task\ndef notify(url, order_id):\n"
        + "    label = f\"{f\"{order_id}\"}\" + f'{'nested'}'\n"
        + "    requests.post(url, json={'order': order_id, 'label': label})\n",
        (8, 5),
    ),
    "pep758-except-without-parentheses": (
        HEAD
        + "@shared_task\ndef notify(url, order_id):\n    try:\n"
        + "        requests.post(url, json={'order': order_id})\n"
        + "    except ValueError, KeyError:\n        pass\n",
        (8, 9),
    ),
    "pep696-type-parameter-default": (
        HEAD + "@shared_task\ndef notify[T = int](url: str, order_id: T) -> None:\n" + POST,
        (7, 5),
    ),
}


def idemlint(*args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "idemlint", "check", "--no-cache", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def flake8(*args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def running_python_parses(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<modern>", "exec", dont_inherit=True)
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize("case", sorted(MODERN))
def test_modern_syntax_is_analysed_whatever_python_runs_idemlint(tmp_path: pathlib.Path, case: str) -> None:
    source, (line, column) = MODERN[case]
    path = tmp_path / "tasks.py"
    path.write_text(source)
    run = idemlint(str(path), cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert [row.split(" ", 2)[:2] for row in run.stdout.splitlines()] == [[f"{path}:{line}:{column}:", "IDM002"]]
    assert run.stderr == ""


def test_modern_syntax_is_analysed_in_process_too() -> None:
    for case, (source, (line, column)) in MODERN.items():
        findings = lint_source(source, "tasks.py").findings
        assert [(f.line, f.column, f.code) for f in findings] == [(line, column, "IDM002")], case


@pytest.mark.parametrize("case", sorted(MODERN))
def test_flake8_reports_syntax_its_python_lacks_itself(tmp_path: pathlib.Path, case: str) -> None:
    """flake8 parses every file with the running CPython before any plugin
    runs: where that fails, flake8 reports E999 and the plugin never sees the
    file (the CLI analyses it).  Where it parses, the plugin reports the finding."""
    source, (line, column) = MODERN[case]
    path = tmp_path / "tasks.py"
    path.write_text(source)
    run = flake8("--select", "E9,IDM", str(path), cwd=tmp_path)
    assert "Traceback" not in run.stderr, run.stderr
    codes = [row.split(" ", 2)[:2] for row in run.stdout.splitlines()]
    if running_python_parses(source):
        assert codes == [[f"{path}:{line}:{column}:", "IDM002"]], run.stdout
    else:
        assert [code for _, code in codes] == ["E999"], run.stdout


def test_modern_syntax_reached_from_a_task_in_another_module_is_followed(tmp_path: pathlib.Path) -> None:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "billing.py").write_text(
        "import requests\n\ntype Url = str\n\n\ndef capture[T](url: Url, order_id: T) -> None:\n"
        "    requests.post(url, json={'order': order_id})\n"
    )
    (tmp_path / "shop" / "tasks.py").write_text(
        "from celery import shared_task\n\nfrom shop.billing import capture\n\n\n"
        "@shared_task\ndef charge(url, order_id):\n    capture(url, order_id)\n"
    )
    run = idemlint("shop", cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert any(row.startswith(f"shop{'/'}billing.py:7:5: IDM002") for row in run.stdout.splitlines()), run.stdout


def test_a_file_libcst_rejects_is_one_e999_in_libcsts_words(tmp_path: pathlib.Path) -> None:
    """Modern syntax first, a real error after it: the E999 is at the error
    or after it (libcst stops where it can go no further, here the end of
    the file), never at the modern syntax an older CPython stopped at, and
    worded the same on every Python."""
    bad = tmp_path / "broken.py"
    bad.write_text("from celery import shared_task\ntype OrderId = int\n\n\n@shared_task\ndef put(item:\n    pass\n")
    good = tmp_path / "good.py"
    good.write_text(HEAD + "@shared_task\ndef notify(url, order_id):\n" + POST)
    run = idemlint(str(bad), str(good), cwd=tmp_path)
    assert run.returncode == 2
    about_bad = [row for row in run.stdout.splitlines() if row.startswith(str(bad))]
    assert len(about_bad) == 1, run.stdout
    position, message = about_bad[0][len(str(bad)) + 1 :].split(": ", 1)
    assert int(position.split(":")[0]) >= 6, about_bad[0]
    assert message.startswith("E999 SyntaxError: invalid syntax"), about_bad[0]
    assert f"{good}:7:5: IDM002" in run.stdout


DEEP_INPUTS = {
    # 3.9 and 3.10 crashed on this one (every other file's findings lost).
    "8000-term-expression": ("    x = " + " + ".join(["order_id"] * 8000) + "\n", 7, "nested too deeply"),
    "20000-term-expression": ("    x = " + " + ".join(["order_id"] * 20000) + "\n", 7, "nested too deeply"),
    "4000-chained-lambdas": ("    x = " + "lambda: " * 4000 + "1\n", 7, "nested too deeply"),
    "3000-call-chain": ("    x = url" + "(order_id)" * 3000 + "\n", 7, "nested too deeply"),
    "5000-line-expression": ("    x = (order_id\n" + "         + order_id\n" * 5000 + "    )\n", 7, "nested too deeply"),
    # Every CPython, 3.13 included, overflows its stack parsing this: the
    # long file is scanned before CPython sees it.
    "300000-dot-import": ("    import order" + ".a" * 300_000 + "\n", 7, "nested too deeply"),
    "1300-nested-brackets": ("    x = " + "[" * 1300 + "1" + "]" * 1300 + "\n", 7, "too many nested parentheses"),
    "1000-nested-f-strings": ("    x = " + "f'{" * 1000 + "1" + "}'" * 1000 + "\n", 7, "too many nested parentheses"),
    "10000-elifs": (
        "    if order_id == 0:\n        pass\n"
        + "".join(f"    elif order_id == {n}:\n        pass\n" for n in range(1, 10000)),
        None,
        "nested too deeply",
    ),
    "150-indentation-levels": (
        "".join("    " * level + "if order_id:\n" for level in range(1, 150)) + "    " * 150 + "pass\n",
        None,
        "too many levels of indentation",
    ),
}


@pytest.mark.sweep
@pytest.mark.parametrize("case", sorted(DEEP_INPUTS))
def test_input_too_deep_for_libcst_is_one_line_naming_the_file(tmp_path: pathlib.Path, case: str) -> None:
    body, line, message = DEEP_INPUTS[case]
    hostile = tmp_path / "hostile.py"
    hostile.write_text(HEAD + "@shared_task\ndef notify(url, order_id):\n" + body)
    buggy = tmp_path / "buggy.py"
    buggy.write_text(HEAD + "@shared_task\ndef notify(url, order_id):\n" + POST)
    run = idemlint(str(hostile), str(buggy), cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    about = [row for row in run.stdout.splitlines() if row.startswith(f"{hostile}:")]
    assert len(about) == 1, run.stdout
    assert " E999 " in about[0] and message in about[0], about[0]
    if line is not None:
        assert about[0].startswith(f"{hostile}:{line}:"), about[0]
    assert f"{buggy}:7:5: IDM002" in run.stdout


@pytest.mark.parametrize("case", ["8000-term-expression", "10000-elifs", "1300-nested-brackets"])
def test_flake8_survives_input_too_deep_for_libcst(tmp_path: pathlib.Path, case: str) -> None:
    """The plugin screens what flake8 hands it as the CLI does: no crash.
    (pyflakes, which flake8 always runs, may itself give up on such a file.)"""
    body, _, _ = DEEP_INPUTS[case]
    hostile = tmp_path / "hostile.py"
    hostile.write_text(HEAD + "@shared_task\ndef notify(url, order_id):\n" + body)
    run = flake8("--select", "IDM", str(hostile), cwd=tmp_path)
    assert run.returncode >= 0, f"flake8 died of signal {-run.returncode}"
    assert "idemlint" not in run.stderr, run.stderr
    assert "IDM" not in run.stdout, run.stdout


def links(n: int) -> str:
    return " + ".join(["a"] * (n + 1))


@pytest.mark.parametrize(
    "source",
    [
        "x = " + links(MAX_LINKS - 10) + "\n",
        "x = [" + ", ".join(["a + b"] * 20_000) + "]\n",  # long but flat
        "x = {" + ", ".join(f"'k{n}': [{n}, ({n},)]" for n in range(20_000)) + "}\n",
        "# " + "(" * 5000 + "\n",
        "x = '''" + "(" * 5000 + "'''\n",
        "x = r'\\'" + "(" * 5000 + "'\n",
        "x = f'{a!r:#>{width}}' + f\"{b:'^10}\" + " + links(MAX_LINKS - 20) + "\n",
        "x = " + "(" * (MAX_BRACKETS - 1) + "1" + ")" * (MAX_BRACKETS - 1) + "\n",
        "".join("    " * level + "if a:\n" for level in range(MAX_INDENTATION)) + "    " * MAX_INDENTATION + "pass\n",
        "if a:\n    pass\n" + "elif a:\n    pass\n" * (MAX_LINKS - 1) + "if b:\n    pass\n" + "elif b:\n    pass\n" * 10,
    ],
    ids=[
        "chain-under-the-limit",
        "20000-item-list",
        "20000-item-dict",
        "brackets-in-a-comment",
        "brackets-in-a-string",
        "brackets-in-a-raw-string",
        "format-specs-with-quotes-and-hashes",
        "199-nested-brackets",
        "100-indentation-levels",
        "elif-chains-counted-apart",
    ],
)
def test_deep_but_valid_code_passes_the_nesting_scan(source: str) -> None:
    assert too_deep(source) is None


@pytest.mark.parametrize(
    "source, message",
    [
        ("x = " + links(MAX_LINKS + 1) + "\n", "nested too deeply"),
        ("x = f'{" + links(MAX_LINKS + 1) + "}'\n", "nested too deeply"),
        ("x = (a" + "\n + a" * (MAX_LINKS + 1) + ")\n", "nested too deeply"),
        ("x = a \\\n" + " + a \\\n" * (MAX_LINKS + 1) + "\n", "nested too deeply"),
        ("x = " + "'a' " * (MAX_LINKS + 1) + "\n", "nested too deeply"),
        ("if a:\n    pass\n" + "# note\nelif a:\n\n    pass\n" * (MAX_LINKS + 1), "nested too deeply"),
        ("x = " + "(" * (MAX_BRACKETS + 1) + "1" + ")" * (MAX_BRACKETS + 1) + "\n", "too many nested parentheses"),
        ("x = " + "f'{" * (MAX_BRACKETS + 1) + "1" + "}'" * (MAX_BRACKETS + 1) + "\n", "too many nested parentheses"),
    ],
    ids=[
        "operator-chain",
        "chain-in-an-f-string-field",
        "chain-over-many-lines",
        "chain-over-backslash-continuations",
        "implicitly-concatenated-strings",
        "elif-chain-with-comments-and-blank-lines",
        "brackets",
        "nested-f-strings",
    ],
)
def test_too_deep_is_found_by_the_nesting_scan(source: str, message: str) -> None:
    found = too_deep(source)
    assert found is not None and message in found.message


def test_the_scan_names_the_line_where_the_deep_expression_starts() -> None:
    source = HEAD + "@shared_task\ndef f():\n    return (\n        " + links(MAX_LINKS + 1) + "\n    )\n"
    problems: List[str] = [f"{p.line}:{p.column} {p.message}" for p in lint_source(source, "deep.py").problems]
    assert problems == ["7:1 file is nested too deeply to analyse"]


# The deepest expressions the scan lets through, inside the reported call:
# libcst parses them and the analysis positions the finding within
# engine.RECURSION_LIMIT, on every Python (3.9's C stack included).
DEEPEST_ALLOWED = {
    "lambdas-in-198-brackets": lambda k: "(lambda: " * 198 + "lambda: " * k + "1" + ")" * 198,
    "sum-in-198-lists": lambda k: "[" * 198 + " + ".join(["order_id"] * k) + "]" * 198,
    "subscript-chain": lambda k: "order_id" + "[0]" * k,
}


def deepest_allowed(make: Callable[[int], str]) -> str:
    head = HEAD + "@shared_task\ndef notify(url, order_id):\n    requests.post(url, json="
    low, high = 0, 2 * MAX_LINKS
    while high - low > 1:
        middle = (low + high) // 2
        if too_deep(head + make(middle) + ")\n") is None:
            low = middle
        else:
            high = middle
    return head + make(low) + ")\n"


@pytest.mark.slow  # the limit itself, some 20 s (`make test-all`)
@pytest.mark.parametrize("case", sorted(DEEPEST_ALLOWED))
def test_the_deepest_code_the_scan_allows_is_analysed(tmp_path: pathlib.Path, case: str) -> None:
    path = tmp_path / "deep.py"
    path.write_text(deepest_allowed(DEEPEST_ALLOWED[case]))
    run = idemlint(str(path), cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert [row.split(" ", 2)[:2] for row in run.stdout.splitlines()] == [[f"{path}:7:5:", "IDM002"]]
