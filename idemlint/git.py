"""The few git questions idemlint asks, through the ``git`` command."""

from __future__ import annotations

import os
import subprocess
from typing import List, Optional


class GitError(Exception):
    """git is missing or refused; the message is one line for the user."""


def run_git(arguments: List[str], directory: str) -> str:
    try:
        completed = subprocess.run(
            ["git", *arguments],
            cwd=directory,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
    except OSError as error:
        raise GitError(f"cannot run git: {error.strerror or error}") from None
    if completed.returncode != 0:
        lines = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(lines[-1] if lines else f"git {arguments[0]} failed")
    return completed.stdout.decode("utf-8", "surrogateescape")


def repo_root(directory: str) -> Optional[str]:
    """The top-level directory of the git work tree holding ``directory``."""
    try:
        top = run_git(["rev-parse", "--show-toplevel"], directory).strip()
    except GitError:
        return None
    return top or None


def report_root() -> str:
    """What report paths are relative to: the repository, else the current directory."""
    return repo_root(os.getcwd()) or os.getcwd()
