from __future__ import annotations

import pathlib
from typing import Callable, Tuple

import pytest

from idemlint.cli import main

FIXTURES = pathlib.Path(__file__).parent / "fixtures"

# The CLI run in this process: exit status, standard output, standard error.
RunCli = Callable[..., Tuple[int, str, str]]


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> RunCli:
    def run(*argv: str) -> Tuple[int, str, str]:
        status = main(list(argv))
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run
