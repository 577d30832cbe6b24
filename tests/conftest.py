from __future__ import annotations

import os
import pathlib
import signal
import threading
from contextlib import contextmanager
from typing import Callable, Iterator, List, Set, Tuple

import pytest

from idemlint.cli import main

FIXTURES = pathlib.Path(__file__).parent / "fixtures"

# The CLI run in this process: exit status, standard output, standard error.
RunCli = Callable[..., Tuple[int, str, str]]


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(items: List[pytest.Item]) -> None:
    """A test marked ``sweep`` (one behaviour tried on many cases) runs its
    first case that is not marked slow in the quick tier (``make test``);
    its other cases are marked slow, for ``make test-all``."""
    seen: Set[Tuple[str, str]] = set()
    for item in items:
        if item.get_closest_marker("sweep") is None or item.get_closest_marker("slow") is not None:
            continue
        test = (str(item.path), getattr(item, "originalname", item.name))
        if test in seen:
            item.add_marker(pytest.mark.slow)
        seen.add(test)


@pytest.fixture(autouse=True, scope="session")
def private_user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pathlib.Path]:
    """idemlint keeps its per-user cache secret in ``$XDG_CACHE_HOME/idemlint``:
    the tests (and every process they start) use one of their own, never the
    real user's ``~/.cache``.  This one, the session's (each xdist worker's),
    serves what module-scoped fixtures start; each test then gets its own
    (:func:`isolated_test`)."""
    previous = os.environ.get("XDG_CACHE_HOME")
    directory = tmp_path_factory.getbasetemp() / "idemlint-user-cache"
    directory.mkdir(mode=0o700, exist_ok=True)
    os.environ["XDG_CACHE_HOME"] = str(directory)
    yield directory
    if previous is None:
        del os.environ["XDG_CACHE_HOME"]
    else:
        os.environ["XDG_CACHE_HOME"] = previous


@pytest.fixture(autouse=True)
def isolated_test(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pathlib.Path]:
    """Every test runs in an empty working directory of its own, outside the
    checkout, with a user cache directory (``XDG_CACHE_HOME``: the secret)
    of its own; the processes it starts inherit both.  So nothing a user
    did in the checkout changes a test's outcome: with no configuration
    above the checked paths, the CLI keeps ``.idemlint_cache/`` in the
    working directory, and one that ``make demo`` left in the checkout,
    signed with the user's secret, would make it warn on stderr.  Tests name
    the checkout's files by absolute path (``FIXTURES``, ``ROOT``); a test
    may still ``monkeypatch.chdir`` elsewhere.  A sibling of ``tmp_path``,
    not ``tmp_path`` itself: a test that checks or lists its ``tmp_path``
    sees only what it put there.  Its own MonkeyPatch, not the test's: a
    test's ``monkeypatch.undo()`` undoes only what the test patched."""
    directory = tmp_path_factory.mktemp("isolated")
    work = directory / "work"
    work.mkdir()
    user_cache = directory / "user-cache"
    user_cache.mkdir(mode=0o700)
    before = set(threading.enumerate())
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        patch.setenv("XDG_CACHE_HOME", str(user_cache))
        yield work
    _no_thread_left_to_wait_for(before)


def _no_thread_left_to_wait_for(before: Set[threading.Thread]) -> None:
    """A thread a test started that is no daemon and still runs would make
    the finished test process wait for it at exit, past any per-test time
    limit: the test fails instead, naming it."""
    left = [thread for thread in threading.enumerate() if thread not in before and not thread.daemon]
    for thread in left:
        thread.join(10)
    still = [thread.name for thread in left if thread.is_alive()]
    assert not still, f"the test left threads running that the process would wait for at exit: {still}"


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

    with _failing_after(30, "blocked reading a FIFO"):  # not an OSError: nothing reports it as E902
        yield


@pytest.fixture
def hang_guard() -> Iterator[None]:
    """Turns a hang (a pattern that backtracks without end) into a failure
    after 30 s, not a suite that never returns; not a speed test."""

    with _failing_after(30, "did not return in 30 s: something hangs"):
        yield


@contextmanager
def _failing_after(seconds: int, message: str) -> Iterator[None]:
    """The test fails with ``message`` if it is still running after ``seconds``."""

    def hung(signum: int, frame: object) -> None:
        pytest.fail(message)

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
