"""``--diff REV`` and ``--diff -``: report only what a change touched, in real git repositories."""

from __future__ import annotations

import io
import json
import pathlib
import subprocess

import pytest
from conftest import RunCli

TASKS = """\
import requests
from celery import shared_task

@shared_task
def notify(order_id):
    requests.post('https://partner.example/orders', json={'id': order_id})

@shared_task
def refund(order_id):
    requests.post('https://partner.example/refunds', json={'id': order_id})
"""
BROKEN = "from celery import shared_task\n\n@shared_task\ndef oops(:\n"


def git(repo: pathlib.Path, *arguments: str) -> str:
    completed = subprocess.run(
        ["git", "-c", "user.name=idemlint tests", "-c", "user.email=tests@idemlint.invalid",
         "-c", "commit.gpgsign=false", *arguments],
        cwd=repo, check=True, capture_output=True, text=True,
    )
    return completed.stdout


@pytest.fixture
def repo(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    git(tmp_path, "init", "-q")
    (tmp_path / "tasks.py").write_text(TASKS)
    git(tmp_path, "add", "tasks.py")
    git(tmp_path, "commit", "-q", "-m", "tasks")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def change_refund_line(repo: pathlib.Path) -> None:
    source = (repo / "tasks.py").read_text()
    (repo / "tasks.py").write_text(source.replace("/refunds'", "/refunds/v2'"))


def test_only_findings_on_changed_lines_are_reported(repo: pathlib.Path, run_cli: RunCli) -> None:
    status, out, _ = run_cli("check", ".")
    assert [line.split(": ")[0] for line in out.splitlines()] == ["./tasks.py:6:5", "./tasks.py:10:5"]
    change_refund_line(repo)
    status, out, err = run_cli("check", "--diff", "HEAD", ".")
    assert (status, err) == (1, "")
    assert [line.split(": ")[0] for line in out.splitlines()] == ["./tasks.py:10:5"]


def test_nothing_changed_reports_nothing(repo: pathlib.Path, run_cli: RunCli) -> None:
    assert run_cli("check", "--diff", "HEAD", "tasks.py") == (0, "", "")


def test_a_line_moved_by_an_insertion_above_is_not_touched(
    repo: pathlib.Path, run_cli: RunCli
) -> None:
    (repo / "tasks.py").write_text("# a new first line\n" + TASKS)
    status, out, _ = run_cli("check", "--diff", "HEAD", "tasks.py")
    assert (status, out) == (0, "")


def test_untracked_files_count_as_changed(repo: pathlib.Path, run_cli: RunCli) -> None:
    (repo / "new_tasks.py").write_text(TASKS)
    status, out, _ = run_cli("check", "--diff", "HEAD", ".")
    assert status == 1
    assert [line.split(": ")[0] for line in out.splitlines()] == [
        "./new_tasks.py:6:5", "./new_tasks.py:10:5",
    ]


def test_file_problems_only_on_touched_files(repo: pathlib.Path, run_cli: RunCli) -> None:
    (repo / "broken.py").write_text(BROKEN)
    git(repo, "add", "broken.py")
    git(repo, "commit", "-q", "-m", "broken")
    change_refund_line(repo)
    status, out, _ = run_cli("check", "--diff", "HEAD", ".")
    assert status == 1 and "broken.py" not in out
    (repo / "broken.py").write_text(BROKEN + "# touched\n")
    status, out, _ = run_cli("check", "--diff", "HEAD", ".")
    assert status == 2 and "./broken.py:4:" in out


def test_a_diff_read_from_stdin(
    repo: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    change_refund_line(repo)
    patch = git(repo, "diff")
    monkeypatch.setattr("sys.stdin", io.StringIO(patch))
    status, out, _ = run_cli("check", "--diff", "-", "tasks.py")
    assert status == 1
    assert [line.split(": ")[0] for line in out.splitlines()] == ["tasks.py:10:5"]


def test_unknown_revision_is_one_line(repo: pathlib.Path, run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--diff", "no-such-branch", ".")
    assert (status, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and "no-such-branch" in err


def test_an_option_shaped_revision_is_not_passed_to_git_as_an_option(
    repo: pathlib.Path, run_cli: RunCli
) -> None:
    status, _, err = run_cli("check", "--diff=--output=pwned", ".")
    assert status == 2 and "unknown git revision" in err
    assert not (repo / "pwned").exists()


def test_outside_a_git_repository_is_one_line(
    tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tasks.py").write_text(TASKS)
    status, out, err = run_cli("check", "--diff", "HEAD", "tasks.py")
    assert (status, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and "not inside a git repository" in err


@pytest.mark.parametrize("argument", [["--diff", ""], ["--diff="], ["--diff", "  "]])
def test_an_empty_revision_is_a_usage_error(
    repo: pathlib.Path, run_cli: RunCli, argument: "list[str]"
) -> None:
    # An unset CI variable (`--diff "$BASE"`) must not quietly report everything.
    change_refund_line(repo)
    status, out, err = run_cli("check", *argument, ".")
    assert (status, out) == (2, "")
    errors = [line for line in err.splitlines() if line.startswith("Error:")]
    assert errors == [
        "Error: Invalid value for '--diff': an empty revision; "
        "give a git revision, or '-' to read a diff"
    ]


# --- the checked repository's git configuration runs nothing -----------------

MARKER_SCRIPT = """\
#!/bin/sh
echo "$0 $*" >> '{log}'
cat
"""


@pytest.fixture
def hostile_repo(repo: pathlib.Path, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A repository whose .git/config and .gitattributes name programs for git
    to run on a diff; each program would write to a file outside it."""
    outside = tmp_path_factory.mktemp("outside")
    for name in ("fsmonitor", "textconv", "external", "clean", "process", "dotted"):
        script = outside / f"{name}.sh"
        script.write_text(MARKER_SCRIPT.format(log=outside / f"{name}.ran"))
        script.chmod(0o755)
    (repo / ".gitattributes").write_text("*.py diff=evil filter=evil\nhelpers.py filter=a.b\n")
    (repo / "helpers.py").write_text("def audit():\n    return 1\n")
    git(repo, "add", ".gitattributes", "helpers.py")
    git(repo, "commit", "-q", "-m", "attributes")
    # Configured last: the test's own git commands would run them too.
    for key, name in [
        ("core.fsmonitor", "fsmonitor"),
        ("diff.evil.textconv", "textconv"),
        ("diff.external", "external"),
        ("diff.evil.command", "external"),
        ("filter.evil.clean", "clean"),
        ("filter.evil.process", "process"),
        ("filter.evil.required", None),
        ("filter.a.b.clean", "dotted"),
    ]:
        git(repo, "config", key, "true" if name is None else str(outside / f"{name}.sh"))
    (repo / "helpers.py").write_text("def audit():\n    return 2\n")
    change_refund_line(repo)
    return outside


def test_git_runs_none_of_the_programs_the_repository_configures(
    repo: pathlib.Path, hostile_repo: pathlib.Path, run_cli: RunCli
) -> None:
    status, out, err = run_cli("check", "--no-cache", "--diff", "HEAD", ".")
    assert sorted(path.name for path in hostile_repo.iterdir()) == sorted(
        f"{name}.sh" for name in ("fsmonitor", "textconv", "external", "clean", "process", "dotted")
    )
    assert (status, err) == (1, "")
    assert [line.split(": ")[0] for line in out.splitlines()] == ["./tasks.py:10:5"]


def test_a_partial_clone_cannot_make_the_diff_fetch_through_its_transport(
    repo: pathlib.Path, tmp_path_factory: pytest.TempPathFactory, run_cli: RunCli
) -> None:
    """A repository shipped as a partial clone, with the blob the diff needs
    missing: git would fetch it from the promisor remote, running the
    configured ssh command."""
    outside = tmp_path_factory.mktemp("outside")
    script = outside / "ssh.sh"
    script.write_text(MARKER_SCRIPT.format(log=outside / "ssh.ran"))
    script.chmod(0o755)
    blob = git(repo, "rev-parse", "HEAD:tasks.py").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    for key, value in [
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.promisor", "true"),
        ("remote.origin.url", "ssh://fetch.invalid/repo"),
        ("core.sshCommand", str(script)),
    ]:
        git(repo, "config", key, value)
    change_refund_line(repo)
    status, out, err = run_cli("check", "--no-cache", "--diff", "HEAD", ".")
    assert [path.name for path in outside.iterdir()] == ["ssh.sh"]
    assert (status, out) == (2, "")
    assert err.splitlines() == [f"Error: --diff HEAD: fatal: unable to read {blob}"]


def test_a_filter_driver_that_cannot_be_turned_off_is_one_line(
    repo: pathlib.Path, tmp_path_factory: pytest.TempPathFactory, run_cli: RunCli
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    script = outside / "clean.sh"
    script.write_text(MARKER_SCRIPT.format(log=outside / "clean.ran"))
    script.chmod(0o755)
    git(repo, "config", "filter.a=b.clean", str(script))
    (repo / ".gitattributes").write_text("*.py filter=a=b\n")
    change_refund_line(repo)
    status, out, err = run_cli("check", "--no-cache", "--diff", "HEAD", ".")
    assert (status, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and "filter driver named 'a=b'" in err
    assert not (outside / "clean.ran").exists()


@pytest.mark.parametrize("attribute", ["*.py -diff", "*.py binary", "tasks.py diff=unknown-driver"])
def test_the_repositorys_attributes_cannot_hide_a_changed_file(
    repo: pathlib.Path, run_cli: RunCli, attribute: str
) -> None:
    # Without --text, git reduces such a file to "Binary files differ": no
    # lines, so every finding would be filtered out.
    (repo / ".gitattributes").write_text(attribute + "\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "attributes")
    change_refund_line(repo)
    status, out, err = run_cli("check", "--diff", "HEAD", ".")
    assert (status, err) == (1, "")
    assert [line.split(": ")[0] for line in out.splitlines()] == ["./tasks.py:10:5"]


@pytest.mark.parametrize("name", ["t\u00e9\\x.py", 'quote"d.py', "tab\there.py", "caf\u00e9.py"])
def test_a_file_name_git_quotes_keeps_its_changed_lines(
    repo: pathlib.Path, run_cli: RunCli, name: str
) -> None:
    (repo / name).write_text(TASKS)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", "an unusual name")
    source = (repo / name).read_text()
    (repo / name).write_text(source.replace("/refunds'", "/refunds/v2'"))
    status, out, _ = run_cli("check", "--diff", "HEAD", "--format", "json", name)
    assert status == 1
    assert [(f["path"], f["line"]) for f in json.loads(out)] == [(name, 10)]
