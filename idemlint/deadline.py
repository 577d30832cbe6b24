"""A time limit on one module's analysis (``--timeout``, ``timeout = ...``).

Nothing a checked repository holds may make idemlint hang: every pattern
is linear (``tests/test_patterns.py``) and every walk is bounded, but the
next slow spot would again be a silent hang without a limit, so one task
file's analysis, with everything it follows, stops when its time is up and
is reported as ``IDM902``, as semgrep's ``--timeout`` does; the run goes on.

:func:`time_limit` raises :class:`AnalysisTimeout` in the thread that runs
the analysis when the time is up:

- in a main thread, where the platform has ``setitimer`` (what the CLI, its
  worker processes, flake8 and the language server's analysis process run
  in), by an alarm signal, which also ends a regular expression in the
  middle of its match (``re`` checks for signals as it backtracks);
- in any other thread, by a timer thread that raises it asynchronously in
  the analysing one (``PyThreadState_SetAsyncExc``): at its next bytecode,
  so not in the middle of a call into C.

Neither ends one call into C that checks no signals (libcst's native parser
holds the GIL for about 2 s on a 36 000-line module): the limit is then
overrun by that call, and takes effect when it returns.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from types import FrameType
from typing import Any, Iterator, Optional

from idemlint.codes import TIMED_OUT as TIMED_OUT  # the code of what it cuts

# After the limit, how often it is raised again until the block ends: an
# exception raised in a garbage collector's callback (which can run any
# Python code between two bytecodes) is reported and dropped, not raised.
_AGAIN = 0.05
# What no real file comes near: weblate's largest task file, following 121
# methods across 42 modules, takes about 3 s on these machines.
DEFAULT_TIMEOUT = 30.0


class AnalysisTimeout(BaseException):
    """The time limit passed.  A BaseException, as KeyboardInterrupt is:
    the guards that report a failing rule as IDM900 (``except Exception``)
    must let it through to the one place that reports it."""


def timed_out_message(seconds: float) -> str:
    return f"not analysed: analysis took longer than {seconds:g} s (--timeout, `timeout` in [tool.idemlint])"


class Limit:
    """One block's limit: whether it still applies (an alarm or a timer that
    comes after the block ended does nothing), and whether it rang.  A
    library between the alarm and the caller may turn the exception into
    another (a parser's error), which the IDM900 guards report: a block
    whose limit rang is cut, however it ended (:attr:`rang`)."""

    def __init__(self, armed: bool = True) -> None:
        self.armed = armed
        self.rang = False

    def ring(self, signum: int, frame: Optional[FrameType]) -> None:
        if self.armed:
            self.rang = True
            raise AnalysisTimeout()


@contextmanager
def time_limit(seconds: Optional[float]) -> Iterator[Limit]:
    """Raise :class:`AnalysisTimeout` in this thread if the block runs for
    more than ``seconds`` (no limit for None)."""
    if seconds is None:
        yield Limit(armed=False)
    elif threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        with _alarm(seconds) as limit:
            yield limit
    else:
        with _timer(seconds) as limit:
            yield limit


@contextmanager
def _alarm(seconds: float) -> Iterator[Limit]:
    """The limit as an alarm signal; a timer the caller had set is put back,
    less the time the block took (it rings late if it fell within it)."""
    armed = Limit()
    # The caller's timer is stopped before the handler is replaced: were it
    # to ring in between, ours would raise outside the block.
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, 0)
    previous_handler = signal.signal(signal.SIGALRM, armed.ring)
    started = time.monotonic()
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds, _AGAIN)
        yield armed
    finally:
        # The alarm may ring once more before it is disarmed: the block has
        # ended all the same (``armed.rang`` says it was cut), and leaving
        # here with the timer still armed would raise in the caller's code
        # every 50 ms.  No call before the ``try``: none can take the signal.
        while True:
            try:
                armed.armed = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                break
            except AnalysisTimeout:
                continue
        _let_pending_signals_run()
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_delay:
            left = max(previous_delay - (time.monotonic() - started), 1e-6)
            signal.setitimer(signal.ITIMER_REAL, left, previous_interval)


def _let_pending_signals_run() -> None:
    """A call: Python runs a handler whose signal came while the block
    ended here, while the handler that ignores it is still installed."""


@contextmanager
def _timer(seconds: float) -> Iterator[Limit]:
    """The limit as a timer thread that raises in this one.

    The timer raises nothing until this thread is inside the block: raised
    while it waits for the timer thread to start, the exception would leave
    the block before its ``finally``, and the timer raising every 50 ms in
    whatever ran next (a thread's start, a lock's wait)."""
    target = threading.get_ident()
    armed = Limit(armed=False)
    lock = threading.Lock()
    ended = threading.Event()

    def expire() -> None:
        delay = seconds
        while not ended.wait(delay):
            with lock:
                if armed.armed:
                    armed.rang = True
                    _raise_in(target, AnalysisTimeout)
            delay = _AGAIN

    timer = threading.Thread(target=expire, name="idemlint-time-limit", daemon=True)
    timer.start()
    try:
        with lock:
            armed.armed = True
        yield armed
    finally:
        # As with the alarm: one more may be raised while the timer is
        # disarmed, and is taken here, not left to raise after the block.
        while True:
            try:
                with lock:
                    armed.armed = False
                    _raise_in(target, None)  # one raised but not yet delivered: not after the block
                break
            except AnalysisTimeout:
                continue
        ended.set()


def _raise_in(thread: int, exception: Any) -> None:
    """Raise ``exception`` in ``thread`` at its next bytecode (None: take
    back one not raised yet)."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), ctypes.py_object(exception) if exception else None)
