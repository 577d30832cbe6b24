"""Time a cold idemlint run on one task with thousands of guarded calls.

    python bench/long_task.py [--runs N] [--calls N ...] [--write FILE]

Needs nothing downloaded: it generates, in a temporary directory, one module
per size (default 1 000, 2 000 and 4 000 calls) holding a single Celery
task whose body is that many ``if not order.sent_<i>:`` blocks, each around
a ``requests.post(...)`` without an idempotency key, so every call is one
IDM002 finding.  Each module is checked by ``idemlint check --no-cache`` as
a whole process (GNU ``/usr/bin/time`` gives its peak memory); the sizes
alternate, round after round, and the table gives the median wall time of
the rounds, the time per 1 000 calls (flat when the cost grows linearly with
the body) and the peak resident memory.  ``--write`` replaces the part of a
Markdown file between ``<!-- long-task:begin -->`` and
``<!-- long-task:end -->`` with the table.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import tempfile
from typing import Dict, List, Optional, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from performance import GNU_TIME, Command, Sample, bin_path, machine, run, write_report  # noqa: E402

BEGIN, END = "<!-- long-task:begin -->", "<!-- long-task:end -->"
DEFAULT_CALLS = (1000, 2000, 4000)


def task_module(calls: int) -> str:
    """One task whose body guards ``calls`` keyless POSTs, one finding each."""
    lines = ["import requests", "from celery import shared_task", "", "", "@shared_task", "def notify(order):"]
    for number in range(calls):
        lines.append(f"    if not order.sent_{number}:")
        lines.append(f"        requests.post('https://example.com/hooks/{number}', json={{'n': {number}}})")
    return "\n".join(lines) + "\n"


def prepare(directory: str, sizes: Sequence[int]) -> Dict[int, Command]:
    """The modules, a configuration of their own (so that no ``pyproject.toml``
    up the tree changes the run), and the command that checks each."""
    config = os.path.join(directory, "pyproject.toml")
    with open(config, "w", encoding="utf-8") as handle:
        handle.write("[tool.idemlint]\n")
    planned: Dict[int, Command] = {}
    for calls in sizes:
        name = f"task_{calls}.py"
        with open(os.path.join(directory, name), "w", encoding="utf-8") as handle:
            handle.write(task_module(calls))
        argv = (bin_path("idemlint"), "check", "--exit-zero", "--no-cache", "--config", config, name)
        planned[calls] = Command(f"{calls} calls", argv)
    return planned


def measure(sizes: Sequence[int], rounds: int) -> Dict[int, List[Sample]]:
    samples: Dict[int, List[Sample]] = {calls: [] for calls in sizes}
    with tempfile.TemporaryDirectory(prefix="idemlint-long-task-") as directory:
        planned = prepare(directory, sizes)
        for round_number in range(rounds):
            for calls, command in planned.items():
                samples[calls].append(run(command, directory))
            print(f"round {round_number + 1}/{rounds}", file=sys.stderr)
    return samples


def table(samples: Dict[int, List[Sample]]) -> str:
    lines = ["| calls in the task | `idemlint cold` | per 1 000 calls | peak memory |", "| --- | --- | --- | --- |"]
    for calls, runs in samples.items():
        median = statistics.median(sample.seconds for sample in runs)
        peak = max(sample.peak_kib for sample in runs) / 1024
        lines.append(f"| {calls:,} | {median:.2f} s | {median * 1000 / calls:.2f} s | {peak:.0f} MB |")
    return "\n".join(lines)


def report(samples: Dict[int, List[Sample]], rounds: int) -> str:
    today = datetime.date.today().isoformat()
    return "\n".join([
        BEGIN,
        (
            f"Measured on {today} by `python bench/long_task.py --runs {rounds}` on {machine()}: "
            f"median of {rounds} alternating rounds, whole-process wall time."
        ),
        "",
        table(samples),
        END,
    ])


def parse_arguments(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--calls", type=int, action="append", help="calls in the task (repeatable)")
    parser.add_argument("--write", metavar="FILE", help="replace the long-task section of FILE")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = parse_arguments(argv)
    if not os.path.exists(bin_path("idemlint")):
        raise SystemExit(f"idemlint is not installed beside {sys.executable} (pip install .)")
    if not os.access(GNU_TIME, os.X_OK):
        raise SystemExit(f"{GNU_TIME} (GNU time) is needed to measure peak memory")
    text = report(measure(arguments.calls or DEFAULT_CALLS, arguments.runs), arguments.runs)
    print(text)
    if arguments.write:
        write_report(arguments.write, text, BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
