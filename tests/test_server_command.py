"""``idemlint server`` on the command line: its options, and one line, not a
traceback, when the ``lsp`` extra is not installed."""

from __future__ import annotations

import sys

import pytest

from conftest import RunCli


def test_the_server_command_is_listed(run_cli: RunCli) -> None:
    status, out, _ = run_cli("server", "--help")
    assert status == 0
    assert "--debounce" in out and "--stdio" in out


def test_without_the_lsp_extra_the_server_says_what_to_install(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # import pygls raises ImportError, and so does importing a submodule an
    # earlier test in this process left in sys.modules (test_patterns.py
    # imports every module of the package, idemlint.lsp.server with pygls).
    for name in ["pygls", *(name for name in sys.modules if name.startswith("pygls."))]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "idemlint.lsp.server", raising=False)
    status, out, err = run_cli("server")
    assert status == 2
    assert out == ""
    assert "pip install 'idemlint[lsp]'" in err
    assert "Traceback" not in err
