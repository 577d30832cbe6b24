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
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.connection import Connection

# A worker that exits because the run is over has nothing to report.
_EXIT_RUN_OVER = 1
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


@contextmanager
def worker_pool(workers: int) -> Iterator["ProcessPoolExecutor"]:
    """A process pool whose workers exit when the run ends, however it ends.

    Interrupted (Ctrl-C or any exception), the workers are stopped at once
    instead of finishing the chunks they started.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context()
    lifeline, keep_alive = context.Pipe(duplex=False)
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_start_worker,
        initargs=(lifeline, keep_alive),
    )
    try:
        yield pool
    except BaseException:
        keep_alive.close()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        keep_alive.close()
        lifeline.close()


def _start_worker(lifeline: "Connection", keep_alive: "Connection") -> None:
    """Run in each worker before any work: tie its life to the main process's."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The worker's own copy of the writing end (inherited by fork, or passed
    # to a spawned worker): while it is open, the lifeline could never end.
    keep_alive.close()
    _die_with_parent()
    threading.Thread(target=_watch, args=(lifeline,), name="idemlint-lifeline", daemon=True).start()


def _watch(lifeline: "Connection") -> None:
    from multiprocessing.connection import wait

    wait([lifeline])  # nothing is ever sent: it becomes ready only at end of file
    os._exit(_EXIT_RUN_OVER)


def _die_with_parent() -> None:
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
