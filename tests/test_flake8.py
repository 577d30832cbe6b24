"""The flake8 plugin, through a real ``flake8`` subprocess.

``flake8 --select IDM`` must report exactly what ``idemlint check`` reports
for the same file.  flake8 runs with ``--isolated`` (no user or project
configuration) and from a temporary directory, so that ``python -m flake8``
imports the installed idemlint, not the source tree.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import List

import pytest

from idemlint.cli import main

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
FIXTURE_FILES = sorted(FIXTURES.rglob("*.py"))

BUGGY_TASK = """\
import requests
from celery import shared_task


@shared_task
def notify_warehouse(url, order_id):
    requests.post(url, json={{"order": order_id}}){comment}
"""


def flake8(*args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def idemlint_text(path: pathlib.Path, capsys: pytest.CaptureFixture[str], *options: str) -> List[str]:
    """The CLI's text lines, each with the note flake8 adds when the JSON
    format says the finding carries a fix."""
    status = main(["check", "--format", "text", *options, str(path)])
    out = capsys.readouterr().out
    assert status in (0, 1), out
    main(["check", "--format", "json", *options, str(path)])
    notes = {
        f"{f['path']}:{f['line']}:{f['column']}: {f['code']} ": FIX_NOTES[f["suggestion"]["applicability"]]
        for f in json.loads(capsys.readouterr().out)
        if f["suggestion"] is not None
    }
    return sorted(line + next((n for p, n in notes.items() if line.startswith(p)), "") for line in out.splitlines())


FIX_NOTES = {
    "safe": " [fix: `idemlint check --fix`]",
    "unsafe": " [unsafe fix: `idemlint check --fix --unsafe-fixes`]",
}


def write(tmp_path: pathlib.Path, source: str, name: str = "tasks.py") -> pathlib.Path:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return path


# One flake8 process per fixture, about two minutes in all, and the whole
# tree in one (below): `make test-all`.  The quick tier compares one fixture.
@pytest.mark.sweep
@pytest.mark.parametrize(
    "path", FIXTURE_FILES, ids=[str(p.relative_to(FIXTURES)) for p in FIXTURE_FILES]
)
def test_flake8_reports_what_the_cli_reports(
    path: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = flake8("--select", "IDM", str(path), cwd=tmp_path)
    assert "Traceback" not in result.stderr, result.stderr
    flake8_lines = sorted(result.stdout.splitlines())
    cli_lines = idemlint_text(path, capsys)
    assert flake8_lines == cli_lines
    assert result.returncode == (1 if cli_lines else 0)
    if path.parent.name == "clean":
        assert cli_lines == []
    if "# expect: IDM" in path.read_text(encoding="utf-8"):
        assert cli_lines  # so that the comparison above is not empty == empty


def test_flake8_says_which_findings_carry_a_fix(tmp_path: pathlib.Path) -> None:
    path = write(
        tmp_path,
        "import stripe\nfrom celery import shared_task\n\n\n@shared_task\n"
        "def charge_order(order_id):\n    stripe.Charge.create(amount=1)\n\n\n"
        "@shared_task\ndef payout():\n    stripe.Payout.create(amount=1)\n",
    )
    lines = flake8("--select", "IDM", str(path), cwd=tmp_path).stdout.splitlines()
    assert [line.split(": ", 1)[0] for line in lines] == [f"{path}:7:5", f"{path}:12:5"]
    # A key from `order_id` can be passed; `payout` has no argument to build one from.
    assert lines[0].endswith(FIX_NOTES["unsafe"])
    assert not lines[1].endswith("]")


@pytest.mark.slow  # 10 s (`make test-all`)
def test_flake8_on_the_whole_fixture_tree_in_parallel_matches_the_cli(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = flake8("--select", "IDM", "--jobs", "2", str(FIXTURES), cwd=tmp_path)
    assert sorted(result.stdout.splitlines()) == idemlint_text(FIXTURES, capsys)


def test_flake8_honours_noqa_for_the_code(tmp_path: pathlib.Path) -> None:
    unsuppressed = write(tmp_path, BUGGY_TASK.format(comment=""), "unsuppressed.py")
    suppressed = write(tmp_path, BUGGY_TASK.format(comment="  # noqa: IDM002"), "suppressed.py")
    other_code = write(tmp_path, BUGGY_TASK.format(comment="  # noqa: IDM001"), "other_code.py")
    result = flake8("--select", "IDM", str(unsuppressed), str(suppressed), str(other_code), cwd=tmp_path)
    reported = sorted(line.split(":")[0] for line in result.stdout.splitlines())
    assert reported == [str(other_code), str(unsuppressed)]


def test_flake8_and_cli_agree_on_noqa_after_a_multiline_call(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = BUGGY_TASK.format(comment="").replace(
        'requests.post(url, json={"order": order_id})',
        'requests.post(\n        url,\n        json={"order": order_id},\n    )  # noqa: IDM002',
    )
    path = write(tmp_path, source)
    result = flake8("--select", "IDM", str(path), cwd=tmp_path)
    assert sorted(result.stdout.splitlines()) == idemlint_text(path, capsys)


def test_flake8_reports_e999_for_an_unparsable_file_without_a_plugin_crash(tmp_path: pathlib.Path) -> None:
    broken = write(
        tmp_path,
        'import requests\nfrom celery import shared_task\n\n\n@shared_task\ndef f(url):\n    print "x"\n',
        "broken.py",
    )
    good = write(tmp_path, BUGGY_TASK.format(comment=""), "good.py")
    # E999 must be selected: `--select IDM` alone deselects flake8's own E999.
    result = flake8("--select", "E999,IDM", str(broken), str(good), cwd=tmp_path)
    assert "Traceback" not in result.stderr, result.stderr
    assert "plugin" not in result.stderr.lower(), result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(": ")[1].split()[0] for line in lines] == ["E999", "IDM002"]
    assert lines[0].startswith(f"{broken}:7:")
    assert lines[1].startswith(f"{good}:7:5: IDM002 ")


def _compile_rejects_nul_with_a_value_error() -> bool:
    try:
        compile("\0", "<nul>", "exec")
    except ValueError:
        return True
    except SyntaxError:
        return False
    return False


def test_flake8_survives_an_undecodable_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "binary.py"
    path.write_bytes(b"\xff\xfe\x00 from celery import shared_task\n\n@shared_task\ndef f(): pass\n")
    result = flake8("--select", "IDM", str(path), cwd=tmp_path)
    if _compile_rejects_nul_with_a_value_error():
        # Python 3.9 and 3.10: flake8 decodes the file (as UTF-16, for its BOM)
        # to text holding NUL, and its own ast.parse raises a ValueError that
        # flake8 does not catch, before any plugin runs: flake8's crash, in
        # which idemlint takes no part.
        assert result.stderr.rstrip().endswith("ValueError: source code string cannot contain null bytes")
        assert "in build_ast" in result.stderr and "idemlint" not in result.stderr, result.stderr
        return
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1)


def test_plugin_is_registered(tmp_path: pathlib.Path) -> None:
    result = flake8("--version", cwd=tmp_path)
    assert result.returncode == 0
    assert "idemlint" in result.stdout


def test_plugin_is_on_unless_a_select_leaves_it_out(tmp_path: pathlib.Path) -> None:
    """As the README says: flake8 reports a plugin's codes by default; a
    ``select`` names every code reported, and ``extend-select`` adds to it."""
    path = write(tmp_path, BUGGY_TASK.format(comment=""))

    def codes(*args: str) -> List[str]:
        result = flake8(*args, str(path), cwd=tmp_path)
        assert result.returncode in (0, 1) and result.stderr == "", result.stderr
        return [line.split()[1] for line in result.stdout.splitlines()]

    assert codes() == ["IDM002"]
    assert codes("--select", "E,W,F") == []
    assert codes("--select", "E,W,F", "--extend-select", "IDM") == ["IDM002"]
    assert codes("--select", "IDM") == ["IDM002"]


def test_task_decorators_option_matches_the_cli_option(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = (
        BUGGY_TASK.format(comment="")
        .replace("from celery import shared_task", "from myproject.tasks import instrumented_task")
        .replace("@shared_task", "@instrumented_task")
    )
    path = write(tmp_path, source)
    without = flake8("--select", "IDM", str(path), cwd=tmp_path)
    assert without.stdout == ""
    with_option = flake8(
        "--select", "IDM", "--idemlint-task-decorators", "instrumented_task", str(path), cwd=tmp_path
    )
    expected = idemlint_text(path, capsys, "--task-decorator", "instrumented_task")
    assert expected and sorted(with_option.stdout.splitlines()) == expected


def test_task_decorators_are_read_from_flake8_configuration(tmp_path: pathlib.Path) -> None:
    source = (
        BUGGY_TASK.format(comment="")
        .replace("from celery import shared_task", "from myproject.tasks import instrumented_task")
        .replace("@shared_task", "@instrumented_task")
    )
    write(tmp_path, source, "tasks.py")
    (tmp_path / "setup.cfg").write_text(
        "[flake8]\nextend-select = IDM\nidemlint-task-decorators = other, instrumented_task\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--config", "setup.cfg", "--select", "IDM", "tasks.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert result.stdout.startswith("tasks.py:7:5: IDM002 "), result.stdout + result.stderr


def test_a_broken_configuration_is_one_line_per_file_in_every_flake8_worker(tmp_path: pathlib.Path) -> None:
    (tmp_path / "pyproject.toml").write_text("tool = 5\n")
    names = [f"tasks_{number}.py" for number in range(4)]
    for name in names:
        write(tmp_path, BUGGY_TASK.format(comment=""), name)
    result = flake8("--select", "IDM", "--jobs", "2", *names, cwd=tmp_path)
    assert result.returncode == 1 and result.stderr == "", result.stderr
    assert sorted(result.stdout.splitlines()) == [
        f"{name}:1:1: IDM901 invalid idemlint configuration: {tmp_path / 'pyproject.toml'}:1: "
        "'tool' must be a table, not an integer; idemlint checked nothing"
        for name in names
    ]


def test_a_bug_in_reading_the_configuration_is_one_line_not_a_raise(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path
) -> None:
    import argparse
    import ast

    from idemlint import flake8_plugin

    def broken(path: object) -> None:
        raise RuntimeError("boom")

    from idemlint import config

    checker = flake8_plugin.IdemlintChecker
    # parse_options sets class attributes: monkeypatch restores them afterwards.
    monkeypatch.setattr(checker, "configurations", checker.configurations)
    monkeypatch.setattr(checker, "configuration_problem", checker.configuration_problem)
    monkeypatch.setattr(config, "load_settings", broken)
    monkeypatch.chdir(tmp_path)
    checker.parse_options(argparse.Namespace())
    lines = list(checker(ast.parse(""), ["x = 1\n"], "x.py").run())
    assert [(line, column) for line, column, _, _ in lines] == [(1, 0)]
    assert lines[0][2].startswith("IDM900 internal error in reading the configuration (RuntimeError: boom)")
