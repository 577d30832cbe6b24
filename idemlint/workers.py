"""Worker processes that never outlive the run that started them.

A pool's idle workers wait on a queue whose writing end each of them holds
too (fork copies it), so when the main process is killed (``kill -9`` by an
editor or a CI runner) nothing wakes them and they would wait forever.  So
each worker watches a lifeline, a pipe whose writing end only the main
process keeps: at its end of file (the main process died, or closed it
because the run was interrupted) the worker exits at once, on every
platform.  On Linux the kernel also kills a worker when the process that
started it dies (``PR_SET_PDEATHSIG``), which works even while the worker
runs C code that holds the GIL and its watching thread cannot run.

Workers ignore SIGINT: Ctrl-C reaches the whole process group, and only the
main process reports it (exit status 130), not one traceback per worker.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Tuple

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.connection import Connection

# A worker that exits because the run is over has nothing to report.
_EXIT_RUN_OVER = 1
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


@contextmanager
def worker_pool(
    workers: int, setup: Optional[Callable[..., None]] = None, setup_args: Tuple[Any, ...] = ()
) -> Iterator["ProcessPoolExecutor"]:
    """A process pool whose workers exit when the run ends, however it ends;
    each runs ``setup(*setup_args)`` before any work.

    Interrupted (Ctrl-C or any exception), the workers are stopped at once
    instead of finishing the work they started; Ctrl-C is then raised as
    ``KeyboardInterrupt`` once the pool is shut down.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context()
    reading_end, writing_end = context.Pipe(duplex=False)
    lifeline = _Lifeline(writing_end)
    with _interrupts_cut(lifeline):
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(reading_end, writing_end, setup, setup_args),
        )
        failed = False
        try:
            yield pool
        except BaseException:
            failed = True
            lifeline.cut()
            if not lifeline.interrupted:  # else the pool broke because it was cut
                raise
        finally:
            if failed or lifeline.interrupted:
                _unblock_feeder(pool)
            pool.shutdown(wait=True, cancel_futures=True)
            lifeline.cut()
            reading_end.close()
    if lifeline.interrupted:
        raise KeyboardInterrupt


def _unblock_feeder(pool: "ProcessPoolExecutor") -> None:
    """Let a pool whose workers died shut down on Python 3.9 and 3.10.

    Shutting down joins the thread that feeds the workers' queue; once they
    are gone, a feeder blocked on the full pipe waits for a reader that
    never comes, unless the main process's own reading end is closed too.
    Python 3.11 does just that when its workers die abruptly; before it,
    only this (the pool's private queue, hence the care) avoids the hang.
    """
    if sys.version_info >= (3, 11):
        return
    reader = getattr(getattr(pool, "_call_queue", None), "_reader", None)
    if reader is not None:
        reader.close()


class _Lifeline:
    """The writing end of the workers' lifeline, closed once by whoever comes
    first: the main thread ending the run, or its SIGINT handler, which can
    run in the middle of the former."""

    def __init__(self, writing_end: "Connection") -> None:
        self._writing_end = writing_end
        self._once = threading.Lock()
        self.interrupted = False

    def cut(self) -> None:
        if self._once.acquire(blocking=False):
            self._writing_end.close()

    def interrupt(self, signum: int, frame: Optional[FrameType]) -> None:
        self.interrupted = True
        self.cut()


@contextmanager
def _interrupts_cut(lifeline: _Lifeline) -> Iterator[None]:
    """While the pool runs, Ctrl-C cuts the lifeline instead of raising
    ``KeyboardInterrupt`` wherever the main thread happens to be: raised
    inside the pool's own code (starting its thread, forking a worker), it
    can leave the pool unable to shut down."""
    previous = None
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        try:
            previous = signal.signal(signal.SIGINT, lifeline.interrupt)
        except ValueError:  # not the main thread, which alone handles signals
            previous = None
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _start_worker(
    reading_end: "Connection",
    writing_end: "Connection",
    setup: Optional[Callable[..., None]],
    setup_args: Tuple[Any, ...],
) -> None:
    """Run in each worker before any work: tie its life to the main
    process's, then the run's own setup."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The worker's own copy of the writing end (inherited by fork, or passed
    # to a spawned worker): while it is open, the lifeline could never end.
    writing_end.close()
    die_with_parent()
    threading.Thread(target=_watch, args=(reading_end,), name="idemlint-lifeline", daemon=True).start()
    if setup is not None:
        setup(*setup_args)


def _watch(reading_end: "Connection") -> None:
    from multiprocessing.connection import wait

    wait([reading_end])  # nothing is ever sent: it becomes ready only at end of file
    os._exit(_EXIT_RUN_OVER)


def die_with_parent() -> None:
    """Ask Linux to kill this process when the one that started it dies.

    That is the death of the starting *thread*: the pool starts its workers
    from the thread that submits work, which waits in the pool until every
    worker is gone.  If the parent died before this call, the lifeline has
    already ended and the watching thread exits.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(
            _PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), ctypes.c_ulong(0),
            ctypes.c_ulong(0), ctypes.c_ulong(0),
        )
    except (OSError, AttributeError):  # no usable libc: the lifeline still holds
        return
