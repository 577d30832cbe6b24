from __future__ import annotations

import os
import pathlib
import signal
from typing import Callable, Iterator, Tuple

import pytest

from idemlint.cli import main

FIXTURES = pathlib.Path(__file__).parent / "fixtures"

# The CLI run in this process: exit status, standard output, standard error.
RunCli = Callable[..., Tuple[int, str, str]]


@pytest.fixture(autouse=True, scope="session")
def private_user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pathlib.Path]:
    """idemlint keeps its per-user cache secret in ``$XDG_CACHE_HOME/idemlint``:
    the tests (and every process they start) use one of their own, never the
    real user's ``~/.cache``.  It lives beside pytest's numbered temporary
    directories, not in one: the same secret from one session to the next,
    so the checkout's own ``.idemlint_cache/`` (tests that run the CLI in
    the checkout make one) stays idemlint's and no run warns about it."""
    previous = os.environ.get("XDG_CACHE_HOME")
    directory = tmp_path_factory.getbasetemp().parent / "idemlint-user-cache"
    directory.mkdir(mode=0o700, exist_ok=True)
    os.environ["XDG_CACHE_HOME"] = str(directory)
    yield directory
    if previous is None:
        del os.environ["XDG_CACHE_HOME"]
    else:
        os.environ["XDG_CACHE_HOME"] = previous


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


@pytest.fixture
def hang_guard() -> Iterator[None]:
    """Turns a hang (a pattern that backtracks without end) into a failure
    after 30 s, not a suite that never returns; not a speed test."""

    def hung(signum: int, frame: object) -> None:
        pytest.fail("did not return in 30 s: something hangs")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
