"""The terminal: colour, the summary line, -q/-v and the review format's width.

Runs the installed ``idemlint`` in a subprocess, with its output piped and
on a real pseudo-terminal, since what it prints depends on which it is.
"""

from __future__ import annotations

import io
import os
import pathlib
import re
import subprocess
import sys
from typing import Dict, List, Optional, Tuple

import pytest

from idemlint import lint_paths
from idemlint.report.terminal import ProgressBar, summary

pty = pytest.importorskip("pty")

TASK = """\
import stripe
from celery import shared_task


@shared_task
def charge_order(order_id):
    stripe.Charge.create(amount=1, currency="eur")


@shared_task
def payout():
    stripe.Payout.create(amount=1, currency="eur")
"""

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def environment(**changes: Optional[str]) -> Dict[str, str]:
    env = dict(os.environ)
    for name in ("NO_COLOR", "TERM", "COLUMNS"):
        env.pop(name, None)
    env["TERM"] = "xterm"
    for name, value in changes.items():
        if value is not None:
            env[name] = value
    return env


def piped(cwd: pathlib.Path, *args: str, **env: Optional[str]) -> Tuple[int, str, str]:
    result = subprocess.run(
        [sys.executable, "-m", "idemlint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=environment(**env),
        timeout=120,
    )
    return result.returncode, result.stdout, result.stderr


def on_a_terminal(cwd: pathlib.Path, *args: str, **env: Optional[str]) -> Tuple[int, str]:
    """Runs idemlint with stdout and stderr on one pseudo-terminal; its status and output."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "idemlint", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env=environment(**env),
    )
    os.close(follower)
    chunks: List[bytes] = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the process closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    status = process.wait(timeout=120)
    return status, b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


@pytest.fixture
def project(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "tasks.py").write_text(TASK, "utf-8")
    return tmp_path


def test_piped_output_is_plain_and_has_no_summary(project: pathlib.Path) -> None:
    status, out, err = piped(project, "check", "--no-cache", "tasks.py")
    assert status == 1
    assert not ANSI.search(out)
    assert out.startswith("tasks.py:7:5: IDM002 ")
    assert err == ""


def test_colour_always_and_never(project: pathlib.Path) -> None:
    coloured = piped(project, "check", "--no-cache", "--color", "always", "tasks.py")[1]
    assert "\x1b[1mtasks.py\x1b[0m\x1b[36m:7:5:\x1b[0m \x1b[31m\x1b[1mIDM002\x1b[0m " in coloured
    assert ANSI.sub("", coloured) == piped(project, "check", "--no-cache", "tasks.py")[1]
    assert not ANSI.search(piped(project, "check", "--no-cache", "--color", "never", "tasks.py")[1])


def test_a_terminal_gets_colour_and_the_summary(project: pathlib.Path) -> None:
    status, out = on_a_terminal(project, "check", "--no-cache", "tasks.py")
    assert status == 1
    assert "\x1b[31m\x1b[1mIDM002\x1b[0m" in out
    assert ANSI.sub("", out).endswith(
        "Found 2 findings in 1 file (1 with `--fix --unsafe-fixes`).\n"
    )


def test_no_color_turns_colour_off_but_keeps_the_summary(project: pathlib.Path) -> None:
    out = on_a_terminal(project, "check", "--no-cache", "tasks.py", NO_COLOR="1")[1]
    assert not ANSI.search(out)
    assert out.endswith("Found 2 findings in 1 file (1 with `--fix --unsafe-fixes`).\n")
    # An empty NO_COLOR does not count (no-color.org), nor does a dumb terminal colour.
    assert ANSI.search(on_a_terminal(project, "check", "--no-cache", "tasks.py", NO_COLOR="")[1])
    assert not ANSI.search(on_a_terminal(project, "check", "--no-cache", "tasks.py", TERM="dumb")[1])


def test_quiet_prints_the_report_alone(project: pathlib.Path) -> None:
    out = on_a_terminal(project, "check", "--no-cache", "-q", "--color", "never", "tasks.py")[1]
    assert out.splitlines() == [line for line in out.splitlines() if line.startswith("tasks.py:")]
    assert len(out.splitlines()) == 2


def test_verbose_summarises_even_when_piped(project: pathlib.Path) -> None:
    status, _, err = piped(project, "check", "--no-cache", "-v", "tasks.py")
    assert status == 1
    checked, found = err.splitlines()
    assert re.fullmatch(r"Checked 1 file in \d+\.\d\ds\.", checked)
    assert found == "Found 2 findings in 1 file (1 with `--fix --unsafe-fixes`)."


def test_a_clean_run_says_so(tmp_path: pathlib.Path) -> None:
    (tmp_path / "clean.py").write_text("x = 1\n", "utf-8")
    status, out = on_a_terminal(tmp_path, "check", "--no-cache", "clean.py")
    assert (status, out) == (0, "All checks passed!\n")


def test_quiet_and_verbose_together_are_a_usage_error(project: pathlib.Path) -> None:
    status, _, err = piped(project, "check", "-q", "-v", "tasks.py")
    assert status == 2
    assert "--quiet and --verbose cannot be used together" in err


def test_the_review_format_wraps_to_the_terminal(project: pathlib.Path) -> None:
    narrow = on_a_terminal(project, "check", "--no-cache", "--format", "review", "tasks.py", COLUMNS="61")[1]
    wide = piped(project, "check", "--no-cache", "--format", "review", "tasks.py")[1]
    prose = _why_and_fix(ANSI.sub("", narrow))
    assert len(prose) > 4 and max(len(line) for line in prose) <= 60
    # Piped, the comment keeps its width of 88 columns.
    assert max(len(line) for line in wide.splitlines() if line.startswith("  Why:")) > 60


def _why_and_fix(review: str) -> List[str]:
    """The lines of the comments' Why and Fix paragraphs."""
    lines: List[str] = []
    inside = False
    for line in review.splitlines():
        inside = line.startswith(("  Why:", "  Fix:")) or (inside and line.startswith("       "))
        if inside:
            lines.append(line)
    return lines


def test_a_report_written_to_a_file_is_plain(project: pathlib.Path) -> None:
    on_a_terminal(project, "check", "--no-cache", "--color", "always", "--output-file", "out.txt", "tasks.py")
    assert not ANSI.search((project / "out.txt").read_text("utf-8"))


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ((0, 0, 0, 0), "All checks passed!"),
        ((1, 1, 0, 0), "Found 1 finding in 1 file."),
        ((12, 4, 3, 0), "Found 12 findings in 4 files (3 fixable with `idemlint check --fix`)."),
        ((12, 4, 3, 2), "Found 12 findings in 4 files (3 fixable with `idemlint check --fix`; "
                        "2 more with `--fix --unsafe-fixes`)."),
    ],
)
def test_the_summary_line(counts: Tuple[int, int, int, int], expected: str) -> None:
    assert summary(*counts) == expected


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_progress_bar_waits_a_second_then_draws_and_is_erased() -> None:
    stream, clock = io.StringIO(), _Clock()
    bar = ProgressBar(stream, clock=clock)
    bar.update(1, 4)
    assert stream.getvalue() == ""  # a quick run prints nothing
    clock.now = 1.5
    bar.update(2, 4)
    assert stream.getvalue() == "\r[###############...............] 2/4 task files"
    clock.now = 1.55
    bar.update(3, 4)  # redrawn at most every tenth of a second, except at the end
    bar.update(4, 4)
    assert stream.getvalue().endswith("\r[##############################] 4/4 task files")
    bar.clear()
    assert stream.getvalue().endswith("\r\x1b[K")


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_engine_reports_progress_as_task_files_are_done(tmp_path: pathlib.Path, jobs: int) -> None:
    for number in range(3):
        (tmp_path / f"tasks_{number}.py").write_text(TASK, "utf-8")
    seen: List[Tuple[int, int]] = []
    lint_paths([str(tmp_path)], jobs=jobs, progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 3) and seen[-1] == (3, 3)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_the_summary_counts_files_that_could_not_be_analysed(tmp_path: pathlib.Path) -> None:
    (tmp_path / "broken.py").write_text("from celery import shared_task\n@shared_task\ndef f(:\n", "utf-8")
    status, _, err = piped(tmp_path, "check", "--no-cache", "-v", "broken.py")
    assert status == 2
    assert err.splitlines()[-1] == "1 file could not be analysed."
    assert summary(2, 1, 0, 0, problems=2) == "Found 2 findings in 1 file. 2 files could not be analysed."


def test_progress_reaches_the_total_when_a_file_cannot_be_parsed(tmp_path: pathlib.Path) -> None:
    (tmp_path / "tasks.py").write_text(TASK, "utf-8")
    (tmp_path / "broken.py").write_text("from celery import shared_task\n@shared_task\ndef f(:\n", "utf-8")
    seen: List[Tuple[int, int]] = []
    lint_paths([str(tmp_path)], jobs=1, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (seen[-1][1], seen[-1][1])


def test_fix_diff_reports_a_file_it_could_not_analyse(tmp_path: pathlib.Path) -> None:
    (tmp_path / "broken.py").write_text("from celery import shared_task\n@shared_task\ndef f(:\n", "utf-8")
    status, out, err = piped(tmp_path, "check", "--no-cache", "--fix-diff", "broken.py")
    assert (status, out) == (2, "")
    assert "broken.py:3:" in err and " E999 " in err
    assert piped(tmp_path, "check", "--no-cache", "--fix-diff", "--exit-zero", "broken.py")[0] == 0
