"""The pre-commit hook, through a real ``pre-commit try-repo`` of this checkout.

``try-repo`` builds the hook's environment from the working tree (committed
or not), so this is what a user of ``.pre-commit-hooks.yaml`` gets.  Each
run installs that environment (from PyPI and the local path) into a
temporary ``PRE_COMMIT_HOME`` shared by the tests of this module.  The
README's configuration runs too, pointed at a repository of the working
tree's files.  All of it needs this checkout to be a git work tree: run from
an unpacked source distribution, the module is skipped.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
from typing import Dict

import pytest
import yaml
from readme import snippet

from idemlint.urls import REPOSITORY
from expectations import expectations

REPO_ROOT = pathlib.Path(__file__).resolve().parent.parent

BUGGY = """\
import requests
from celery import shared_task


@shared_task
def notify_warehouse(url, order_id):
    requests.post(url, json={"order": order_id})
"""

CLEAN = """\
import requests
from celery import shared_task


@shared_task
def notify_warehouse(url, order_id):
    requests.post(url, json={"order": order_id}, headers={"Idempotency-Key": f"order-{order_id}"})
"""


def is_git_work_tree(path: pathlib.Path) -> bool:
    try:
        completed = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "--show-toplevel"],
            capture_output=True, text=True, timeout=60,
        )
    except OSError:
        return False
    top = completed.stdout.strip()
    return completed.returncode == 0 and pathlib.Path(top).resolve() == path


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not is_git_work_tree(REPO_ROOT),
        reason="pre-commit installs the hook from a git repository; this tree is not one "
        "(an unpacked source distribution?)",
    ),
]


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def git_environment(pre_commit_home: pathlib.Path) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        PRE_COMMIT_HOME=str(pre_commit_home),
        GIT_AUTHOR_NAME="idemlint tests",
        GIT_AUTHOR_EMAIL="tests@idemlint.invalid",
        GIT_COMMITTER_NAME="idemlint tests",
        GIT_COMMITTER_EMAIL="tests@idemlint.invalid",
        GIT_CONFIG_NOSYSTEM="1",
    )
    return env


def git(path: pathlib.Path, env: Dict[str, str], *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=path, env=env, check=True, capture_output=True, text=True, timeout=60,
    ).stdout


def git_repository_with(path: pathlib.Path, files: Dict[str, str], env: Dict[str, str]) -> pathlib.Path:
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text, encoding="utf-8")
    git(path, env, "init", "-q")
    git(path, env, "add", *files)
    git(path, env, "commit", "-q", "--no-verify", "-m", "add tasks")
    return path


def repository_of_this_tree(path: pathlib.Path, env: Dict[str, str]) -> pathlib.Path:
    """A new git repository holding the working tree's files, committed or not
    (as ``try-repo`` does), with one commit and no tag."""
    listed = git(REPO_ROOT, env, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        source = REPO_ROOT / name
        if source.is_file():  # not a tracked file deleted in the work tree
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, path / name)
    git(path, env, "init", "-q")
    git(path, env, "add", "--all")
    git(path, env, "commit", "-q", "--no-verify", "-m", "the working tree")
    return path


def try_repo(repository: pathlib.Path, env: Dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO_ROOT), "idemlint", "--all-files",
         "--color", "never"],
        cwd=repository, env=env, capture_output=True, text=True, timeout=900,
    )


def test_hook_fails_on_a_missing_idempotency_key(
    tmp_path: pathlib.Path, pre_commit_home: pathlib.Path
) -> None:
    env = git_environment(pre_commit_home)
    repository = git_repository_with(tmp_path / "repo", {"tasks.py": BUGGY}, env)
    result = try_repo(repository, env)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "tasks.py:7:5: IDM002 `requests.post()` in task `notify_warehouse`" in output
    assert "Traceback" not in output


def test_hook_passes_on_clean_code(tmp_path: pathlib.Path, pre_commit_home: pathlib.Path) -> None:
    env = git_environment(pre_commit_home)
    repository = git_repository_with(tmp_path / "repo", {"tasks.py": CLEAN}, env)
    result = try_repo(repository, env)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "IDM0" not in output
    assert "Passed" in output


def test_the_readme_configuration_with_the_rev_autoupdate_writes(
    tmp_path: pathlib.Path, pre_commit_home: pathlib.Path
) -> None:
    """The README's snippet, its ``repo:`` pointed at a repository of this
    tree: ``pre-commit autoupdate`` fills in ``rev:`` as the README says (the
    commit, the repository having no tag), and the hook then runs from it."""
    env = git_environment(pre_commit_home)
    source = repository_of_this_tree(tmp_path / "idemlint", env)
    config = snippet("pre-commit")
    assert yaml.safe_load(config)["repos"][0]["repo"] == REPOSITORY
    repository = git_repository_with(
        tmp_path / "repo",
        {"tasks.py": BUGGY, ".pre-commit-config.yaml": config.replace(REPOSITORY, str(source))},
        env,
    )

    def pre_commit(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", *args, "--color", "never"],
            cwd=repository, env=env, capture_output=True, text=True, timeout=900,
        )

    update = pre_commit("autoupdate")
    assert update.returncode == 0, update.stdout + update.stderr
    updated = yaml.safe_load((repository / ".pre-commit-config.yaml").read_text())
    assert updated["repos"][0]["rev"] == git(source, env, "rev-parse", "HEAD").strip()
    git(repository, env, "add", ".pre-commit-config.yaml")
    result = pre_commit("run", "--all-files")
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "tasks.py:7:5: IDM002 `requests.post()` in task `notify_warehouse`" in output
MONOREPO = REPO_ROOT / "tests" / "projects" / "monorepo"


def test_hook_gives_each_package_of_a_monorepo_its_own_settings(
    tmp_path: pathlib.Path, pre_commit_home: pathlib.Path
) -> None:
    # pre-commit passes the files of both packages at once: each file still
    # gets its own pyproject.toml's settings, and billing's task is followed
    # into notify's helper.
    env = git_environment(pre_commit_home)
    repository = tmp_path / "repo"
    shutil.copytree(MONOREPO, repository)
    for command in (["init", "-q"], ["add", "."], ["commit", "-q", "--no-verify", "-m", "monorepo"]):
        subprocess.run(
            ["git", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *command],
            cwd=repository, env=env, check=True, capture_output=True, timeout=60,
        )
    result = try_repo(repository, env)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    found = sorted(
        (os.path.normpath(match["path"]), int(match["line"]), match["code"])
        for match in re.finditer(r"^(?P<path>\S+?):(?P<line>\d+):\d+: (?P<code>IDM\d{3}) ", output, re.M)
    )
    expected = sorted((os.path.relpath(path, MONOREPO), line, code) for path, line, code in expectations(MONOREPO))
    assert found == expected, output
    assert "Traceback" not in output
