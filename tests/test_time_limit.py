"""A time limit on each task file's analysis (``--timeout``, ``timeout``).

A module past it is one ``IDM902`` line at 1:1, like ``IDM900``, in every
format, under flake8 and in the language server; the run goes on with the
other files and exits 2, as for any file not analysed; ``--statistics``
counts the files cut.  The limit stops the analysis in a main thread (an
alarm signal, which also ends a regular expression mid-match) and in any
other thread, and leaves nothing behind it (no late exception, the
caller's own alarm put back).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Dict, List, Optional

import pytest

from idemlint import lint_source
from idemlint.deadline import AnalysisTimeout, time_limit
from idemlint.report import FORMATS
from idemlint.settings import Settings

from conftest import RunCli

# 36 000 lines of tasks: far more than any half second analyses.
HUGE_LINES = 36_000
SMALL = '''\
import requests
from celery import shared_task


@shared_task
def charge(order_id):
    requests.post("https://pay.example/charge", json={"order": order_id})
'''


def huge_module(lines: int = HUGE_LINES) -> str:
    parts = ["import requests", "from celery import shared_task", ""]
    for number in range(lines // 6):
        parts += [
            "@shared_task",
            f"def task_{number}(order_id):",
            f"    total = order_id + {number}",
            f"    requests.post('https://example.com/{number}', json={{'total': total}})",
            "    return total",
            "",
        ]
    return "\n".join(parts) + "\n"


@pytest.fixture(autouse=True)
def _unraisable_left_to_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """A limit that rings in a gc callback (hypothesis installs one) is
    dropped there, by Python, and rings again 50 ms later.  pytest's hook
    for such an exception is Python code that the next ring can cut, which
    fails the test; Python's own hook, in C, cannot be cut."""
    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A huge task module and, beside it, a small one with one finding."""
    root = tmp_path_factory.mktemp("time-limit")
    (root / "huge_tasks.py").write_text(huge_module())
    (root / "small_tasks.py").write_text(SMALL)
    return root


def _cut_line(path: pathlib.Path) -> str:
    return f"{path}:1:1: IDM902 not analysed: analysis took longer than 0.5 s"


# --------------------------------------------------------------------------
# The limit itself


CATASTROPHIC = re.compile(r"(?:a|a)*b")  # 2**n on "aaa...": never returns on 60 a's


def test_an_alarm_ends_a_regular_expression_mid_match(hang_guard: None) -> None:
    started = time.monotonic()
    with pytest.raises(AnalysisTimeout):
        with time_limit(0.2):
            CATASTROPHIC.match("a" * 60)
    assert time.monotonic() - started < 20  # not the years the whole match would take


def test_a_timer_ends_python_code_in_another_thread() -> None:
    outcome: Dict[str, Any] = {}

    def analyse() -> None:
        try:
            with time_limit(0.2):
                while True:
                    pass
        except AnalysisTimeout:
            outcome["stopped"] = True

    thread = threading.Thread(target=analyse, daemon=True)
    thread.start()
    thread.join(30)
    assert outcome == {"stopped": True}


@pytest.mark.parametrize("in_thread", [False, True])
def test_nothing_is_raised_after_the_block(in_thread: bool) -> None:
    """A block that ends just as its time is up raises inside, or not at all."""
    failures: List[BaseException] = []

    def run() -> None:
        try:
            for _ in range(200):
                try:
                    with time_limit(0.001):
                        sum(range(2_000))
                except AnalysisTimeout:
                    pass
                sum(range(20_000))  # where a late exception would land
        except BaseException as error:  # pragma: no cover - the failure this test is for
            failures.append(error)

    if in_thread:
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(60)
        assert not thread.is_alive()
    else:
        run()
    assert failures == []


def test_a_timer_that_expires_before_the_block_starts_raises_in_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """The timer thread is slow to start (a loaded machine) and the limit
    short: the limit is raised inside the block, not out of the thread's
    start, which would leave the timer raising in the caller's code."""
    started_slowly = threading.Thread

    class SlowToStart(started_slowly):  # type: ignore[misc, valid-type]
        def start(self) -> None:
            super().start()
            time.sleep(0.1)  # the timer expires before this returns

    outcome: Dict[str, Any] = {}

    def analyse() -> None:
        try:
            with time_limit(0.001) as limit:
                outcome["entered"] = True
                while True:
                    sum(range(100))
        except AnalysisTimeout:
            outcome["rang"] = limit.rang
        try:
            until = time.monotonic() + 0.3
            while time.monotonic() < until:  # where a timer left running would raise
                sum(range(100))
            outcome["after"] = "nothing raised"
        except AnalysisTimeout:  # pragma: no cover - the failure this test is for
            outcome["after"] = "raised after the block"

    monkeypatch.setattr(threading, "Thread", SlowToStart)
    thread = started_slowly(target=analyse, daemon=True)
    thread.start()
    thread.join(30)
    assert outcome == {"entered": True, "rang": True, "after": "nothing raised"}


