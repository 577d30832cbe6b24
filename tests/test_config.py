"""``[tool.idemlint]``: every key, its effect, and every way to get it wrong."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap
from typing import List

import pytest
from conftest import RunCli

from idemlint.cli import main
from idemlint.config import ConfigError, find_config, load_settings

BUGGY_TASK = textwrap.dedent(
    """\
    import requests
    import stripe
    from celery import shared_task
    from myproject.billing import ledger
    from myproject.instrumentation import instrumented_task


    @shared_task
    def notify(order_id):
        requests.post("https://partner.example/orders", json={"id": order_id})


    @instrumented_task(name="x")
    def charge(order_id):
        stripe.Charge.create(amount=100, currency="eur")


    @shared_task
    def post_ledger(order_id):
        ledger.client.charge(order_id)
        ledger.client.charge(order_id, dedupe_token=f"ledger-{order_id}")
    """
)


def project(tmp_path: pathlib.Path, table: str) -> pathlib.Path:
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(table))
    package = tmp_path / "app"
    package.mkdir(exist_ok=True)
    (package / "tasks.py").write_text(BUGGY_TASK)
    return tmp_path


def codes(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], *args: str) -> List[str]:
    main(["check", *args, str(tmp_path)])
    out = capsys.readouterr().out
    return [line.split(": ")[1].split()[0] + "@" + line.split(":")[1] for line in out.splitlines()]


def test_no_table_means_defaults(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, "[project]\nname = 'x'\n")
    assert codes(tmp_path, capsys) == ["IDM002@10"]


def test_select_and_ignore(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, '[tool.idemlint]\nselect = ["IDM001"]\n')
    assert codes(tmp_path, capsys) == []
    project(tmp_path, '[tool.idemlint]\nignore = ["IDM002"]\n')
    assert codes(tmp_path, capsys) == []


def test_extend_select_adds_to_select(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, '[tool.idemlint]\nselect = ["IDM001"]\nextend-select = ["IDM002"]\n')
    assert codes(tmp_path, capsys) == ["IDM002@10"]


def test_command_line_select_overrides_the_file(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project(tmp_path, '[tool.idemlint]\nselect = ["IDM001"]\n')
    assert codes(tmp_path, capsys, "--select", "IDM002") == ["IDM002@10"]


def test_per_file_ignores(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, '[tool.idemlint]\nper-file-ignores = { "app/tasks.py" = ["IDM002"] }\n')
    assert codes(tmp_path, capsys) == []
    project(tmp_path, '[tool.idemlint]\nper-file-ignores = { "other/*.py" = ["IDM002"] }\n')
    assert codes(tmp_path, capsys) == ["IDM002@10"]


def test_extend_exclude_and_exclude(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, '[tool.idemlint]\nextend-exclude = ["app"]\n')
    assert codes(tmp_path, capsys) == []
    # exclude replaces the default skips: a "build" directory is checked again.
    project(tmp_path, '[tool.idemlint]\nexclude = []\n')
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "tasks.py").write_text(BUGGY_TASK)
    assert codes(tmp_path, capsys) == ["IDM002@10", "IDM002@10"]


def test_task_decorators(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, '[tool.idemlint]\ntask-decorators = ["instrumented_task"]\n')
    assert codes(tmp_path, capsys) == ["IDM002@10", "IDM002@15"]


def test_side_effects_and_key_arguments(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(
        tmp_path,
        """\
        [tool.idemlint]
        key-arguments = ["dedupe_token"]

        [tool.idemlint.side-effects]
        keyable = ["myproject.billing.ledger.client.charge"]
        non-keyable = ["myproject.notify.*"]
        """,
    )
    assert codes(tmp_path, capsys) == ["IDM002@10", "IDM002@20"]


def test_explicit_config_file(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(tmp_path, "[project]\nname = 'x'\n")
    other = tmp_path / "strict.toml"
    other.write_text('[tool.idemlint]\nignore = ["IDM"]\n')
    assert codes(tmp_path, capsys, "--config", str(other)) == []


def test_nearest_table_wins(tmp_path: pathlib.Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.idemlint]\nignore = ["IDM001"]\n')
    inner = tmp_path / "service"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project]\nname = 'service'\n")
    assert find_config([str(inner)]) == str(tmp_path / "pyproject.toml")
    (inner / "pyproject.toml").write_text("[tool.idemlint]\n")
    assert find_config([str(inner)]) == str(inner / "pyproject.toml")


@pytest.mark.parametrize(
    "table, message",
    [
        ('bogus = 1', "unknown key 'bogus'"),
        ('select = "IDM002"', "'select' in [tool.idemlint] must be a list of strings"),
        ('ignore = ["E501"]', "'E501' is not an idemlint code"),
        ('extend-select = ["idm002"]', "'idm002' is not an idemlint code"),
        ('per-file-ignores = ["tests/*"]', "'per-file-ignores' in [tool.idemlint] must be a table"),
        ('per-file-ignores = { "tests/*" = ["X1"] }', "'X1' is not an idemlint code"),
        ('exclude = "build"', "'exclude' in [tool.idemlint] must be a list of strings"),
        ('extend-exclude = [1]', "'extend-exclude' in [tool.idemlint] must be a list of strings"),
        ('task-decorators = "instrumented_task"', "'task-decorators'"),
        ('key-arguments = ["not a name"]', "'not a name' is not an argument or header name"),
        ('side-effects = ["x.y"]', "'side-effects' in [tool.idemlint] must be a table"),
        ('side-effects = { paid = ["x"] }', "unknown key 'paid'"),
        ('side-effects = { keyable = ["x.{a,b"] }', "invalid pattern"),
        ('select = [', "invalid TOML"),
    ],
)
def test_bad_configuration_is_one_line_and_exit_2(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], table: str, message: str
) -> None:
    project(tmp_path, f"[tool.idemlint]\n{table}\n")
    assert main(["check", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no analysis with half a configuration
    error_lines = captured.err.strip().splitlines()
    assert len(error_lines) == 1
    assert message in error_lines[0] and "pyproject.toml" in error_lines[0]
    assert "Traceback" not in captured.err


def test_load_settings_rejects_a_file_without_the_table(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text("[project]\n")
    with pytest.raises(ConfigError, match="no \\[tool.idemlint\\] table"):
        load_settings(str(config))


def test_flake8_reads_the_same_table(tmp_path: pathlib.Path) -> None:
    project(tmp_path, '[tool.idemlint]\ntask-decorators = ["instrumented_task"]\nignore = ["IDM001"]\n')
    run = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "IDM", "app/tasks.py"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert [line.split(":")[1] for line in run.stdout.splitlines()] == ["10", "15"]


def test_flake8_stops_on_a_broken_table(tmp_path: pathlib.Path) -> None:
    project(tmp_path, "[tool.idemlint]\nbogus = 1\n")
    run = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "IDM", "app/tasks.py"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert run.returncode == 2
    assert "unknown key 'bogus'" in run.stderr and "Traceback" not in run.stderr


# --------------------------------------------------------------------------
# Configured side-effect globs are matched without backtracking: a glob of
# 6 stars took 17 s on a 93-character name, one of 20 never finished.

LONG_NAME_TASK = textwrap.dedent(
    """    from celery import shared_task
    from myproject import {module}


    @shared_task
    def settle(order_id):
        {module}.charge(order_id)
    """
)


@pytest.mark.parametrize("stars", [6, 20, 100])
def test_configured_globs_with_many_stars_finish_on_a_long_name(
    run_cli: RunCli, tmp_path: pathlib.Path, stars: int
) -> None:
    module = "a" * 120
    (tmp_path / "tasks.py").write_text(LONG_NAME_TASK.format(module=module))
    almost = "myproject." + "*a" * stars + "*z*"  # backtracks through every split of the name
    matches = "myproject." + "*a" * stars + "*.charge"
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.idemlint.side-effects]\nkeyable = ["{almost}"]\nnon-keyable = []\n'
    )
    status, out, _ = run_cli("check", "--no-cache", str(tmp_path))
    assert (status, out) == (0, "")
    (tmp_path / "pyproject.toml").write_text(f'[tool.idemlint.side-effects]\nkeyable = ["{matches}"]\n')
    status, out, _ = run_cli("check", "--no-cache", str(tmp_path))
    assert status == 1 and out.count(" IDM002 ") == 1 and ".charge()` in task `settle`" in out


def test_per_file_ignores_with_many_stars_finish(run_cli: RunCli, tmp_path: pathlib.Path) -> None:
    project(tmp_path, '[tool.idemlint]\nper-file-ignores = { "' + "*a" * 100 + '*z*" = ["IDM"] }\n')
    deep = tmp_path / ("a" * 200)
    deep.mkdir()
    (deep / "tasks.py").write_text(BUGGY_TASK)
    status, out, _ = run_cli("check", "--no-cache", str(tmp_path))
    assert status == 1 and out.count(" IDM002 ") == 2
