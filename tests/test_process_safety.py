"""A run that is killed, interrupted, or has a file swapped under it ends cleanly.

Real ``idemlint`` processes on a generated project big enough that its
worker processes are busy for seconds: ``kill -9`` of the main process must
not leave workers behind, Ctrl-C must exit 130 with one line and nothing
half-written.  And a checked file replaced by a FIFO after discovery is one
``E902`` line, never a hang.
"""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time
from typing import Callable, Iterator, List

import pytest
from conftest import RunCli

import idemlint.engine
from idemlint.reading import FileTooLarge, NotRegularFile, read_regular

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and POSIX signals")
linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="finds child processes through /proc"
)

# Long enough that a run still has seconds of analysis left once its
# workers have started (each file: 10 tasks of 20 statements, 100 findings).
FILES = 40
TASKS_PER_FILE = 10
CALLS_PER_TASK = 10


def write_busy_project(root: pathlib.Path) -> pathlib.Path:
    project = root / "busy"
    project.mkdir()
    for number in range(FILES):
        parts = ["import requests\nfrom celery import shared_task\n\n"]
        for task in range(TASKS_PER_FILE):
            body = "".join(
                f"    total += helper_{task}(order_id + {call})\n"
                f"    requests.post('https://partner.example/{call}', json={{'id': order_id}})\n"
                for call in range(CALLS_PER_TASK)
            )
            parts.append(
                f"def helper_{task}(x):\n    return x\n\n"
                f"@shared_task\ndef task_{task}(order_id):\n    total = 0\n{body}    return total\n\n"
            )
        (project / f"tasks_{number:02}.py").write_text("".join(parts))
    return project


def console_script() -> str:
    return os.path.join(os.path.dirname(sys.executable), "idemlint")


def children_of(pid: int) -> List[int]:
    """Live processes whose parent is ``pid`` (from /proc: psutil is not a dependency)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = pathlib.Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            found.append(int(name))
    return found


def is_alive(pid: int) -> bool:
    """Running or sleeping; a zombie has exited (whoever adopted it may never reap it)."""
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def wait_until(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def _takes_ctrl_c() -> None:
    """Run in the child before idemlint starts: SIGINT as a terminal's
    program gets it.  A job a non-interactive shell starts in the background
    (``make test &``) inherits SIGINT ignored, and Python leaves it so."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Run:
    """``idemlint check`` in its own session (so a signal can go to its whole
    process group, as Ctrl-C does), output in files: a leaked worker holding
    a pipe open must not hang the test."""

    def __init__(self, tmp_path: pathlib.Path, *arguments: str) -> None:
        self.out = tmp_path / "stdout"
        self.err = tmp_path / "stderr"
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.process = subprocess.Popen(
                [console_script(), "check", *arguments],
                cwd=tmp_path, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                start_new_session=True, preexec_fn=_takes_ctrl_c,
            )
        self.workers: List[int] = []

    def wait_for_workers(self, count: int) -> List[int]:
        assert wait_until(lambda: len(children_of(self.process.pid)) >= count, 60), (
            "the workers never started", self.err.read_text()
        )
        self.workers = children_of(self.process.pid)
        return self.workers

    def wait_for_analysis(self) -> None:
        """Until libcst's parser is loaded: the run is analysing, not starting up."""
        maps = pathlib.Path(f"/proc/{self.process.pid}/maps")
        assert wait_until(lambda: "libcst" in maps.read_text(), 60), self.err.read_text()

    def close(self) -> None:
        for pid in [self.process.pid, *self.workers]:
            if is_alive(pid):
                os.kill(pid, signal.SIGKILL)  # processes this test started
        self.process.wait(timeout=30)


@pytest.fixture
def busy(tmp_path: pathlib.Path) -> pathlib.Path:
    write_busy_project(tmp_path)
    return tmp_path


@linux_only
def test_workers_exit_when_the_main_process_is_killed(busy: pathlib.Path) -> None:
    run = Run(busy, "--jobs", "2", "--no-cache", "busy")
    try:
        workers = run.wait_for_workers(2)
        os.kill(run.process.pid, signal.SIGKILL)
        assert run.process.wait(timeout=30) == -signal.SIGKILL  # killed mid-run, not finished
        # A correctness bound (no worker outlives the main process), not a benchmark:
        # the workers must be gone within about a second.
        assert wait_until(lambda: not any(is_alive(pid) for pid in workers), 3), [
            pid for pid in workers if is_alive(pid)
        ]
    finally:
        run.close()