def test_the_callers_alarm_and_handler_are_put_back() -> None:
    rang: List[int] = []

    def ring(signum: int, frame: Any) -> None:
        rang.append(signum)

    previous = signal.signal(signal.SIGALRM, ring)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        with time_limit(5):
            pass
        assert signal.getsignal(signal.SIGALRM) is ring
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < left <= 0.5
        time.sleep(1)
        assert rang == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_an_alarm_that_rings_as_the_block_ends_is_taken_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """The alarm rings once more just as the block ends (here: in the call
    that disarms it): the block ends all the same, no timer is left running
    to raise in the caller's code, and the caller's handler is put back."""
    real_setitimer = signal.setitimer
    stops: List[str] = []

    def rings_while_disarmed(which: int, seconds: float, interval: float = 0.0) -> Any:
        if seconds == 0:
            stops.append("saved the caller's" if not stops else "disarmed")
            if len(stops) == 2:
                raise AnalysisTimeout()  # as the handler would, had the signal come here
        return real_setitimer(which, seconds, interval)

    previous = signal.getsignal(signal.SIGALRM)
    monkeypatch.setattr(signal, "setitimer", rings_while_disarmed)
    with time_limit(5) as limit:
        pass
    monkeypatch.undo()
    assert stops == ["saved the caller's", "disarmed", "disarmed"]
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is previous
    assert not limit.armed


def test_no_limit_is_no_limit() -> None:
    with time_limit(None):
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


# --------------------------------------------------------------------------
# Where it applies


def test_lint_source_reports_a_module_past_the_limit() -> None:
    result = lint_source(huge_module(), "huge_tasks.py", Settings(timeout=0.5))
    assert [(p.path, p.line, p.column, p.code) for p in result.problems] == [("huge_tasks.py", 1, 1, "IDM902")]
    assert result.findings == ()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_check_cuts_the_huge_module_and_analyses_the_one_beside_it(
    project: pathlib.Path, run_cli: RunCli, jobs: str
) -> None:
    status, out, err = run_cli(
        "check", "--no-cache", "--timeout", "0.5", "--jobs", jobs, "--statistics", str(project)
    )
    lines = out.splitlines()
    assert status == 2
    assert any(line.startswith(_cut_line(project / "huge_tasks.py")) for line in lines)
    assert f"{project / 'small_tasks.py'}:7:5: IDM002" in out
    assert not any(line.startswith(f"{project / 'huge_tasks.py'}:") and "IDM902" not in line for line in lines)
    assert "1  files not analysed: past the time limit (IDM902)" in out


def test_the_configuration_sets_the_limit_and_the_command_line_overrides_it(
    project: pathlib.Path, tmp_path: pathlib.Path, run_cli: RunCli
) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.idemlint]\ntimeout = 0.5\n")
    huge = str(project / "huge_tasks.py")
    status, out, _ = run_cli("check", "--no-cache", "--config", str(config), huge)
    assert status == 2 and "IDM902" in out
    config.write_text("[tool.idemlint]\ntimeout = 0.001\n")
    status, out, _ = run_cli("check", "--no-cache", "--config", str(config), "--timeout", "120", str(project / "small_tasks.py"))
    assert status == 1 and "IDM902" not in out


@pytest.mark.parametrize("value", ['"30"', "0", "-1", "true", "inf"])
def test_a_limit_that_is_not_a_positive_number_is_a_configuration_error(
    tmp_path: pathlib.Path, run_cli: RunCli, value: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.idemlint]\ntimeout = {value}\n")
    (tmp_path / "tasks.py").write_text(SMALL)
    status, _, err = run_cli("check", "--config", str(tmp_path / "pyproject.toml"), str(tmp_path / "tasks.py"))
    assert status == 2 and "'timeout' in [tool.idemlint] must be a" in err


def test_a_result_cut_by_the_limit_is_not_cached(project: pathlib.Path, tmp_path: pathlib.Path, run_cli: RunCli) -> None:
    cache = str(tmp_path / "cache")
    huge = str(project / "huge_tasks.py")
    assert run_cli("check", "--cache-dir", cache, "--timeout", "0.5", huge)[0] == 2
    status, out, _ = run_cli("check", "--cache-dir", cache, "--timeout", "300", huge)
    assert status == 1 and "IDM902" not in out and "IDM002" in out


