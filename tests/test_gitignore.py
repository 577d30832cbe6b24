"""``.gitignore`` in directory walks: git's pattern semantics, where the
rules come from, the command line and configuration switches, and ignore
files written to hurt (a FIFO, a huge file, patterns that backtrack)."""

from __future__ import annotations

import os
import pathlib
import random
import shutil
import subprocess
from typing import List, Tuple

import pytest
from conftest import RunCli

from idemlint.discovery import Selection, discover
from idemlint.gitignore import MAX_IGNORE_FILE_BYTES, Budget, Ignores, TooCostly, _Rules, parse

TASK = """\
import requests
from celery import shared_task


@shared_task
def notify(order_id):
    requests.post("https://partner.example/orders", json={"order": order_id})
"""


def ignored(gitignore: str, path: str, is_directory: bool = False) -> bool:
    rules = _Rules("/repo", parse(gitignore))
    return rules.decide("/repo/" + path, is_directory, Budget()) is True


@pytest.mark.parametrize(
    "gitignore, path, is_directory, expected",
    [
        ("*.pyc", "a/b.pyc", False, True),
        ("*.pyc", "a/b.py", False, False),
        ("build/", "x/build", True, True),
        ("build/", "x/build", False, False),  # a file named build
        ("/build", "build", True, True),
        ("/build", "x/build", True, False),
        ("doc/frotz", "doc/frotz", True, True),
        ("doc/frotz", "a/doc/frotz", True, False),  # a "/" in the middle anchors
        ("frotz/", "a/frotz", True, True),
        ("**/foo", "foo", True, True),
        ("**/foo", "a/b/foo", False, True),
        ("abc/**", "abc/x", False, True),
        ("abc/**", "abc/x/y", False, True),
        ("abc/**", "abc", True, False),  # what is inside, not abc itself
        ("a/**/b", "a/b", True, True),
        ("a/**/b", "a/x/y/b", True, True),
        ("a/*", "a/b", False, True),
        ("a/*", "a/b/c", False, False),  # "*" does not cross "/"
        ("a?c", "abc", False, True),
        ("*.log\n!keep.log", "keep.log", False, False),  # the last match decides
        ("!keep.log\n*.log", "keep.log", False, True),
        ("\\#file", "#file", False, True),
        ("#file", "#file", False, False),  # a comment
        ("\\!x", "!x", False, True),
        ("foo\\ ", "foo ", False, True),
        ("foo  ", "foo", False, True),  # unescaped trailing spaces go
        ("[a-c]at", "bat", False, True),
        ("[a-c]at", "dat", False, False),
        ("[!a]x", "bx", False, True),
        ("[^a]x", "ax", False, False),
        ("[[:digit:]]*", "1a", False, True),
        ("[[:digit:]]*", "a1", False, False),
        ("foo[", "foo[", False, False),  # an unclosed "[" never matches, as in git
        ("*a*a*a*z", "a" * 200, False, False),
        ("*a*a*a*z", "a" * 200 + "z", False, True),
        ("*.PY", "x.py", False, False),  # case-sensitive
    ],
)
def test_patterns_mean_what_they_mean_to_git(gitignore: str, path: str, is_directory: bool, expected: bool) -> None:
    assert ignored(gitignore, path, is_directory) is expected


def test_many_stars_on_a_long_name_finish() -> None:
    # A regex translation that backtracks would try every placement of the stars.
    assert not ignored("*a" * 60 + "*z*", "a" * 5000)


