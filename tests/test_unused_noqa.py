"""``--show-unused-noqa``: ``# noqa: IDMnnn`` comments that suppress nothing (IDM800)."""

from __future__ import annotations

import pathlib
from typing import List

import pytest
from conftest import RunCli

from idemlint.cli import main
from idemlint.rules import RULES_BY_CODE

TASK = """\
import requests
from celery import shared_task

@shared_task
def notify(order_id):
    requests.post('https://partner.example/orders', json={{'id': order_id}}){post_comment}
    requests.get('https://partner.example/orders'){get_comment}
"""


def write(project: pathlib.Path, post_comment: str = "", get_comment: str = "") -> None:
    (project / "tasks.py").write_text(TASK.format(post_comment=post_comment, get_comment=get_comment))


@pytest.fixture
def project(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_noqa_on_a_clean_line_is_reported(project: pathlib.Path, run_cli: RunCli) -> None:
    write(project, post_comment="  # noqa: IDM002", get_comment="  # noqa: IDM002")
    status, out, _ = run_cli("check", "--show-unused-noqa", "tasks.py")
    assert status == 1
    assert out == (
        "tasks.py:7:53: IDM800 unused `# noqa` for IDM002: no IDM002 finding on this line to suppress\n"
    )


def test_only_without_the_option(project: pathlib.Path, run_cli: RunCli) -> None:
    write(project, get_comment="  # noqa: IDM002")
    status, out, _ = run_cli("check", "tasks.py")
    assert status == 1 and "IDM800" not in out


@pytest.mark.parametrize(
    "comment", ["  # noqa", "  # noqa: E501", "  # noqa:E501,W291", "  # type: ignore"]
)
def test_comments_for_other_tools_are_left_alone(
    project: pathlib.Path, run_cli: RunCli, comment: str
) -> None:
    write(project, post_comment="  # noqa: IDM00", get_comment=comment)
    assert run_cli("check", "--show-unused-noqa", "tasks.py") == (0, "", "")


def test_only_the_idemlint_codes_of_a_mixed_comment(project: pathlib.Path, run_cli: RunCli) -> None:
    write(project, post_comment="  # noqa: IDM002", get_comment="  # noqa: E501, IDM013")
    _, out, _ = run_cli("check", "--show-unused-noqa", "tasks.py")
    assert "unused `# noqa` for IDM013:" in out and "E501" not in out


def test_a_code_the_run_does_not_check_is_not_reported(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    write(project, post_comment="  # noqa: IDM002", get_comment="  # noqa: IDM013")
    assert run_cli("check", "--show-unused-noqa", "--ignore", "IDM013", "tasks.py") == (0, "", "")


def test_files_without_tasks_are_read_too(project: pathlib.Path, run_cli: RunCli) -> None:
    (project / "helpers.py").write_text("import os\nHOME = os.environ['HOME']  # noqa: IDM001\n")
    status, out, _ = run_cli("check", "--show-unused-noqa", ".")
    assert status == 1 and out.startswith("./helpers.py:2:28: IDM800 ")


def test_review_and_sarif_describe_it(project: pathlib.Path, run_cli: RunCli) -> None:
    write(project, get_comment="  # noqa: IDM002")
    _, out, _ = run_cli("check", "--show-unused-noqa", "--format", "review", "tasks.py")
    assert "IDM800 [unused-noqa] (configuration)" in out
    _, out, _ = run_cli("check", "--show-unused-noqa", "--format", "sarif", "tasks.py")
    assert '"id": "IDM800"' in out


def test_it_is_not_a_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert "IDM800" not in RULES_BY_CODE
    main(["rules"])
    assert "IDM800" not in capsys.readouterr().out
    assert not (pathlib.Path(__file__).parent.parent / "docs" / "rules" / "IDM800.md").exists()


def test_an_upper_case_noqa_is_read_like_flake8_reads_it(
    project: pathlib.Path, run_cli: RunCli
) -> None:
    write(project, get_comment="  # NOQA:IDM002")
    status, out, _ = run_cli("check", "--show-unused-noqa", "tasks.py")
    assert [line.split()[1] for line in out.splitlines()] == ["IDM002", "IDM800"]
    assert out.splitlines()[1].startswith("tasks.py:7:")


# IDM800 is selected like the rules' codes, as ruff's RUF100 is: --select
# that leaves it out leaves the report out (and says so), --extend-select
# or naming it keeps it.

UNUSED = "tasks.py:7:53: IDM800 unused `# noqa` for IDM002: no IDM002 finding on this line to suppress\n"


def test_select_that_leaves_idm800_out_reports_none_and_says_so(project: pathlib.Path, run_cli: RunCli) -> None:
    write(project, post_comment="  # noqa: IDM002", get_comment="  # noqa: IDM002")
    status, out, err = run_cli("check", "--show-unused-noqa", "--select", "IDM002", "tasks.py")
    assert (status, out) == (0, "")
    assert err == (
        "idemlint: warning: --show-unused-noqa reports nothing: IDM800 is not selected "
        "(add it: --extend-select IDM800)\n"
    )


@pytest.mark.parametrize(
    "options",
    [["--select", "IDM002,IDM800"], ["--select", "idm002", "--extend-select", "idm800"], ["--select", "IDM0,IDM8"]],
)
def test_selecting_idm800_keeps_the_report(project: pathlib.Path, run_cli: RunCli, options: List[str]) -> None:
    write(project, post_comment="  # noqa: IDM002", get_comment="  # noqa: IDM002")
    assert run_cli("check", "--show-unused-noqa", *options, "tasks.py") == (1, UNUSED, "")


def test_each_files_configuration_selects_it(project: pathlib.Path, run_cli: RunCli) -> None:
    write(project, post_comment="  # noqa: IDM002", get_comment="  # noqa: IDM002")
    (project / "pyproject.toml").write_text('[tool.idemlint]\nselect = ["IDM002"]\n')
    assert run_cli("check", "--show-unused-noqa", "--extend-select", "IDM800", "tasks.py") == (1, UNUSED, "")
    (project / "pyproject.toml").write_text('[tool.idemlint]\nignore = ["IDM800"]\n')
    status, out, err = run_cli("check", "--show-unused-noqa", "tasks.py")
    assert (status, out) == (0, "") and "IDM800 is not selected" in err


def test_a_lower_case_code_suppresses_nothing_and_is_pointed_out(project: pathlib.Path, run_cli: RunCli) -> None:
    # As flake8 and ruff read it: noqa codes are case-sensitive.
    write(project, post_comment="  # noqa: idm002")
    status, out, _ = run_cli("check", "--show-unused-noqa", "tasks.py")
    assert status == 1
    assert [line.split(": ")[1].split()[0] for line in out.splitlines()] == ["IDM002", "IDM800"]
    assert out.splitlines()[1].endswith(
        "unused `# noqa` for idm002: no idm002 finding on this line to suppress "
        "(`# noqa` codes are case-sensitive, as in flake8 and ruff: write IDM002)"
    )
