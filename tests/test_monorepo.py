"""Hierarchical configuration, as ruff's: each file gets the settings of the
nearest ``pyproject.toml`` with a ``[tool.idemlint]`` table, while a run
still analyses every file as one project (``tests/projects/monorepo``)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
from typing import List, Tuple

import pytest
from conftest import RunCli
from expectations import expectations, reported

from idemlint import engine, lint_paths
from idemlint.cache import Cache
from idemlint.config import Configurations, Overrides
from idemlint.settings import DEFAULT_SETTINGS, PathPattern

MONOREPO = pathlib.Path(__file__).parent / "projects" / "monorepo"
BILLING_TASKS = "billing/billing/tasks.py"
NOTIFY_TASKS = "notify/notify/tasks.py"


@pytest.fixture
def monorepo(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    root = tmp_path / "monorepo"
    shutil.copytree(MONOREPO, root)
    monkeypatch.chdir(root)
    return root


def relative(triples: List[Tuple[str, int, str]], root: pathlib.Path) -> List[Tuple[str, int, str]]:
    return sorted((os.path.relpath(os.path.abspath(path), root), line, code) for path, line, code in triples)


def test_each_file_gets_the_settings_of_its_nearest_pyproject(monorepo: pathlib.Path, run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", "billing", "notify")
    assert (status, err) == (1, "")
    # notify's @instrumented_task is a task there, IDM013 is reported in notify
    # only, billing's per-file-ignores and exclude (relative to billing/) hold.
    assert relative(reported(out), monorepo) == relative(expectations(monorepo), monorepo)


@pytest.mark.parametrize("where", [".", "billing", "notify/notify"])
def test_paths_in_a_configuration_are_relative_to_its_directory(
    monorepo: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    monkeypatch.chdir(monorepo / where)
    _, out, _ = run_cli("check", "--no-cache", str(monorepo))
    assert relative(reported(out), monorepo) == relative(expectations(monorepo), monorepo)


def test_the_hook_command_on_files_of_both_packages(monorepo: pathlib.Path, run_cli: RunCli) -> None:
    # What .pre-commit-hooks.yaml runs, with the files a commit touching both packages passes.
    files = [
        BILLING_TASKS, "billing/billing/legacy.py", "billing/billing/generated/tasks.py",
        "notify/notify/helpers.py", NOTIFY_TASKS,
    ]
    status, out, _ = run_cli("check", "--no-cache", "--force-exclude", "--project", ".", *files)
    assert status == 1
    assert relative(reported(out), monorepo) == relative(expectations(monorepo), monorepo)
    # A commit of billing's task alone: the helper it reaches in notify is
    # reported too (a related place in the named file), under notify's settings.
    _, out, _ = run_cli("check", "--no-cache", "--force-exclude", "--project", ".", BILLING_TASKS)
    assert relative(reported(out), monorepo) == [
        (BILLING_TASKS, 10, "IDM002"), ("notify/notify/helpers.py", 5, "IDM002")
    ]


def test_a_task_is_followed_into_the_other_package(monorepo: pathlib.Path) -> None:
    result = lint_paths(["billing", "notify"], Configurations())
    [helper] = [f for f in result.findings if f.path.endswith("helpers.py")]
    assert helper.callers == ("billing.tasks.charge",)


def test_config_option_applies_one_file_to_every_file(monorepo: pathlib.Path, run_cli: RunCli) -> None:
    _, out, _ = run_cli("check", "--no-cache", "--config", "notify/pyproject.toml", "billing", "notify")
    found = {(path, code) for path, _, code in relative(reported(out), monorepo)}
    # notify's table everywhere: billing's IDM013 is reported, its legacy file
    # and generated directory are checked, and only IDM002 and IDM013 are.
    assert (BILLING_TASKS, "IDM013") in found
    assert ("billing/billing/legacy.py", "IDM002") in found
    assert ("billing/billing/generated/tasks.py", "IDM002") in found
    assert {code for _, code in found} == {"IDM002", "IDM013"}


def test_command_line_options_apply_on_top_of_each_configuration(monorepo: pathlib.Path, run_cli: RunCli) -> None:
    _, out, _ = run_cli("check", "--no-cache", "--ignore", "idm002", "billing", "notify")
    assert [line.split(": ")[0] for line in out.splitlines()] == [f"{NOTIFY_TASKS}:9:5"]
    # --select replaces each table's selection; billing's own ignore still holds.
    _, out, _ = run_cli("check", "--no-cache", "--select", "IDM013", "billing", "notify")
    assert [line.split(": ")[0] for line in out.splitlines()] == [f"{NOTIFY_TASKS}:9:5"]
    _, out, _ = run_cli("check", "--no-cache", "--extend-select", "IDM001", "--ignore", "IDM013", "notify")
    assert [line.split(": ")[0] for line in out.splitlines()] == [f"{NOTIFY_TASKS}:8:5"]


def test_a_directory_is_excluded_by_the_configuration_of_the_one_holding_it(
    monorepo: pathlib.Path, run_cli: RunCli
) -> None:
    (monorepo / "pyproject.toml").write_text('[tool.idemlint]\nextend-exclude = ["notify"]\n')
    _, out, _ = run_cli("check", "--no-cache", ".")
    assert sorted(line.split(":")[0] for line in out.splitlines()) == [f"./{BILLING_TASKS}"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_any_number_of_workers_gives_the_same_findings(monorepo: pathlib.Path, jobs: int) -> None:
    assert lint_paths(["."], Configurations(), jobs=jobs) == lint_paths(["."], Configurations(), jobs=1)


def test_cache_keys_hold_the_settings_each_file_was_analysed_with(
    monorepo: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_dir = str(tmp_path / "cache")

    def run(cache: bool = True) -> engine.LintResult:
        return lint_paths(["."], Configurations(), cache=Cache(cache_dir, DEFAULT_SETTINGS) if cache else None)

    cold = run()
    assert cold == run(cache=False)
    with monkeypatch.context() as patched:
        patched.setattr(engine, "_analyse_chunks", None)  # a warm run analyses nothing
        assert run() == cold
    # notify stops selecting IDM002: its own findings go, whichever task reached them.
    notify = monorepo / "notify" / "pyproject.toml"
    notify.write_text(notify.read_text().replace('select = ["IDM002", "IDM013"]', 'select = ["IDM013"]'))
    assert run() == run(cache=False)
    assert {(pathlib.Path(f.path).name, f.code) for f in run().findings} == {("tasks.py", "IDM002"), ("tasks.py", "IDM013")}
    # billing stops ignoring IDM013: its task file is analysed again under the new settings.
    billing = monorepo / "billing" / "pyproject.toml"
    billing.write_text(billing.read_text().replace('ignore = ["idm013"]', "ignore = []"))
    assert run() == run(cache=False)
    assert sum(f.code == "IDM013" for f in run().findings) == 2


def test_tasks_lists_each_package_with_its_own_decorators(monorepo: pathlib.Path, run_cli: RunCli) -> None:
    status, out, _ = run_cli("tasks", "billing", "notify")
    assert status == 0
    names = [line.split()[2] for line in out.splitlines()]
    assert names == ["billing.legacy.refund", "billing.tasks.charge", "notify.tasks.notify"]


def test_flake8_gives_each_file_its_nearest_configuration(monorepo: pathlib.Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "IDM", BILLING_TASKS, NOTIFY_TASKS],
        capture_output=True, text=True, cwd=monorepo, timeout=120,
    )
    assert sorted(line.split(": ")[0] + " " + line.split()[1] for line in run.stdout.splitlines()) == [
        f"{BILLING_TASKS}:10:5 IDM002", f"{NOTIFY_TASKS}:8:5 IDM002", f"{NOTIFY_TASKS}:9:5 IDM013",
    ], run.stdout + run.stderr


def test_a_broken_configuration_of_one_package_stops_the_run(monorepo: pathlib.Path, run_cli: RunCli) -> None:
    (monorepo / "notify" / "pyproject.toml").write_text('[tool.idemlint]\nselect = ["IDM002"]\nignor = []\n')
    status, out, err = run_cli("check", "--no-cache", "billing", "notify")
    assert (status, out) == (2, "")
    assert err.strip().splitlines() == [
        f"Error: {monorepo / 'notify' / 'pyproject.toml'}:3: unknown key 'ignor' in [tool.idemlint]; "
        "did you mean 'ignore'?"
    ]


# --- --show-settings -------------------------------------------------------


def test_show_settings_names_the_file_and_every_setting(monorepo: pathlib.Path, run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--show-settings", NOTIFY_TASKS)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[:3] == [
        f"Settings for: {NOTIFY_TASKS}",
        f"Configuration file: {monorepo / 'notify' / 'pyproject.toml'}",
        f"Paths are relative to: {monorepo / 'notify'}",
    ]
    assert 'select = ["IDM002", "IDM013"]' in lines
    assert 'task-decorators = ["instrumented_task"]' in lines
    assert "respect-gitignore = true" in lines
    keys = [line.split(" = ")[0] for line in lines[4:]]
    assert keys == [
        "select", "ignore", "per-file-ignores", "exclude", "extend-exclude", "respect-gitignore",
        "task-decorators", "key-arguments", "side-effects.keyable", "side-effects.non-keyable",
    ]


def test_show_settings_of_the_other_package_and_with_options(monorepo: pathlib.Path, run_cli: RunCli) -> None:
    status, out, _ = run_cli(
        "check", "--show-settings", "--extend-select", "idm800", "--no-respect-gitignore",
        "--extend-exclude", "vendor", "billing",
    )
    assert status == 0
    lines = out.splitlines()
    assert f"Configuration file: {monorepo / 'billing' / 'pyproject.toml'}" in lines
    assert 'select = ["IDM", "IDM800"]' in lines
    assert 'ignore = ["IDM013"]' in lines  # upper-cased
    assert 'per-file-ignores = { "billing/legacy.py" = ["IDM002"] }' in lines
    # --extend-exclude is relative to the current directory, not to billing/.
    assert f'extend-exclude = ["billing/generated", "{monorepo / "vendor"}"]' in lines
    assert "respect-gitignore = false" in lines


def test_show_settings_without_a_configuration(tmp_path: pathlib.Path, run_cli: RunCli) -> None:
    (tmp_path / "tasks.py").write_text("")
    status, out, _ = run_cli("check", "--show-settings", str(tmp_path / "tasks.py"))
    assert status == 0
    assert "Configuration file: none (the defaults)" in out.splitlines()
    assert 'select = ["IDM"]' in out.splitlines()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["a.py", "b.py"], "--show-settings shows the settings of one path"),
        (["missing.py"], "no such file or directory"),
    ],
)
def test_show_settings_of_a_bad_path_is_a_usage_error(
    monorepo: pathlib.Path, run_cli: RunCli, argv: List[str], message: str
) -> None:
    (monorepo / "a.py").write_text("")
    (monorepo / "b.py").write_text("")
    status, out, err = run_cli("check", "--show-settings", *argv)
    assert (status, out) == (2, "")
    assert message in err and "Traceback" not in err


def test_show_settings_reports_a_broken_configuration(monorepo: pathlib.Path, run_cli: RunCli) -> None:
    (monorepo / "notify" / "pyproject.toml").write_text("[tool.idemlint]\nselect = [\n  'IDM02',\n]\n")
    status, out, err = run_cli("check", "--show-settings", NOTIFY_TASKS)
    assert (status, out) == (2, "")
    assert err.strip() == (
        f"Error: {monorepo / 'notify' / 'pyproject.toml'}:3: 'select' in [tool.idemlint]: "
        "unknown code 'IDM02'; did you mean 'IDM002'?"
    )


# --- command-line path options ------------------------------------------------


def test_extend_exclude_and_per_file_ignores_on_the_command_line(monorepo: pathlib.Path, run_cli: RunCli) -> None:
    _, out, _ = run_cli("check", "--no-cache", "--extend-exclude", "notify/notify/helpers.py", "billing", "notify")
    assert "helpers.py" not in out
    _, out, _ = run_cli(
        "check", "--no-cache", "--extend-per-file-ignores", "notify/*:idm002 billing/billing/tasks.py:IDM", "."
    )
    assert [line.split(": ")[0] for line in out.splitlines()] == [f"./{NOTIFY_TASKS}:9:5"]
    # --per-file-ignores replaces billing's table: its legacy file is reported again.
    _, out, _ = run_cli("check", "--no-cache", "--per-file-ignores", "notify/*:IDM002,IDM013", "billing", "notify")
    assert sorted(line.split(":")[0] for line in out.splitlines()) == ["billing/billing/legacy.py", BILLING_TASKS]


@pytest.mark.parametrize(
    "value, message",
    [
        ("tests/*", "a file pattern needs ':' and codes after it"),
        ("tests/*:", "a file pattern needs ':' and codes after it"),
        (":IDM002", "codes without a file pattern before ':'"),
        ("tests/*:E501", "'E501' is not an idemlint code or prefix"),
        ("tests/*:IDM02", "unknown code 'IDM02'; did you mean 'IDM002'?"),
    ],
)
def test_bad_per_file_ignores_option_is_a_usage_error(run_cli: RunCli, value: str, message: str) -> None:
    status, out, err = run_cli("check", "--per-file-ignores", value, ".")
    assert (status, out) == (2, "")
    assert message in err and "Traceback" not in err


def test_per_file_ignores_option_reads_flake8s_syntax() -> None:
    import click

    from idemlint.cli import _per_file_ignores

    parsed = _per_file_ignores(
        click.Context(click.Command("x")), click.Option(["--x"]), ("a.py b/*:IDM002, idm003", "c.py:IDM")
    )
    root = os.getcwd()
    assert parsed == (
        (PathPattern("a.py", root), ("IDM002", "IDM003")),
        (PathPattern("b/*", root), ("IDM002", "IDM003")),
        (PathPattern("c.py", root), ("IDM",)),
    )


def test_overrides_replace_or_add_as_ruffs_options() -> None:
    pattern = PathPattern("x", "/")
    configured = DEFAULT_SETTINGS.__class__(select=("IDM001",), ignore=("IDM002",), per_file_ignores=((pattern, ("IDM",)),))
    applied = Overrides(select=("IDM003",), extend_select=("IDM800",), ignore=("IDM004",)).apply(configured)
    assert (applied.select, applied.ignore, applied.per_file_ignores) == (
        ("IDM003", "IDM800"), ("IDM002", "IDM004"), ((pattern, ("IDM",)),)
    )
    assert Overrides(per_file_ignores=()).apply(configured).per_file_ignores == ()
