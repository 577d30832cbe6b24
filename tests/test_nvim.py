"""An editor session: Neovim, headless, opens a task file, starts
``idemlint server`` with ``vim.lsp.start`` and prints the diagnostics it
shows, then edits the buffer without saving and prints them again
(``tests/editors/nvim_diagnostics.lua``).

Skipped when there is no Neovim with a built-in LSP client (0.7 or later:
``nvim`` on PATH, or the one ``IDEMLINT_NVIM`` names).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
import uuid
from typing import List, Optional

import pytest

pytestmark = pytest.mark.slow

SCRIPT = pathlib.Path(__file__).parent / "editors" / "nvim_diagnostics.lua"
PAYMENTS = """\
import stripe
from celery import shared_task


@shared_task
def capture(order_id):
    stripe.PaymentIntent.create(amount=100, currency="eur")
"""


def neovim() -> Optional[str]:
    found = os.environ.get("IDEMLINT_NVIM") or shutil.which("nvim")
    if found is None:
        return None
    probe = "lua io.stdout:write(tostring(vim.lsp ~= nil and (vim.lsp.start or vim.lsp.start_client) ~= nil))"
    try:
        answer = subprocess.run(
            [found, "--headless", "--clean", "-c", probe, "-c", "qa!"],
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return found if answer.stdout.strip() == "true" else None


NVIM = neovim()


@pytest.mark.skipif(NVIM is None, reason="no Neovim with a built-in LSP client (nvim 0.7+)")
def test_neovim_shows_the_diagnostics_and_updates_them_on_an_edit(tmp_path: pathlib.Path) -> None:
    assert NVIM is not None
    project = tmp_path / "project"
    (project / "shop").mkdir(parents=True)
    (project / "shop" / "__init__.py").write_text("")
    (project / "shop" / "payments.py").write_text(PAYMENTS)
    token = uuid.uuid4().hex
    environment = dict(
        os.environ,
        IDEMLINT_SERVER=json.dumps([sys.executable, "-m", "idemlint", "server", "--debounce", "0.05"]),
        IDEMLINT_ROOT=str(project),
        IDEMLINT_EDIT_FROM='currency="eur")',
        IDEMLINT_EDIT_TO='currency="eur", idempotency_key=f"capture-{order_id}")',
        IDEMLINT_TIMEOUT="90",
        IDEMLINT_TEST_TOKEN=token,  # inherited by the server: found below if it outlives Neovim
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"),
    )
    done = subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"luafile {SCRIPT}", "shop/payments.py"],
        cwd=project, env=environment, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2, done.stdout
    first, edited = lines
    assert first.startswith(f"{project / 'shop' / 'payments.py'}:7:5: IDM002 `stripe.PaymentIntent.create()`")
    # The unsaved fix in the buffer: no diagnostics any more; the file is unchanged.
    assert edited == "-- edited"
    assert (project / "shop" / "payments.py").read_text() == PAYMENTS
    # Quitting Neovim ended the server.
    deadline = time.monotonic() + 10
    while servers_with(token) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert servers_with(token) == []


def servers_with(token: str) -> List[int]:
    """The processes whose environment holds ``token`` (Linux; none elsewhere)."""
    found = []
    marker = f"IDEMLINT_TEST_TOKEN={token}".encode()
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/environ", "rb") as environ:
                    if marker in environ.read().split(b"\0"):
                        found.append(int(entry))
            except OSError:
                continue
    return found

