"""Time idemlint against ruff and flake8 on real applications, in one run.

    python bench/performance.py [--cache DIR] [--runs N] [--only NAME ...] [--write FILE]

Needs idemlint, flake8 and ruff installed in the interpreter that runs it
(``pip install . ruff``).  For each application of ``APPLICATIONS`` (wheels
from PyPI, downloaded and unpacked once into the cache directory, default
``~/.cache/idemlint-corpus``, by :mod:`corpus`) it times, as whole processes
started from the application's parent directory:

- ``read``: reading every ``.py`` file (the floor);
- ``idemlint cold``: ``idemlint check --no-cache``;
- ``idemlint warm``: ``idemlint check`` with a cache filled before timing;
- ``idemlint, 1 file edited``: the same, after a new comment line was added
  to one task file (what a commit hook usually sees: one task file and the
  modules its tasks reach are analysed again);
- ``ruff``: ``ruff check --no-cache`` with its default rules;
- ``flake8``: ``flake8 -j 2`` (default checks) from a virtual environment
  (made once in the cache directory) holding the same flake8, pycodestyle and
  pyflakes as this interpreter, and not idemlint;
- ``flake8 + idemlint``: the same from a second such environment where this
  checkout's idemlint is installed (again on every run), so the plugin is
  the only difference;
- with ``--against IDEMLINT`` (the ``idemlint`` executable of another
  checkout, e.g. the commit a change started from, installed in its own
  virtual environment): ``against cold`` and ``against warm``, that
  executable's cold and warm runs, and the ratios of this checkout's times
  to them, so a change is compared with its starting point in the same run.

The commands alternate: round after round, each command once, so that a
noisy neighbour slows all of them alike; the table gives the median of the
rounds, the ratios of those medians, and the peak resident memory of the
largest process (the parent or one worker), measured by GNU time
(``/usr/bin/time``, needed).  ``--write`` replaces the part of
a Markdown file between ``<!-- bench:begin -->`` and ``<!-- bench:end -->``
with the table, the machine and the versions.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib import metadata
from typing import Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from corpus import (  # noqa: E402  (a sibling script, not a package)
    DEFAULT_CACHE,
    Application,
    download,
    neutral_config,
    package_directory,
    unpack,
)

APPLICATIONS: Tuple[Application, ...] = (
    Application("weblate", "5.14.3", "weblate"),
    Application("pretix", "2026.8.0", "pretix"),
    Application("mayan-edms", "4.12.2", "mayan"),
    Application("sentry", "23.7.1", "sentry"),
)
FLAKE8_PACKAGES = ("flake8", "pycodestyle", "pyflakes", "mccabe")
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
READ_EVERY_FILE = (
    "import os, sys\n"
    "for d, _, fs in os.walk(sys.argv[1]):\n"
    "    for f in fs:\n"
    "        if f.endswith('.py'):\n"
    "            open(os.path.join(d, f), 'rb').read()\n"
)


@dataclass(frozen=True)
class Command:
    label: str
    argv: Tuple[str, ...]
    edits: Optional[str] = None  # a file given a new last line for each run, then restored


@dataclass(frozen=True)
class Sample:
    seconds: float
    peak_kib: int


@dataclass(frozen=True)
class Measured:
    application: Application
    files: int
    lines: int
    medians: Dict[str, float]
    peaks: Dict[str, int]
    findings: int
    task_file: str


def bin_path(name: str) -> str:
    return os.path.join(os.path.dirname(sys.executable), name)


def flake8_environments(cache: str) -> Tuple[str, str]:
    """Two virtual environments with this interpreter's flake8 and its
    checkers: one without idemlint, one with this checkout's idemlint
    (installed again on every run), so that the plugin is all they differ by."""
    pins = [f"{name}=={metadata.version(name)}" for name in FLAKE8_PACKAGES]
    versions = "-".join(p.split("==")[1] for p in pins)
    without = _environment(os.path.join(cache, f"venv-flake8-{versions}"), pins)
    with_plugin = _environment(os.path.join(cache, f"venv-flake8-idemlint-{versions}"), pins)
    python = os.path.join(os.path.dirname(with_plugin), "python")
    install = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*install, REPOSITORY], check=True)  # with libcst and click
    subprocess.run([*install, "--force-reinstall", "--no-deps", REPOSITORY], check=True)
    return without, with_plugin


def _environment(directory: str, packages: Sequence[str]) -> str:
    flake8 = os.path.join(directory, "bin", "flake8")
    if not os.path.exists(flake8):
        subprocess.run([sys.executable, "-m", "venv", directory], check=True)
        subprocess.run([os.path.join(directory, "bin", "python"), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", *packages], check=True)
    return flake8


@dataclass(frozen=True)
class Plan:
    """What one application's rounds run, besides the application itself."""

    config: str
    warm_cache: str
    flake8s: Tuple[str, str]
    task_file: str
    against: Optional[str] = None  # another checkout's idemlint executable


