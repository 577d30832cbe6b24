from __future__ import annotations

import pathlib
import signal
from typing import Callable, Iterator, Tuple

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


@pytest.fixture
def alarm() -> Iterator[None]:
    """Turns a regression (a read that blocks forever) into a failure, not a hung suite."""

    def hung(signum: int, frame: object) -> None:
        pytest.fail("blocked reading a FIFO")  # not an OSError: nothing reports it as E902

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