@pytest.mark.skipif(shutil.which("git") is None, reason="compares with git itself")
@pytest.mark.parametrize("seed", range(4))
def test_random_ignore_files_agree_with_git_check_ignore(tmp_path: pathlib.Path, seed: int) -> None:
    generator = random.Random(seed)
    names = ["a", "b", "ab", "a.py", "x.pyc", "[a]", "a b", "#c", "!d", "c*"]
    pieces = ["a", "b", "*", "?", "**", "/", "[ab]", "[!a]", "[a-c]", ".py", "\\*", "!", "#", " ", "[[:alpha:]]", "]"]

    def pattern() -> str:
        return "".join(generator.choice(pieces) for _ in range(generator.randint(1, 5)))

    for trial in range(15):
        root = tmp_path / f"repo{trial}"
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        entries: List[Tuple[pathlib.Path, bool]] = []

        def fill(directory: pathlib.Path, depth: int) -> None:
            for name in generator.sample(names, 3):
                path = directory / name
                if depth < 2 and generator.random() < 0.5:
                    path.mkdir()
                    entries.append((path, True))
                    if generator.random() < 0.4:
                        (path / ".gitignore").write_text(f"{pattern()}\n{pattern()}\n")
                    fill(path, depth + 1)
                else:
                    path.write_text("")
                    entries.append((path, False))

        fill(root, 0)
        (root / ".gitignore").write_text("\n".join(pattern() for _ in range(generator.randint(1, 4))) + "\n")
        relative = [str(path.relative_to(root)) for path, _ in entries]
        git = subprocess.run(
            ["git", "-C", str(root), "check-ignore", "--no-index", "--stdin", "-z"],
            input="\0".join(relative).encode() + b"\0", capture_output=True,
        )
        theirs = {name.decode() for name in git.stdout.split(b"\0") if name}
        real = os.path.realpath(root)
        for (path, is_directory), name in zip(entries, relative):
            # As a walk sees it: an ignored directory hides what is inside.
            state, ours = Ignores.above(real, Budget()).entering(real, os.listdir(real)), False
            parts = name.split(os.sep)
            for depth in range(1, len(parts) + 1):
                step = os.path.join(real, *parts[:depth])
                step_is_directory = depth < len(parts) or is_directory
                if state.ignored(step, step_is_directory):
                    ours = True
                    break
                if step_is_directory:
                    state = state.entering(step, os.listdir(step))
            assert ours == (name in theirs), ((root / ".gitignore").read_text(), name)


# --- discovery ------------------------------------------------------------