def commands(package: str, plan: Plan) -> List[Command]:
    flake8_only, flake8_with_plugin = plan.flake8s
    config, warm_cache, task_file = plan.config, plan.warm_cache, plan.task_file
    idemlint = (bin_path("idemlint"), "check", "--exit-zero", "--config", config)
    planned = [
        Command("read", (sys.executable, "-c", READ_EVERY_FILE, package)),
        Command("idemlint cold", (*idemlint, "--no-cache", package)),
        Command("idemlint warm", (*idemlint, "--cache-dir", warm_cache, package)),
        Command(
            "idemlint, 1 file edited",
            (*idemlint, "--cache-dir", warm_cache, package),
            edits=task_file,
        ),
        Command("ruff", (bin_path("ruff"), "check", "--no-cache", "--exit-zero", "--quiet", package)),
        Command("flake8", (flake8_only, "-j", "2", "--exit-zero", package)),
        Command("flake8 + idemlint", (flake8_with_plugin, "-j", "2", "--exit-zero", package)),
    ]
    if plan.against is not None:
        against = (plan.against, "check", "--exit-zero", "--config", config)
        planned += [
            Command("against cold", (*against, "--no-cache", package)),
            # Its own cache: the two versions' entries must not meet.
            Command("against warm", (*against, "--cache-dir", f"{warm_cache}-against", package)),
        ]
    return planned


def run(command: Command, cwd: str) -> Sample:
    """Wall time and peak memory of one whole process (and its workers)."""
    if command.edits is None:
        return _run(command, cwd)
    path = os.path.join(cwd, command.edits)
    with open(path, "rb") as handle:
        original = handle.read()
    try:
        with open(path, "ab") as handle:
            handle.write(f"\n# edited by bench/performance.py at {time.time()}\n".encode())
        return _run(command, cwd)
    finally:
        with open(path, "wb") as handle:
            handle.write(original)


# A process started from this (large) Python process counts this process's
# memory in its own peak: Linux folds the memory it had before exec into it.
# GNU time starts the command from a small process, so its peak is the
# command's own (the largest of its process and its waited workers, in KiB).
GNU_TIME = "/usr/bin/time"


def _run(command: Command, cwd: str) -> Sample:
    with tempfile.NamedTemporaryFile("r", suffix=".peak") as peak:
        timed = (GNU_TIME, "-f", "%M", "-o", peak.name, *command.argv)
        start = time.perf_counter()
        process = subprocess.run(timed, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 check=False)
        seconds = time.perf_counter() - start
        if process.returncode not in (0, 2):
            raise SystemExit(f"{command.label} failed ({process.returncode}):\n{process.stderr.decode()}")
        return Sample(seconds, int(peak.read().split()[-1]))


def count_source(package: str) -> Tuple[int, int]:
    files = lines = 0
    for directory, _, names in os.walk(package):
        for name in names:
            if name.endswith(".py"):
                files += 1
                with open(os.path.join(directory, name), "rb") as handle:
                    lines += handle.read().count(b"\n")
    return files, lines


def busiest_task_file(package_dir: str) -> str:
    """The file with the most task decorators, relative to the package's parent."""
    best = (0, "")
    for directory, _, names in sorted(os.walk(package_dir)):
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                with open(path, "rb") as handle:
                    count = handle.read().count(b"task(")
                best = max(best, (count, path), key=lambda item: item[0])
    return os.path.relpath(best[1], os.path.dirname(package_dir))


def count_findings(command: Command, cwd: str) -> int:
    completed = subprocess.run(command.argv, cwd=cwd, capture_output=True, text=True, check=False)
    return len(completed.stdout.splitlines())


def measure(
    cache: str,
    application: Application,
    rounds: int,
    flake8s: Tuple[str, str],
    against: Optional[str] = None,
) -> Measured:
    root = os.path.join(cache, application.label)
    unpack(download(cache, application), root)
    package_dir = package_directory(root, application.package)
    cwd, package = os.path.dirname(package_dir), os.path.basename(package_dir)
    config = neutral_config(cache)
    warm_cache = os.path.join(cache, "idemlint-cache", application.label)
    task_file = busiest_task_file(package_dir)
    planned = commands(package, Plan(config, warm_cache, flake8s, task_file, against))
    findings = count_findings(planned[1], cwd)
    for command in planned:
        if command.label.endswith(" warm"):
            run(command, cwd)  # fills the cache its warm runs read
    samples: Dict[str, List[Sample]] = {command.label: [] for command in planned}
    for round_number in range(rounds):
        for command in planned:
            samples[command.label].append(run(command, cwd))
        print(f"{application.label}: round {round_number + 1}/{rounds}", file=sys.stderr)
    files, lines = count_source(package_dir)
    return Measured(
        application,
        files,
        lines,
        {label: statistics.median(s.seconds for s in runs) for label, runs in samples.items()},
        {label: max(s.peak_kib for s in runs) for label, runs in samples.items()},
        findings,
        task_file,
    )


