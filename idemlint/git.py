"""The few git questions idemlint asks, through the ``git`` command."""

from __future__ import annotations

import os
import subprocess
from typing import List, Optional


class GitError(Exception):
    """git is missing or refused; the message is one line for the user."""


# The checked repository's configuration (``.git/config``, and files it
# includes) may name programs for git to run: an fsmonitor hook on every
# index refresh, and, with its ``.gitattributes``, diff and filter drivers.
# idemlint asks git only about files and lines, so every command runs with
# the fsmonitor (and the untracked cache it feeds) off; reading a work tree's
# content also turns off drivers (``neutral_filters``, and in ``diff``
# ``--no-textconv --no-ext-diff``).
_NEUTRAL_CONFIG = ("-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "-c", "protocol.allow=never")
# A partial clone fetches a missing object on demand, through whatever
# transport its configuration names: no question idemlint asks needs the
# network.  Nor does it need git to refresh the checked repository's index.
_NEUTRAL_ENVIRONMENT = {"GIT_NO_LAZY_FETCH": "1", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}


def run_git(arguments: List[str], directory: str, *, missing_ok: bool = False) -> str:
    """git's standard output; ``missing_ok``: exit status 1 is an empty answer
    (``git config`` when nothing matches)."""
    try:
        completed = subprocess.run(
            ["git", "--no-pager", *_NEUTRAL_CONFIG, *arguments],
            cwd=directory,
            env={**os.environ, **_NEUTRAL_ENVIRONMENT},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
    except OSError as error:
        raise GitError(f"cannot run git: {error.strerror or error}") from None
    if missing_ok and completed.returncode == 1:
        return ""
    if completed.returncode != 0:
        lines = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(lines[-1] if lines else f"git {arguments[0]} failed")
    return completed.stdout.decode("utf-8", "surrogateescape")


def neutral_filters(directory: str) -> List[str]:
    """``-c`` options that empty the commands of every configured filter driver.

    A ``clean`` filter runs whenever git reads a changed file of the work
    tree (``git diff REV`` does), under whatever driver name
    ``.gitattributes`` picks, so each configured name is emptied; a driver
    marked ``required`` would then fail the diff, so it is made optional.
    """
    listed = run_git(
        ["config", "-z", "--get-regexp", r"^filter\..+\.(clean|smudge|process|required)$"],
        directory,
        missing_ok=True,
    )
    keys = (item.split("\n", 1)[0] for item in listed.split("\0") if item)
    names = sorted({key[len("filter.") :].rsplit(".", 1)[0] for key in keys})
    options: List[str] = []
    for name in names:
        if "=" in name:  # `-c` splits at the first `=`: this driver cannot be turned off
            raise GitError(f"the repository configures a filter driver named {name!r}")
        for setting, value in _NO_FILTER:
            options += ["-c", f"filter.{name}.{setting}={value}"]
    return options


_NO_FILTER = (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))


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