def test_tasks_reports_a_module_past_the_limit(project: pathlib.Path, run_cli: RunCli) -> None:
    status, out, err = run_cli("tasks", "--timeout", "0.5", "--format", "json", str(project))
    assert [task["name"] for task in json.loads(out)] == ["small_tasks.charge"]
    assert f"{project / 'huge_tasks.py'}:1:1: IDM902" in err


@pytest.mark.sweep
@pytest.mark.parametrize("output_format", FORMATS)
def test_every_format_reports_the_cut_module(project: pathlib.Path, run_cli: RunCli, output_format: str) -> None:
    huge = str(project / "huge_tasks.py")
    status, out, err = run_cli("check", "--no-cache", "--timeout", "0.5", "--format", output_format, huge)
    assert status == 2
    assert "IDM902" in out + err


@pytest.mark.slow  # a subprocess analysing a huge module: in make test-all
def test_flake8_reports_the_cut_module(project: pathlib.Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "IDM", "--idemlint-timeout", "0.5",
         "huge_tasks.py", "small_tasks.py"],
        cwd=project, capture_output=True, text=True, timeout=600,
    )
    lines = result.stdout.splitlines()
    assert "huge_tasks.py:1:1: IDM902 not analysed: analysis took longer than 0.5 s" in "\n".join(lines)
    assert any(line.startswith("small_tasks.py:7:5: IDM002") for line in lines)
    assert not [line for line in lines if line.startswith("huge_tasks.py") and "IDM902" not in line]


# --------------------------------------------------------------------------
# The language server


class _Client:
    """The server over stdio, as an editor speaks to it."""

    def __init__(self, cwd: pathlib.Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "idemlint", "server"],
            cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self._next = 0

    def send(self, method: str, params: Optional[Dict[str, Any]] = None, request: bool = False) -> Optional[int]:
        message: Dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        number = None
        if request:
            self._next += 1
            number = message["id"] = self._next
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.process.stdin.flush()
        return number

    def answer(self, number: int) -> Dict[str, Any]:
        """Messages until the response to request ``number``."""
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            length = 0
            for header in iter(stdout.readline, b"\r\n"):
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
                assert header, "the server closed its output"
            message = json.loads(stdout.read(length))
            if message.get("id") == number and "method" not in message:
                return message


@pytest.mark.slow  # a subprocess analysing a huge module: in make test-all
def test_the_server_answers_shutdown_at_once_whatever_it_analyses(tmp_path: pathlib.Path, hang_guard: None) -> None:
    """The huge module holds libcst's parser (and the GIL) for seconds at a
    stretch: analysed in the server's own process, it held ``shutdown``
    back until the parser let go."""
    (tmp_path / "pyproject.toml").write_text("[tool.idemlint]\n")
    huge = tmp_path / "huge_tasks.py"
    huge.write_text(huge_module(100_000))
    client = _Client(tmp_path)
    try:
        first = client.send("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}}, request=True)
        assert first is not None and "result" in client.answer(first)
        client.send("initialized")
        client.send("textDocument/didOpen", {"textDocument": {
            "uri": huge.as_uri(), "languageId": "python", "version": 1, "text": huge.read_text(),
        }})
        time.sleep(3)  # the analysis is under way, in the parser
        started = time.monotonic()
        number = client.send("shutdown", request=True)
        assert number is not None and client.answer(number).get("error") is None
        assert time.monotonic() - started < 1.0
        client.send("exit")
        assert client.process.wait(30) == 0
    finally:
        if client.process.poll() is None:
            client.process.kill()
        client.process.wait()


def test_a_limit_dropped_in_a_collectors_callback_is_raised_again() -> None:
    """Python drops an exception raised in a gc callback (as hypothesis
    installs one): the limit is raised again until the block ends."""
    import gc

    dropped: List[bool] = []

    def callback(phase: str, info: Dict[str, Any]) -> None:
        if not dropped:
            dropped.append(True)
            time.sleep(0.5)  # the alarm rings in here, and is dropped

    gc.callbacks.append(callback)
    try:
        with pytest.raises(AnalysisTimeout):
            with time_limit(0.2):
                gc.collect()
                while True:
                    sum(range(100))
    finally:
        gc.callbacks.remove(callback)
    assert dropped == [True]


def test_a_limit_turned_into_another_exception_is_still_a_cut() -> None:
    """A library between the alarm and the caller may turn the timeout into
    its own error, which the IDM900 guards report: the limit rang, so the
    block was cut."""
    with time_limit(0.1) as limit:
        try:
            while True:
                sum(range(100))
        except AnalysisTimeout as error:
            converted = RuntimeError("a parser's own error")
            converted.__cause__ = error
    assert limit.rang and converted.__cause__ is not None