@linux_only
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_exits_130_with_one_line_and_nothing_half_written(
    busy: pathlib.Path, jobs: str
) -> None:
    report = busy / "report.txt"
    run = Run(busy, "--jobs", jobs, "--output-file", str(report), "busy")
    try:
        if jobs == "1":
            run.wait_for_analysis()
        else:
            run.wait_for_workers(2)
        os.killpg(run.process.pid, signal.SIGINT)  # what a terminal does on Ctrl-C
        assert run.process.wait(timeout=30) == 130
        assert run.err.read_text().strip() == "idemlint: interrupted"  # no worker tracebacks
        assert wait_until(lambda: not any(is_alive(pid) for pid in run.workers), 3)
    finally:
        run.close()
    assert not report.exists()
    assert [path.name for path in busy.rglob("*.tmp")] == []


@linux_only
def test_sigint_to_the_main_process_alone_stops_its_workers(busy: pathlib.Path) -> None:
    run = Run(busy, "--jobs", "2", "--no-cache", "busy")
    try:
        workers = run.wait_for_workers(2)
        os.kill(run.process.pid, signal.SIGINT)  # `kill -INT`, `timeout -s INT`
        assert run.process.wait(timeout=30) == 130
        assert run.err.read_text().strip() == "idemlint: interrupted"
        assert not any(is_alive(pid) for pid in workers)  # stopped before the main process exits
    finally:
        run.close()


# --- a file swapped for a FIFO between discovery and reading -----------------

TASK = """\
import requests
from celery import shared_task

from helpers import audit

@shared_task
def notify(order_id):
    audit(order_id)
    requests.post('https://partner.example/orders', json={'id': order_id})
"""
HELPERS = """\
import requests

def audit(order_id):
    requests.post('https://audit.example/', json={'id': order_id})
"""


@posix_only
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_replaced_by_a_fifo_after_discovery_is_one_line(
    tmp_path: pathlib.Path,
    run_cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
    alarm: None,
    jobs: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tasks.py").write_text(TASK)
    (tmp_path / "helpers.py").write_text(HELPERS)
    discover = idemlint.engine.discover

    def discover_then_swap(*arguments: object, **options: object) -> Iterator[object]:
        for item in discover(*arguments, **options):  # type: ignore[arg-type]
            yield item
            if item == "./helpers.py":  # decided on as a regular file, now a FIFO
                os.unlink("helpers.py")
                os.mkfifo("helpers.py")

    monkeypatch.setattr(idemlint.engine, "discover", discover_then_swap)
    status, out, err = run_cli("check", "--no-cache", "--jobs", jobs, ".")
    assert status == 2
    lines = out.splitlines()
    assert "./helpers.py:1:1: E902 not a regular file" in lines
    # The task is still analysed (its own finding), the FIFO read by no one.
    assert [line.split(": ")[1].split()[0] for line in lines] == ["E902", "IDM002"]
    assert err == ""


@posix_only
def test_reading_refuses_fifos_and_devices_without_blocking(
    tmp_path: pathlib.Path, alarm: None
) -> None:
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile):
        read_regular(str(fifo))  # no writer: a blocking open would wait forever
    if os.path.exists("/dev/zero"):
        with pytest.raises(NotRegularFile):
            read_regular("/dev/zero", limit=1024)  # would never end


def test_reading_stops_at_the_limit(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 11)
    assert read_regular(str(path), limit=11) == b"x" * 11
    with pytest.raises(FileTooLarge):
        read_regular(str(path), limit=10)
    with pytest.raises(IsADirectoryError):
        read_regular(str(tmp_path))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors in /proc")
def test_reading_what_it_refuses_leaves_no_descriptor_open(tmp_path: pathlib.Path) -> None:
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        for refused in (str(tmp_path), str(fifo)):
            with pytest.raises(OSError):
                read_regular(refused)
    assert len(os.listdir("/proc/self/fd")) == before