def table(results: Sequence[Measured]) -> str:
    header = ["what", *(f"{r.application.name} {r.application.version}" for r in results)]
    rows = [
        ["files / lines", *(f"{r.files} / {r.lines // 1000}k" for r in results)],
        ["task file edited", *(f"`{r.task_file}`" for r in results)],
        ["idemlint findings", *(str(r.findings) for r in results)],
    ]
    for label in results[0].medians:
        rows.append([f"`{label}`", *(f"{r.medians[label]:.2f} s" for r in results)])
    ratios: Tuple[Tuple[str, str, str], ...] = (
        ("idemlint cold / ruff (target <= 2)", "idemlint cold", "ruff"),
        ("idemlint warm / ruff (target <= 1)", "idemlint warm", "ruff"),
        ("idemlint, 1 file edited / ruff", "idemlint, 1 file edited", "ruff"),
        ("flake8 + idemlint / flake8 (target <= 1.05)", "flake8 + idemlint", "flake8"),
    )
    if "against cold" in results[0].medians:
        ratios += (
            ("idemlint cold / against cold", "idemlint cold", "against cold"),
            ("idemlint warm / against warm", "idemlint warm", "against warm"),
        )
    for title, numerator, denominator in ratios:
        rows.append([title, *(f"{r.medians[numerator] / r.medians[denominator]:.2f}x" for r in results)])
    peaks = ["idemlint cold", "idemlint warm", "ruff", "flake8 + idemlint"]
    peaks += [label for label in ("against cold", "against warm") if label in results[0].peaks]
    for label in peaks:
        rows.append([f"peak memory, `{label}`", *(f"{r.peaks[label] / 1024:.0f} MB" for r in results)])
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}, {platform.system()} {platform.release()}"


def versions() -> str:
    ruff = subprocess.run(
        [bin_path("ruff"), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    names = ("idemlint", "libcst", "click", "flake8", "pycodestyle", "pyflakes")
    listed = ", ".join(f"{name} {metadata.version(name)}" for name in names)
    return f"Python {platform.python_version()}, {listed}, {ruff}"


def against_version(executable: str) -> str:
    """What ``--against`` ran: the executable and the version it reports."""
    completed = subprocess.run(
        [executable, "--version"], capture_output=True, text=True, check=False
    )
    return f"`{executable}` ({completed.stdout.strip() or 'version unknown'})"


def report(results: Sequence[Measured], rounds: int, against: Optional[str] = None) -> str:
    today = datetime.date.today().isoformat()
    option = " --against IDEMLINT" if against else ""
    compared = [f"- Against: {against_version(against)}"] if against else []
    return "\n".join([
        BEGIN,
        (
            f"Measured on {today} by `python bench/performance.py --runs {rounds}{option}`: "
            f"median of {rounds} alternating rounds, whole-process wall time."
        ),
        "",
        f"- Machine: {machine()}",
        f"- Versions: {versions()}",
        *compared,
        "",
        table(results),
        END,
    ])


def write_report(path: str, text: str, begin: str = BEGIN, end: str = END) -> None:
    """Replace the lines from ``begin`` to ``end`` in ``path`` with ``text``
    (which carries the markers itself)."""
    with open(path, encoding="utf-8") as handle:
        current = handle.read()
    if begin not in current or end not in current:
        raise SystemExit(f"{path} has no {begin} ... {end} section to replace")
    before, rest = current.split(begin, 1)
    after = rest.split(end, 1)[1]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(before + text.rstrip("\n") + after)


def parse_arguments(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", default=DEFAULT_CACHE, help="download and unpack here")
    parser.add_argument("--runs", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--only", action="append", default=[], help="this application only")
    parser.add_argument("--write", metavar="FILE", help="replace the bench section of FILE")
    parser.add_argument(
        "--against",
        metavar="IDEMLINT",
        help="also time this idemlint executable (another checkout's), cold and warm",
    )
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = parse_arguments(argv)
    for tool in ("idemlint", "ruff", "flake8"):
        if not os.path.exists(bin_path(tool)):
            raise SystemExit(f"{tool} is not installed beside {sys.executable} (pip install . ruff)")
    cache = os.path.abspath(os.path.expanduser(arguments.cache))
    os.makedirs(cache, exist_ok=True)
    if not os.access(GNU_TIME, os.X_OK):
        raise SystemExit(f"{GNU_TIME} (GNU time) is needed to measure peak memory")
    flake8s = flake8_environments(cache)
    selected = [a for a in APPLICATIONS if not arguments.only or a.name in arguments.only]
    against = None
    if arguments.against:
        against = os.path.abspath(os.path.expanduser(arguments.against))
        if not os.access(against, os.X_OK):
            raise SystemExit(f"--against: {arguments.against} is not an executable")
    results = [
        measure(cache, application, arguments.runs, flake8s, against) for application in selected
    ]
    text = report(results, arguments.runs, against)
    print(text)
    if arguments.write:
        write_report(arguments.write, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
