"""The README's editor set-ups for ``idemlint server``, as a user pastes them.

VS Code's and Helix's are read as their editors read them; Neovim's and
Emacs's run in the real editor, headless, on a small project, when it is
installed (slow tests, skipped otherwise): the editor must start the
server, and show its diagnostics.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
from typing import Dict, List, Optional

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = pathlib.Path(__file__).parent.parent
EDITORS = pathlib.Path(__file__).parent / "editors"
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAYMENTS = """\
import stripe
from celery import shared_task


@shared_task
def capture(order_id):
    stripe.PaymentIntent.create(amount=100, currency="eur")
"""


def snippet(name: str) -> str:
    match = re.search(rf"<!-- readme-test: {re.escape(name)} -->\n```\w*\n(?P<body>.*?)\n```", README, re.S)
    assert match is not None, f"README has no snippet {name!r}"
    return match.group("body") + "\n"


def test_vscode_settings_start_the_server() -> None:
    settings = json.loads(snippet("vscode"))
    assert settings["glspc.server.languageId"] == ["python"]
    command = [settings["glspc.server.command"], *settings["glspc.server.commandArguments"]]
    assert command == ["idemlint", "server"]
    shown = subprocess.run(
        [sys.executable, "-m", "idemlint", *command[1:], "--help"], capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0, shown.stderr


def test_helix_languages_add_the_server_for_python() -> None:
    languages = tomllib.loads(snippet("helix"))
    server = languages["language-server"]["idemlint"]
    assert [server["command"], *server["args"]] == ["idemlint", "server"]
    (python,) = languages["language"]
    assert python["name"] == "python" and "idemlint" in python["language-servers"]


@pytest.fixture
def project(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "project"
    (root / "shop").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.idemlint]\n")
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "payments.py").write_text(PAYMENTS)
    return root


def editor_environment(tmp_path: pathlib.Path) -> Dict[str, str]:
    """``idemlint`` on PATH (this interpreter's), and a home of its own."""
    bin_directory = os.path.dirname(sys.executable)
    if not os.path.exists(os.path.join(bin_directory, "idemlint")):
        pytest.skip("no idemlint script beside this interpreter")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return dict(
        os.environ,
        PATH=bin_directory + os.pathsep + os.environ.get("PATH", ""),
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_STATE_HOME=str(home / "state"),
        IDEMLINT_TIMEOUT="90",
    )


def neovim_with(lua_test: str) -> Optional[str]:
    """The Neovim to use (``IDEMLINT_NVIM``, else ``nvim``) when ``lua_test`` holds in it."""
    found = os.environ.get("IDEMLINT_NVIM") or shutil.which("nvim")
    if found is None:
        return None
    probe = f"lua io.stdout:write(tostring({lua_test}))"
    try:
        answer = subprocess.run(
            [found, "--headless", "--clean", "-c", probe, "-c", "qa!"],
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return found if answer.stdout.strip() == "true" else None


NEOVIMS = {
    "neovim": ("vim.lsp.config ~= nil", "Neovim 0.11+"),
    "neovim-0.8": ("vim.lsp.start ~= nil and vim.fs ~= nil", "Neovim 0.8+"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NEOVIMS))
def test_neovim_init_shows_the_diagnostics(name: str, project: pathlib.Path, tmp_path: pathlib.Path) -> None:
    requirement, label = NEOVIMS[name]
    nvim = neovim_with(requirement)
    if nvim is None:
        pytest.skip(f"no {label}")
    init = tmp_path / "init.lua"
    init.write_text(snippet(name))
    shown = run_editor(
        [nvim, "--headless", "-u", str(init), "-c", f"luafile {EDITORS / 'nvim_wait.lua'}", "shop/payments.py"],
        project, editor_environment(tmp_path),
    )
    assert shown == ["IDM002 7"]


@pytest.mark.slow
def test_emacs_eglot_init_shows_the_diagnostics(project: pathlib.Path, tmp_path: pathlib.Path) -> None:
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("no Emacs")
    environment = editor_environment(tmp_path)
    has_eglot = subprocess.run(
        [emacs, "--batch", "--eval", "(progn (package-initialize) (require 'eglot))"],
        capture_output=True, timeout=60, env=environment, stdin=subprocess.DEVNULL,
    )
    if has_eglot.returncode != 0:
        pytest.skip("no eglot in this Emacs")
    init = tmp_path / "init.el"
    init.write_text(snippet("emacs"))
    environment["IDEMLINT_INIT"] = str(init)
    shown = run_editor(
        [emacs, "--batch", "-l", str(EDITORS / "emacs_eglot.el"), "shop/payments.py"], project, environment
    )
    assert shown == ["IDM002 7"]


def run_editor(command: List[str], cwd: pathlib.Path, environment: Dict[str, str]) -> List[str]:
    done = subprocess.run(
        command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()
