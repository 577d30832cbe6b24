"""``.gitignore`` rules as git reads them, and ignore files written to hurt."""

from __future__ import annotations

import os
import pathlib
import random
import shutil
import subprocess
from typing import List, Tuple

import pytest

from idemlint.gitignore import Budget, Ignores, TooCostly, _Rules, parse

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


def test_the_budget_is_what_stops_it() -> None:
    budget = Budget(left=10)
    rules = _Rules("/repo", parse("*x*\n" * 3))
    with pytest.raises(TooCostly):
        for number in range(20):
            rules.decide(f"/repo/a{number}", False, budget)
