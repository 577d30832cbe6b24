"""How the human-read formats (``text``, ``review``) are shown on a terminal:
colour, the width comments wrap to, the summary line and the progress bar.

Colour follows ``--color``: ``auto`` colours output written to a terminal,
unless ``NO_COLOR`` is set to anything but the empty string (no-color.org)
or ``TERM`` is ``dumb``; ``always`` and ``never`` decide alone.  Output piped
to a file or a program is plain, so ``path:line:col: CODE message`` lines
stay what flake8-style parsers read.  Only idemlint's own words and
positions are coloured: text from the checked repository is escaped first
(:func:`idemlint.escape.visible`) and never carries an escape sequence of
its own.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import IO, Any, Callable, Dict, Tuple

import click

COLOR_CHOICES: Tuple[str, ...] = ("auto", "always", "never")
# The width comments wrap to when the output is not a terminal.
DEFAULT_WIDTH = 88
# Narrower than this, wrapping helps nobody: the comment keeps this width.
MIN_WIDTH = 40

_STYLES: Dict[str, Dict[str, Any]] = {
    "path": {"bold": True},
    "position": {"fg": "cyan"},
    "code": {"fg": "red", "bold": True},
    "heading": {"bold": True},
    "added": {"fg": "green"},
    "removed": {"fg": "red"},
    "count": {"bold": True},
}


@dataclass(frozen=True)
class Presentation:
    """Whether to colour, and the width to wrap to."""

    colour: bool = False
    width: int = DEFAULT_WIDTH

    def paint(self, text: str, style: str) -> str:
        """``text`` in the named style, when colouring."""
        return click.style(text, **_STYLES[style]) if self.colour and text else text


PLAIN = Presentation()


def presentation_for(choice: str, stream: IO[str]) -> Presentation:
    """How to show output written to ``stream`` under ``--color choice``."""
    terminal = _is_terminal(stream)
    if choice == "always":
        colour = True
    elif choice == "never":
        colour = False
    else:
        colour = terminal and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
    width = DEFAULT_WIDTH
    if terminal:
        import shutil  # here: shutil and what it imports cost every run a few milliseconds

        width = max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns - 1)
    return Presentation(colour, width)


def is_terminal(stream: IO[str]) -> bool:
    return _is_terminal(stream)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def summary(
    findings: int, files: int, safe: int, unsafe: int, presentation: Presentation = PLAIN, problems: int = 0
) -> str:
    """``Found 12 findings in 4 files (3 fixable with `idemlint check --fix`).``,
    ``All checks passed!`` (ruff's words for a clean run), and the files that
    could not be analysed, if any."""
    unanalysed = f"{problems} file{'s' if problems != 1 else ''} could not be analysed."
    if not findings:
        return unanalysed if problems else "All checks passed!"
    found = presentation.paint(f"{findings} finding{'s' if findings != 1 else ''}", "count")
    text = f"Found {found} in {files} file{'s' if files != 1 else ''}"
    notes = []
    if safe:
        notes.append(f"{safe} fixable with `idemlint check --fix`")
    if unsafe:
        more = "more " if safe else ""
        notes.append(f"{unsafe} {more}with `--fix --unsafe-fixes`")
    return text + (f" ({'; '.join(notes)})" if notes else "") + "." + (f" {unanalysed}" if problems else "")


class ProgressBar:
    """A progress bar on a terminal, for runs that take more than ``delay``
    seconds: nothing is drawn before then, so a quick run prints nothing,
    and the bar is erased when the run ends (the report follows on a clean
    line)."""

    WIDTH = 30

    def __init__(self, stream: IO[str], delay: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.delay = delay
        self.drawn = False
        self.last = 0.0

    def update(self, done: int, total: int) -> None:
        now = self.clock()
        if not total or now - self.started < self.delay or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        filled = self.WIDTH * done // total
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total} task files")
        self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False
