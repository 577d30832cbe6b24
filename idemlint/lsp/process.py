"""The language server's analyses, in a process of their own.

An analysis in a thread of the server's process could stop the server
answering anything, ``shutdown`` included: libcst's native parser holds the
GIL for about 2 s on a 36 000-line module, and a regular expression holds
it for the whole of its match.  So the analyses run in a child process, one
at a time.  The server's analysis thread waits for each on a pipe, without
the GIL; ``shutdown`` and ``exit`` end the child at once, whatever it is
doing; and each task file's time limit works there as in the CLI (the
child analyses in its main thread, where an alarm signal can stop it).

The child is spawned, not forked: a fork of a process with threads can
inherit a lock another thread held.  It dies with the server: at the end
of its pipe when idle, and on Linux as soon as the server does.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TYPE_CHECKING, Any, Optional, Sequence, Tuple

from idemlint.lsp.analysis import Buffer, Report, analyse

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess


class AnalysisEnded(Exception):
    """The child ended before it answered: stopped, or killed by the system."""


class AnalysisProcess:
    """A child process that analyses the buffers it is sent, one request at
    a time; started when first asked, and again after it ended."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: Optional["BaseProcess"] = None
        self._connection: Optional["Connection"] = None
        self._stopped = False

    def analyse(self, buffers: Sequence[Buffer], roots: Sequence[str]) -> Report:
        """The report on ``buffers``, from the child (waits for it)."""
        connection = self._running()
        try:
            connection.send((list(buffers), list(roots)))
            outcome, value = connection.recv()
        except (EOFError, OSError) as error:
            self._forget(connection)
            raise AnalysisEnded("the analysis process ended before it answered") from error
        if outcome == "error":
            raise RuntimeError(value)
        assert isinstance(value, Report)
        return value

    def stop(self) -> None:
        """End the child now (an analysis under way ends with it); no other starts."""
        with self._lock:
            self._stopped = True
            process, self._process = self._process, None
        if process is not None and process.is_alive():
            process.kill()
            process.join(1)

    def _running(self) -> "Connection":
        import multiprocessing

        with self._lock:
            if self._stopped:
                raise AnalysisEnded("the server is shutting down")
            if self._process is not None and self._process.is_alive() and self._connection is not None:
                return self._connection
            context = multiprocessing.get_context("spawn")
            ours, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs,), name="idemlint-analysis", daemon=True)
            process.start()
            theirs.close()
            self._process, self._connection = process, ours
            return ours

    def _forget(self, connection: "Connection") -> None:
        with self._lock:
            if self._connection is connection:
                self._process, self._connection = None, None
        connection.close()


def _serve(connection: "Connection") -> None:
    """The child: analyse each request, answer, until the pipe ends."""
    from idemlint.workers import die_with_parent

    die_with_parent()
    # Standard output is the protocol's: nothing of the child's may reach it.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    while True:
        try:
            buffers, roots = connection.recv()
        except (EOFError, OSError):
            return
        answer: Tuple[str, Any]
        try:
            answer = ("report", analyse(buffers, roots))
        except Exception as error:  # analyse reports rather than raises; a bug all the same
            answer = ("error", f"{type(error).__name__}: {error}")
        try:
            connection.send(answer)
        except (BrokenPipeError, OSError):
            return
