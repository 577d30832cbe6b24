"""``[tool.idemlint]``: every key, its effect, and every way to get it wrong."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
from typing import Callable, List

import pytest
from conftest import RunCli

from idemlint.cli import main
from idemlint.config import MAX_CONFIG_BYTES, ConfigError, Configurations, load_settings

IDEMLINT = shutil.which("idemlint", path=os.path.dirname(sys.executable)) or "idemlint"

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
    assert Configurations().config_file(str(inner)) == str(tmp_path / "pyproject.toml")
    (inner / "pyproject.toml").write_text("[tool.idemlint]\n")
    assert Configurations().config_file(str(inner)) == str(inner / "pyproject.toml")


@pytest.mark.parametrize(
    "table, message",
    [
        ('bogus = 1', "unknown key 'bogus'"),
        ('select = "IDM002"', "'select' in [tool.idemlint] must be a list of strings"),
        ('ignore = ["E501"]', "'E501' is not an idemlint code"),
        ('extend-select = ["idm999"]', "unknown code 'idm999'; did you mean 'IDM009'?"),
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


def test_flake8_reports_a_broken_table_on_every_file_and_goes_on(tmp_path: pathlib.Path) -> None:
    project(tmp_path, "[tool.idemlint]\nbogus = 1\n")
    (tmp_path / "app" / "style.py").write_text(STYLE_ERRORS)
    run = flake8_run(tmp_path, "--select", "IDM,F", "app/style.py", "app/tasks.py")
    assert run.returncode == 1 and run.stderr == ""
    lines = run.stdout.splitlines()
    assert [line.split(": ")[0] + " " + line.split()[1] for line in lines] == [
        "app/style.py:1:1 IDM901", "app/style.py:1:1 F401", "app/tasks.py:1:1 IDM901"
    ]  # flake8's own checks ran
    assert "invalid idemlint configuration: " in lines[0] and "unknown key 'bogus'" in lines[0]


# --------------------------------------------------------------------------
# A pyproject.toml idemlint cannot use, anywhere up the tree: one line naming
# the file and the key, in the CLI (exit 2, nothing analysed) and under
# flake8 (one IDM901 line per file, flake8's other checks still run).

STYLE_ERRORS = "import os\nx=1\n"  # F401 and E225 for flake8's own checks


def write_text(text: str) -> Callable[[pathlib.Path], None]:
    def write(path: pathlib.Path) -> None:
        path.write_text(text, encoding="utf-8")

    return write


def write_bytes(data: bytes) -> Callable[[pathlib.Path], None]:
    def write(path: pathlib.Path) -> None:
        path.write_bytes(data)

    return write


def make_directory(path: pathlib.Path) -> None:
    path.mkdir()


def make_fifo(path: pathlib.Path) -> None:
    os.mkfifo(path)


def link_to_dev_zero(path: pathlib.Path) -> None:
    path.symlink_to("/dev/zero")


def make_huge(path: pathlib.Path) -> None:
    with open(path, "wb") as handle:  # sparse: no disk used
        handle.truncate(MAX_CONFIG_BYTES + 1)


BROKEN_FILES = [
    ("tool-integer", write_text("tool = 5\n"), "'tool' must be a table, not an integer"),
    ("tool-string", write_text('tool = "idemlint"\n'), "'tool' must be a table, not a string"),
    ("tool-array", write_text("tool = [1]\n"), "'tool' must be a table, not an array"),
    ("idemlint-integer", write_text("[tool]\nidemlint = 5\n"), "'tool.idemlint' must be a table, not an integer"),
    ("idemlint-array", write_text("[tool]\nidemlint = []\n"), "'tool.idemlint' must be a table, not an array"),
    ("list-element", write_text('[tool.idemlint]\nselect = ["IDM", 5]\n'),
     "'select' in [tool.idemlint] must be a list of strings: item 2 is an integer"),
    ("exclude-element", write_text('[tool.idemlint]\nexclude = [["build"]]\n'),
     "'exclude' in [tool.idemlint] must be a list of strings: item 1 is an array"),
    ("per-file-ignores-value", write_text('[tool.idemlint]\nper-file-ignores = { "tests/*" = "IDM" }\n'),
     "'per-file-ignores' in [tool.idemlint], 'tests/*' must be a list of strings, not a string"),
    ("per-file-ignores-element", write_text('[tool.idemlint]\nper-file-ignores = { "x" = [{}] }\n'),
     "'per-file-ignores' in [tool.idemlint], 'x' must be a list of strings: item 1 is a table"),
    ("side-effects-array", write_text('[tool.idemlint]\nside-effects = ["a.b"]\n'),
     "'side-effects' in [tool.idemlint] must be a table with 'keyable' and 'non-keyable' lists, not an array"),
    ("side-effects-list", write_text('[tool.idemlint.side-effects]\nkeyable = "a.*"\n'),
     "'side-effects' in [tool.idemlint]: 'keyable' must be a list of strings, not a string"),
    ("side-effects-element", write_text('[tool.idemlint.side-effects]\nnon-keyable = [true]\n'),
     "'side-effects' in [tool.idemlint]: 'non-keyable' must be a list of strings: item 1 is a boolean"),
    ("nested-braces", write_text('[tool.idemlint.side-effects]\nkeyable = ["a.{b,{c}}"]\n'),
     "invalid pattern 'a.{b,{c}}' (nested '{')"),
    ("stray-brace", write_text('[tool.idemlint.side-effects]\nkeyable = ["a.b}"]\n'),
     "invalid pattern 'a.b}' ('}' without '{')"),
    ("empty-pattern", write_text('[tool.idemlint.side-effects]\nkeyable = [""]\n'), "invalid pattern '' (empty)"),
    ("too-many-alternatives", write_text('[tool.idemlint.side-effects]\nkeyable = ["' + "{a,b}" * 11 + '"]\n'),
     "expand to more than 1024 alternatives"),
    ("task-decorator", write_text('[tool.idemlint]\ntask-decorators = ["my task"]\n'),
     "'task-decorators' in [tool.idemlint]: 'my task' is not a name or a dotted name"),
    ("task-decorator-empty", write_text('[tool.idemlint]\ntask-decorators = ["app..task"]\n'),
     "'app..task' is not a name or a dotted name"),
    ("control-characters", write_text('[tool.idemlint]\nselect = ["IDM\\u001b[2J\\n"]\n'),
     "'IDM\\x1b[2J\\n' is not an idemlint code"),
    ("unknown-key-control", write_text('[tool.idemlint]\n"\\u001b]0;x" = 1\n'), "unknown key '\\x1b]0;x'"),
    ("not-toml", write_text("[tool.idemlint\n"), "invalid TOML"),
    ("not-utf8", write_bytes(b"[tool.idemlint]\n# caf\xe9\n"), "not UTF-8 (byte 22)"),
    ("nested-too-deeply", write_text("x = " + "[" * 5000 + "]" * 5000 + "\n"), "invalid TOML: nested too deeply"),
    ("directory", make_directory, "not a regular file (a directory)"),
    ("fifo", make_fifo, "not a regular file (a FIFO)"),
    ("device", link_to_dev_zero, "not a regular file (a character device)"),
    ("huge", make_huge, "larger than 4 MiB"),
]


def broken_project(tmp_path: pathlib.Path, make: Callable[[pathlib.Path], None]) -> pathlib.Path:
    """A repository whose pyproject.toml (one directory above the checked
    package) is broken, the package holding a buggy task and a file with
    flake8 style errors."""
    repository = tmp_path / "repository"
    package = repository / "app"
    package.mkdir(parents=True)
    (package / "tasks.py").write_text(BUGGY_TASK)
    (package / "style.py").write_text(STYLE_ERRORS)
    make(repository / "pyproject.toml")
    return repository


def assert_one_clean_line(line: str, message: str, config: pathlib.Path) -> None:
    assert message in line and str(config) in line
    assert "\x1b" not in line and "Traceback" not in line


# Broken files that do not name idemlint: another tool's, or a project
# template's; passed over, as if they were not there.
NOT_OURS = {"nested-too-deeply", "directory", "fifo", "device", "huge"}
OURS = [case for case in BROKEN_FILES if case[0] not in NOT_OURS]


@pytest.mark.parametrize("case", sorted(NOT_OURS) + ["template"])
def test_a_broken_pyproject_that_does_not_name_idemlint_is_passed_over(tmp_path: pathlib.Path, case: str) -> None:
    makers = {name: make for name, make, _ in BROKEN_FILES}
    makers["template"] = write_text('[project]\nname = "{{cookiecutter.project}}"\nx = {a = \n')
    repository = broken_project(tmp_path, makers[case])
    run = subprocess.run(
        [IDEMLINT, "check", "--no-cache", "app"], capture_output=True, text=True, cwd=repository, timeout=60,
    )
    assert (run.returncode, run.stderr) == (1, "")
    assert " IDM002 " in run.stdout


@pytest.mark.sweep
@pytest.mark.parametrize("make, message", [case[1:] for case in OURS], ids=[case[0] for case in OURS])
def test_cli_reports_a_broken_pyproject_in_one_line_and_exits_2(
    tmp_path: pathlib.Path, make: Callable[[pathlib.Path], None], message: str
) -> None:
    repository = broken_project(tmp_path, make)
    run = subprocess.run(
        [IDEMLINT, "check", "--no-cache", "app"], capture_output=True, text=True, cwd=repository, timeout=60,
    )
    assert run.returncode == 2 and run.stdout == ""  # nothing analysed with half a configuration
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert_one_clean_line(lines[0], message, repository / "pyproject.toml")


@pytest.mark.sweep  # a flake8 process per broken file
@pytest.mark.parametrize("make, message", [case[1:] for case in OURS], ids=[case[0] for case in OURS])
def test_flake8_reports_a_broken_pyproject_once_per_file_and_runs_its_own_checks(
    tmp_path: pathlib.Path, make: Callable[[pathlib.Path], None], message: str
) -> None:
    repository = broken_project(tmp_path, make)
    run = flake8_run(repository, "--select", "E,F,W,IDM", "app/style.py", "app/tasks.py")
    assert run.returncode == 1 and run.stderr == "", run.stderr
    lines = run.stdout.splitlines()
    ours = [line for line in lines if " IDM" in line]
    assert [line.split(" ")[0] for line in ours] == ["app/style.py:1:1:", "app/tasks.py:1:1:"]
    for line in ours:
        assert line.split(" ")[1] == "IDM901"
        assert_one_clean_line(line, message, repository / "pyproject.toml")
    assert [line.split(" ")[1] for line in lines if " IDM" not in line] == ["F401", "E225"]


@pytest.mark.parametrize("case", ["tool-integer", "fifo", "list-element"])
def test_flake8_without_idm_selected_is_not_affected_by_a_broken_pyproject(
    tmp_path: pathlib.Path, case: str
) -> None:
    make = {name: make for name, make, _ in BROKEN_FILES}[case]
    repository = broken_project(tmp_path, make)
    broken = flake8_run(repository, "--select", "E,F,W", "app")
    (repository / "pyproject.toml").unlink()
    clean = flake8_run(repository, "--select", "E,F,W", "app")
    assert (broken.returncode, broken.stdout, broken.stderr) == (clean.returncode, clean.stdout, clean.stderr)
    assert broken.returncode == 1 and "F401" in broken.stdout


def test_flake8_task_decorators_option_is_checked(tmp_path: pathlib.Path) -> None:
    project(tmp_path, "[project]\nname = 'x'\n")
    run = flake8_run(tmp_path, "--select", "IDM", "--idemlint-task-decorators", "ok_task,not-ok", "app/tasks.py")
    assert run.returncode == 1 and run.stderr == ""
    assert run.stdout.splitlines() == [
        "app/tasks.py:1:1: IDM901 invalid idemlint configuration: flake8 option "
        "'idemlint-task-decorators': 'not-ok' is not a name or a dotted name; idemlint checked nothing"
    ]


def test_cli_task_decorator_option_is_checked(run_cli: RunCli, tmp_path: pathlib.Path) -> None:
    project(tmp_path, "[project]\nname = 'x'\n")
    status, out, err = run_cli("check", "--no-cache", "--task-decorator", "", str(tmp_path))
    assert status == 2 and out == ""
    assert "'' is not a name or a dotted name" in err


def test_a_fifo_is_passed_over_or_reported_instead_of_blocking_on_it(tmp_path: pathlib.Path) -> None:
    os.mkfifo(tmp_path / "pyproject.toml")
    assert Configurations().config_file(str(tmp_path)) is None  # it cannot name idemlint
    with pytest.raises(ConfigError, match="a FIFO"):
        load_settings(str(tmp_path / "pyproject.toml"))


@pytest.mark.parametrize("case", ["fifo", "device", "huge"])
def test_config_option_naming_a_file_idemlint_cannot_read_is_one_line(tmp_path: pathlib.Path, case: str) -> None:
    make, message = {name: (make, message) for name, make, message in BROKEN_FILES}[case]
    repository = broken_project(tmp_path, write_text("[tool.idemlint]\n"))
    make(tmp_path / "named.toml")
    run = subprocess.run(
        [IDEMLINT, "check", "--no-cache", "--config", str(tmp_path / "named.toml"), "app"],
        capture_output=True, text=True, cwd=repository, timeout=60,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.splitlines()) == 1 and "Traceback" not in run.stderr
    assert "named.toml" in run.stderr and message in run.stderr


def flake8_run(cwd: pathlib.Path, *args: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", *args],
        capture_output=True, text=True, cwd=cwd, timeout=120,
    )


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


# --------------------------------------------------------------------------
# Where a mistake is: the file's line (found in its text) and the nearest
# known spelling, in one line and exit 2.


@pytest.mark.parametrize(
    "text, line, message",
    [
        ('[project]\nname = "x"\n\n[tool.idemlint]\nselct = ["IDM002"]\n', 5,
         "unknown key 'selct' in [tool.idemlint]; did you mean 'select'?"),
        ('[tool.idemlint]\nselect = ["IDM"]\nper_file_ignores = {}\n', 3,
         "unknown key 'per_file_ignores' in [tool.idemlint]; did you mean 'per-file-ignores'?"),
        ('tool.idemlint.extend-exclde = ["x"]\n', 1,
         "unknown key 'extend-exclde' in [tool.idemlint]; did you mean 'extend-exclude'?"),
        ('[tool]\nidemlint = { ignroe = ["IDM004"] }\n', 2,
         "unknown key 'ignroe' in [tool.idemlint]; did you mean 'ignore'?"),
        ('[tool.idemlint]\nzzz = 1\n', 2, "unknown key 'zzz' in [tool.idemlint] (known: exclude, extend-exclude,"),
        ('[tool.idemlint.side-effects]\nkeyabel = ["a.b"]\n', 2,
         "unknown key 'keyabel' in [tool.idemlint.side-effects]; did you mean 'keyable'?"),
        ('[tool.idemlint]\nignore = [\n    "IDM004",\n    "IDM0004",\n]\n', 4,
         "'ignore' in [tool.idemlint]: 'IDM0004' is not an idemlint code or prefix (IDM, IDM00, IDM002); "
         "did you mean 'IDM004'?"),
        ('[tool.idemlint]\nselect = ["idm999"]\n', 2,
         "'select' in [tool.idemlint]: unknown code 'idm999'; did you mean 'IDM009'?"),
        ('[tool.idemlint.per-file-ignores]\n"tests/*" = ["IDM002"]\n"legacy/*" = ["IDM2"]\n', 3,
         "'per-file-ignores' in [tool.idemlint], 'legacy/*': unknown code 'IDM2'; did you mean 'IDM002'?"),
        ('[tool.idemlint]\nrespect-gitignore = "no"\n', 2,
         "'respect-gitignore' in [tool.idemlint] must be true or false, not a string"),
        ('[tool.idemlint]\n\n\ntask-decorators = ["ok", "not ok"]\n', 4,
         "'task-decorators' in [tool.idemlint]: 'not ok' is not a name or a dotted name"),
    ],
)
def test_a_mistake_is_reported_on_its_line_with_a_suggestion(
    tmp_path: pathlib.Path, run_cli: RunCli, text: str, line: int, message: str
) -> None:
    project(tmp_path, text)
    status, out, err = run_cli("check", "--no-cache", str(tmp_path))
    assert (status, out) == (2, "")
    assert err.startswith(f"Error: {tmp_path / 'pyproject.toml'}:{line}: {message}")
    assert len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("table", [
    '[tool.idemlint]\nselect = ["idm002"]\n',
    '[tool.idemlint]\nselect = ["Idm00"]\nignore = ["idm001"]\n',
    '[tool.idemlint]\nper-file-ignores = { "app/other.py" = ["idm"] }\n',
])
def test_codes_in_any_case(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], table: str) -> None:
    project(tmp_path, table)
    assert codes(tmp_path, capsys) == ["IDM002@10"]
    settings = load_settings(str(tmp_path / "pyproject.toml"))
    assert all(code == code.upper() for code in settings.select + settings.ignore)


def test_paths_in_a_table_are_relative_to_its_directory(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project(tmp_path, '[tool.idemlint]\nextend-exclude = ["app/tasks.py"]\n')
    (tmp_path / "nested" / "app").mkdir(parents=True)
    (tmp_path / "nested" / "app" / "tasks.py").write_text(BUGGY_TASK)
    monkeypatch.chdir(tmp_path / "nested")  # not where the table is
    assert codes(tmp_path, capsys) == ["IDM002@10"]  # nested/app/tasks.py only
    project(tmp_path, '[tool.idemlint]\nextend-exclude = ["tasks.py"]\n')  # a name: anywhere
    assert codes(tmp_path, capsys) == []


def test_the_cache_is_beside_the_configuration_of_the_common_directory(
    tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.idemlint]\n")
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "pyproject.toml").write_text("[tool.idemlint]\n")
        (tmp_path / name / "tasks.py").write_text(BUGGY_TASK)
    monkeypatch.chdir(tmp_path / "a")
    run_cli("check", str(tmp_path / "a"), str(tmp_path / "b"))
    assert [path.parent.name for path in tmp_path.rglob(".idemlint_cache")] == [tmp_path.name]
    run_cli("check", str(tmp_path / "b"))
    assert sorted(path.parent.name for path in tmp_path.rglob(".idemlint_cache")) == sorted([tmp_path.name, "b"])
