"""A bug in idemlint on one file is one IDM900 line for that file; the run goes on.

The bug is real code raising: a rule, position computation or module
indexing is patched to raise on one file (``fragile.py``) and work on the
others, in process (``--jobs 1``: worker processes would not see the patch).
"""

from __future__ import annotations

import ast
import pathlib
from typing import Any, Iterator, List

import pytest

from idemlint.cli import main
from idemlint.flake8_plugin import IdemlintChecker
from idemlint.rules import RULES_BY_CODE

TASK = """\
import requests
from celery import shared_task


@shared_task
def {name}(url, order_id):
    requests.post(url, json={{"order": order_id}})
"""


@pytest.fixture
def files(tmp_path: pathlib.Path) -> List[pathlib.Path]:
    fragile = tmp_path / "fragile.py"
    fragile.write_text(TASK.format(name="fragile"))
    sound = tmp_path / "sound.py"
    sound.write_text(TASK.format(name="sound"))
    return [fragile, sound]


@pytest.fixture
def idm002_raises_on_fragile(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = RULES_BY_CODE["IDM002"]
    original = type(rule).check

    def check(self: Any, facts: Any) -> Iterator[Any]:
        if facts.task.name == "fragile":
            raise ValueError("boom\nsecond line")
        return original(self, facts)  # type: ignore[no-any-return]

    monkeypatch.setattr(type(rule), "check", check)


def run_cli(capsys: pytest.CaptureFixture[str], paths: List[pathlib.Path]) -> tuple[int, str, str]:
    status = main(["check", "--jobs", "1", *map(str, paths)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_isolated(status: int, out: str, err: str, files: List[pathlib.Path], stage: str) -> None:
    fragile, sound = files
    assert status == 2
    assert "Traceback" not in out + err
    about_fragile = [line for line in out.splitlines() if line.startswith(str(fragile))]
    assert len(about_fragile) == 1, out
    line = about_fragile[0]
    assert line.startswith(f"{fragile}:1:1: IDM900 internal error in {stage} (")
    assert "ValueError: boom second line" in line  # the exception, on one line
    assert "Please report it with this file" in line and "'Reporting a bug' in the README" in line
    assert "IDEMLINT_DEBUG=1" in line
    assert f"{sound}:7:5: IDM002 `requests.post()` in task `sound`" in out


@pytest.mark.usefixtures("idm002_raises_on_fragile")
def test_a_rule_raising_on_one_file_is_one_line_and_the_others_are_reported(
    files: List[pathlib.Path], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_cli(capsys, files)
    assert_isolated(status, out, err, files, "IDM002")


def test_position_computation_raising_on_one_file_is_isolated(
    files: List[pathlib.Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import idemlint.positions

    original = idemlint.positions.locate

    def locate(pieces: Any, nodes: Any, lines: Any, likely: Any = ()) -> Any:
        trees = [piece.tree for piece in pieces]
        if any(n.name == "fragile" for t in trees for n in ast.walk(t) if isinstance(n, ast.FunctionDef)):
            raise ValueError("boom\nsecond line")
        return original(pieces, nodes, lines, likely)

    monkeypatch.setattr(idemlint.positions, "locate", locate)
    status, out, err = run_cli(capsys, files)
    assert_isolated(status, out, err, files, "position computation")


def test_module_indexing_raising_on_one_file_is_isolated(
    files: List[pathlib.Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import idemlint.project

    original = idemlint.project.build_index

    def build_index(module: Any, package: Any, **options: Any) -> Any:
        if "def fragile" in module.code:  # the task, parsed up front
            raise ValueError("boom\nsecond line")
        return original(module, package, **options)

    monkeypatch.setattr(idemlint.project, "build_index", build_index)
    status, out, err = run_cli(capsys, files)
    assert_isolated(status, out, err, files, "parsing and indexing")


@pytest.mark.usefixtures("idm002_raises_on_fragile")
def test_idemlint_debug_prints_the_traceback_on_stderr(
    files: List[pathlib.Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IDEMLINT_DEBUG", "1")
    status, out, err = run_cli(capsys, files)
    assert status == 2
    assert "Traceback" not in out  # stdout keeps one line per problem
    assert "Traceback (most recent call last)" in err and "ValueError: boom" in err


def plugin_lines(path: pathlib.Path) -> List[str]:
    text = path.read_text()
    checker = IdemlintChecker(ast.parse(text), text.splitlines(keepends=True), str(path))
    return [f"{line}:{column + 1}: {message}" for line, column, message, _ in checker.run()]


@pytest.mark.usefixtures("idm002_raises_on_fragile")
def test_flake8_plugin_yields_one_idm900_line_instead_of_raising(files: List[pathlib.Path]) -> None:
    fragile, sound = files
    (line,) = plugin_lines(fragile)
    assert line.startswith("1:1: IDM900 internal error in IDM002 (ValueError: boom second line)")
    assert [line.split(" ", 2)[:2] for line in plugin_lines(sound)] == [["7:5:", "IDM002"]]


def test_flake8_plugin_survives_the_engine_itself_raising(
    files: List[pathlib.Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import idemlint.flake8_plugin

    def lint_source(*args: Any, **kwargs: Any) -> Any:
        raise MemoryError("boom")

    monkeypatch.setattr(idemlint.flake8_plugin, "lint_source", lint_source)
    (line,) = plugin_lines(files[0])
    assert line.startswith("1:1: IDM900 internal error in the flake8 plugin (MemoryError: boom)")