@pytest.fixture
def repository(tmp_path: pathlib.Path) -> pathlib.Path:
    """A work tree (a ``.git`` directory is all it takes: git need not be installed)."""
    root = tmp_path / "repo"
    (root / ".git" / "info").mkdir(parents=True)
    for name in ("app/tasks.py", "generated/tasks.py", "app/scratch_tasks.py", "app/sub/keep_tasks.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(TASK)
    (root / ".gitignore").write_text("generated/\nscratch_*.py\n")
    return root


def found(*paths: object, respect: bool = True, **options: object) -> List[str]:
    selection = Selection(respect_gitignore=respect)
    return sorted(
        os.path.relpath(item, str(paths[0]))
        for item in discover([str(p) for p in paths], selection, **options)  # type: ignore[arg-type]
        if isinstance(item, str)
    )


def test_a_walk_skips_what_git_ignores(repository: pathlib.Path) -> None:
    assert found(repository) == ["app/sub/keep_tasks.py", "app/tasks.py"]
    assert found(repository, respect=False) == [
        "app/scratch_tasks.py", "app/sub/keep_tasks.py", "app/tasks.py", "generated/tasks.py"
    ]


def test_every_source_of_rules(repository: pathlib.Path) -> None:
    (repository / ".git" / "info" / "exclude").write_text("keep_*.py\n")
    (repository / "app" / ".gitignore").write_text("!scratch_tasks.py\n")  # deeper wins
    assert found(repository) == ["app/scratch_tasks.py", "app/tasks.py"]


def test_walking_a_subdirectory_reads_the_ignore_files_above_it(repository: pathlib.Path) -> None:
    assert found(repository / "app") == ["sub/keep_tasks.py", "tasks.py"]


def test_a_named_path_is_checked_even_when_ignored(repository: pathlib.Path) -> None:
    named = [repository / "generated", repository / "app" / "scratch_tasks.py"]
    assert sorted(os.path.basename(p) for p in discover([str(p) for p in named], Selection(respect_gitignore=True))
                  if isinstance(p, str)) == ["scratch_tasks.py", "tasks.py"]
    # --force-exclude is about the configured exclusions: git passes tracked files only.
    assert len(list(discover([str(named[1])], Selection(respect_gitignore=True), force_exclude=True))) == 1


def test_outside_a_repository_a_gitignore_means_nothing(repository: pathlib.Path) -> None:
    shutil.rmtree(repository / ".git")
    assert len(found(repository)) == 4


def test_a_nested_repository_has_rules_of_its_own(repository: pathlib.Path) -> None:
    (repository / "app" / "sub" / ".git").mkdir()
    (repository / "app" / "sub" / "scratch_tasks.py").write_text(TASK)
    assert found(repository) == ["app/sub/keep_tasks.py", "app/sub/scratch_tasks.py", "app/tasks.py"]


def test_a_linked_work_tree_reads_the_common_info_exclude(tmp_path: pathlib.Path) -> None:
    common = tmp_path / "main" / ".git"
    (common / "info").mkdir(parents=True)
    (common / "info" / "exclude").write_text("skipped.py\n")
    (common / "worktrees" / "linked").mkdir(parents=True)
    (common / "worktrees" / "linked" / "commondir").write_text("../..\n")
    tree = tmp_path / "linked"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {common / 'worktrees' / 'linked'}\n")
    for name in ("kept.py", "skipped.py"):
        (tree / name).write_text(TASK)
    assert found(tree) == ["kept.py"]


def test_the_command_line_and_the_configuration_turn_it_off(
    repository: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repository)

    def reported(*options: str) -> List[str]:
        return sorted(line.split(":")[0] for line in run_cli("check", "--no-cache", *options, ".")[1].splitlines())

    assert reported() == ["./app/sub/keep_tasks.py", "./app/tasks.py"]
    everything = ["./app/scratch_tasks.py", "./app/sub/keep_tasks.py", "./app/tasks.py", "./generated/tasks.py"]
    assert reported("--no-respect-gitignore") == everything
    (repository / "pyproject.toml").write_text("[tool.idemlint]\nrespect-gitignore = false\n")
    assert reported() == everything
    assert reported("--respect-gitignore") == ["./app/sub/keep_tasks.py", "./app/tasks.py"]


# --- ignore files written to hurt ---------------------------------------------


def run_in(repository: pathlib.Path, run_cli: RunCli) -> Tuple[int, List[str], str]:
    status, out, err = run_cli("check", "--no-cache", str(repository))
    return status, sorted(os.path.relpath(line.split(":")[0], repository) for line in out.splitlines()), err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_named_gitignore_is_not_read(repository: pathlib.Path, run_cli: RunCli, alarm: None) -> None:
    (repository / ".gitignore").unlink()
    os.mkfifo(repository / ".gitignore")
    status, files, err = run_in(repository, run_cli)
    assert status == 1 and len(files) == 4
    assert err == f"idemlint: warning: {repository / '.gitignore'}: not a regular file (a FIFO); not used\n"


def test_a_huge_gitignore_is_not_used(repository: pathlib.Path, run_cli: RunCli) -> None:
    with open(repository / ".gitignore", "a") as handle:
        handle.write("#" * MAX_IGNORE_FILE_BYTES)
    status, files, err = run_in(repository, run_cli)
    assert status == 1 and len(files) == 4
    assert "larger than 512 KiB; not used" in err


def test_a_gitignore_link_is_not_followed(repository: pathlib.Path, run_cli: RunCli) -> None:
    (repository / "rules").write_text("generated/\n")
    (repository / ".gitignore").unlink()
    (repository / ".gitignore").symlink_to("rules")
    status, files, err = run_in(repository, run_cli)
    assert (status, len(files), err) == (1, 4, "")


def test_patterns_too_costly_to_apply_are_given_up_on(repository: pathlib.Path, run_cli: RunCli) -> None:
    lines = []
    for number in range(9000):  # each different, each backtracking-prone, negations between
        lines += [f"*a*a*a*a*a*a*a*a*z{number}", f"!*b*b*b*b*b*b*b*y{number}"]
    (repository / ".gitignore").write_text("\n".join(lines) + "\n")
    for number in range(200):
        (repository / "app" / f"{'a' * 100}{number}.py").write_text("")
    status, files, err = run_in(repository, run_cli)
    assert status == 1 and len(files) == 4  # the same files as with --no-respect-gitignore
    assert err == "idemlint: warning: .gitignore files too costly to apply; this run does not respect them\n"


def test_the_budget_is_what_stops_it() -> None:
    budget = Budget(left=10)
    rules = _Rules("/repo", parse("*x*\n" * 3))
    with pytest.raises(TooCostly):
        for number in range(20):
            rules.decide(f"/repo/a{number}", False, budget)
