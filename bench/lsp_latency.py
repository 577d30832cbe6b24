"""Time ``idemlint server`` from an edit to the diagnostics it publishes.

    python bench/lsp_latency.py [--cache DIR] [--only NAME] [--runs N] [--debounce S]

For one application of :data:`APPLICATIONS` (downloaded and unpacked once
into the cache directory, default ``~/.cache/idemlint-corpus``, by
:mod:`corpus`) this script starts ``python -m idemlint server`` in the
application's directory, as an editor would, speaking LSP over its pipes
(a client of its own, standard library only), and

1. initializes it with that directory as the workspace folder and opens
   the task file (the one ``bench/performance.py`` edits), then waits for
   its first diagnostics: the first analysis, as warm as the project's
   cache is (the CLI's cache: ``idemlint check`` there warms it too);
2. ``--runs`` times over, replaces the buffer's text with the file's with
   a new comment line on top (new text every time, so that nothing is
   served from the cache) and times from sending ``didChange`` to
   receiving the diagnostics of that version, with the server's own time
   for the analysis (its log line), then prints the median, the fastest
   and the slowest;
3. shuts the server down.

The file on disk is never written.  The time includes the debounce (the
default, 0.25 s, unless ``--debounce``), which an editor's user waits too.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from typing import Any, Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from corpus import DEFAULT_CACHE, Application, download, package_directory, unpack  # noqa: E402

APPLICATIONS: Dict[str, Tuple[Application, str]] = {
    "weblate": (Application("weblate", "5.14.3", "weblate"), "weblate/trans/tasks.py"),
    "pretix": (Application("pretix", "2026.8.0", "pretix"), "pretix/base/services/cart.py"),
    "sentry": (Application("sentry", "23.7.1", "sentry"), "sentry/tasks/store.py"),
}
ANALYSED = re.compile(r"analysed \d+ open files? in ([0-9.]+) s")


class Server:
    """``idemlint server`` in a subprocess, and the messages it sends, each
    with the time it was read."""

    def __init__(self, argv: List[str], cwd: str) -> None:
        self.process = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.messages: "queue.Queue[Tuple[float, Dict[str, Any]]]" = queue.Queue()
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
                if header in (b"\r\n", b"\n"):
                    break
            if length is None:
                return
            message = json.loads(stream.read(length))
            self.messages.put((time.monotonic(), message))

    def send(self, message: Dict[str, Any]) -> float:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        stdin.flush()
        return time.monotonic()

    def request(self, method: str, params: Any) -> int:
        self._next_id += 1
        self.send({"id": self._next_id, "method": method, "params": params})
        return self._next_id

    def notify(self, method: str, params: Any) -> float:
        return self.send({"method": method, "params": params})

    def next(self, timeout: float) -> Tuple[float, Dict[str, Any]]:
        """The next message; a request from the server is answered (null) on the way."""
        at, message = self.messages.get(timeout=timeout)
        if "id" in message and "method" in message:
            self.send({"id": message["id"], "result": None})
        return at, message


def file_uri(path: str) -> str:
    return "file://" + urllib.parse.quote(os.fsencode(os.path.abspath(path)))


def wait_for_diagnostics(
    server: Server, uri: str, version: int, timeout: float
) -> Tuple[float, List[Dict[str, Any]], Optional[float]]:
    """When the diagnostics of ``version`` of ``uri`` came, with the
    server's analysis time logged before them."""
    analysed = None
    deadline = time.monotonic() + timeout
    while True:
        at, message = server.next(max(deadline - time.monotonic(), 0.01))
        method = message.get("method")
        if method == "window/logMessage":
            found = ANALYSED.search(message["params"]["message"])
            if found:
                analysed = float(found.group(1))
        params = message.get("params") or {}
        if method == "textDocument/publishDiagnostics" and params["uri"] == uri and params.get("version") == version:
            return at, params["diagnostics"], analysed


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", default=DEFAULT_CACHE)
    parser.add_argument("--only", default="weblate", choices=sorted(APPLICATIONS))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--debounce", type=float, default=None)
    parser.add_argument("--timeout", type=float, default=600)
    options = parser.parse_args(argv)
    cache = os.path.expanduser(options.cache)
    application, task_file = APPLICATIONS[options.only]
    root = os.path.join(cache, application.label)
    unpack(download(cache, application), root)
    package = package_directory(root, application.package)
    root = os.path.dirname(package)
    path = os.path.join(root, task_file)
    with open(path, encoding="utf-8") as handle:
        original = handle.read()

    command = [sys.executable, "-m", "idemlint", "server"]
    if options.debounce is not None:
        command += ["--debounce", str(options.debounce)]
    server = Server(command, cwd=root)
    uri = file_uri(path)
    folder = {"uri": file_uri(root), "name": application.name}
    server.request(
        "initialize",
        {"processId": os.getpid(), "rootUri": folder["uri"], "workspaceFolders": [folder], "capabilities": {}},
    )
    server.next(options.timeout)
    server.notify("initialized", {})
    started = server.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": original}},
    )
    arrived, diagnostics, _ = wait_for_diagnostics(server, uri, 1, options.timeout)
    print(f"{application.label}: {task_file}, {len(diagnostics)} diagnostics")
    print(f"first analysis (open): {arrived - started:.2f} s")

    latencies: List[float] = []
    analyses: List[float] = []
    for run in range(1, options.runs + 1):
        text = f"# lsp_latency edit {run}\n" + original
        sent = server.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": run + 1}, "contentChanges": [{"text": text}]},
        )
        arrived, _, analysed = wait_for_diagnostics(server, uri, run + 1, options.timeout)
        latencies.append(arrived - sent)
        if analysed is not None:
            analyses.append(analysed)
        print(f"edit {run}: {arrived - sent:.2f} s (analysis {analysed if analysed is not None else '?'} s)")

    server.request("shutdown", None)
    server.notify("exit", None)
    status = server.process.wait(timeout=60)
    debounce = options.debounce if options.debounce is not None else 0.25
    print(
        f"edit to diagnostics, {len(latencies)} runs, debounce {debounce} s: median {statistics.median(latencies):.2f} s,"
        f" fastest {min(latencies):.2f} s, slowest {max(latencies):.2f} s"
    )
    if analyses:
        print(f"the server's analysis: median {statistics.median(analyses):.2f} s")
    print(f"server exit status {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
