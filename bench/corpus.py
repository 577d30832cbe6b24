"""Run idemlint on pinned open-source applications that have real background tasks.

    python bench/corpus.py [--cache DIR] [--only NAME ...]

For each application of ``APPLICATIONS`` this script

1. downloads the pinned distribution from PyPI with ``pip download --no-deps``
   into the cache directory (default ``~/.cache/idemlint-corpus``), unless a
   wheel or sdist of that name and version is already there (copy one in to
   work offline);
2. unpacks it into ``<cache>/<name>-<version>/`` (skipped when already
   unpacked);
3. runs ``idemlint check --exit-zero --format json`` on the application's
   package directory and writes ``<cache>/results/<name>-<version>.json``;
4. counts the files and the tasks idemlint recognises, with idemlint's own
   task detection;
5. prints a summary table: application, version, files, tasks found and
   findings per code.

Nothing is written inside the repository: ``docs/real-world.md`` records the
results and the triage of every finding.  Standard library only; idemlint
must be importable by the interpreter that runs this script.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

DEFAULT_CACHE = os.path.join("~", ".cache", "idemlint-corpus")
ARCHIVE_SUFFIXES = (".whl", ".tar.gz", ".tgz", ".zip")
UNPACKED_MARKER = ".unpacked"


@dataclass(frozen=True)
class Application:
    """One pinned distribution on PyPI and the package directory to check."""

    name: str
    version: str
    package: str
    task_decorators: Tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.name}-{self.version}"


APPLICATIONS: Tuple[Application, ...] = (
    Application("weblate", "5.14.3", "weblate"),
    Application("pretix", "2026.8.0", "pretix"),
    Application("mayan-edms", "4.12.2", "mayan"),
    Application("sentry", "23.7.1", "sentry", task_decorators=("instrumented_task",)),
)


@dataclass
class Result:
    """What one application's run found.

    ``files`` counts the package's Python files, ``candidate_files`` those that
    pass idemlint's raw-bytes screen (``could_hold_tasks``), ``tasks`` the task
    entry points idemlint recognises in them.
    """

    application: Application
    files: int
    candidate_files: int
    tasks: int
    findings: List[Dict[str, Any]]
    problems: List[str] = field(default_factory=list)

    def per_code(self) -> Counter[str]:
        return Counter(str(finding["code"]) for finding in self.findings)


# -- download -----------------------------------------------------------------


def normalise(name: str) -> str:
    """PEP 503 normalisation, with ``_`` as wheels spell it."""
    return re.sub(r"[-_.]+", "_", name).lower()


def archive_identity(filename: str) -> Optional[Tuple[str, str]]:
    """(normalised name, version) of a wheel or sdist file name, or None."""
    for suffix in ARCHIVE_SUFFIXES:
        if filename.endswith(suffix):
            stem = filename[: -len(suffix)]
            break
    else:
        return None
    if filename.endswith(".whl"):
        parts = stem.split("-")
        return (normalise(parts[0]), parts[1]) if len(parts) >= 5 else None
    name, _, version = stem.rpartition("-")
    return (normalise(name), version) if name else None


def find_archive(cache: str, application: Application) -> Optional[str]:
    """An already-downloaded wheel (preferred) or sdist of ``application``."""
    wanted = (normalise(application.name), application.version)
    matches = sorted(
        entry
        for entry in os.listdir(cache)
        if archive_identity(entry) == wanted and os.path.isfile(os.path.join(cache, entry))
    )
    wheels = [entry for entry in matches if entry.endswith(".whl")]
    chosen = wheels or matches
    return os.path.join(cache, chosen[0]) if chosen else None


def download(cache: str, application: Application) -> str:
    """The archive of ``application`` in ``cache``, downloaded if missing."""
    present = find_archive(cache, application)
    if present is not None:
        return present
    requirement = f"{application.name}=={application.version}"
    print(f"downloading {requirement} ...", file=sys.stderr)
    # --ignore-requires-python: the code is only read, never run or imported.
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--ignore-requires-python",
         "--disable-pip-version-check", "--quiet", "--dest", cache, requirement],
        check=True,
    )
    downloaded = find_archive(cache, application)
    if downloaded is None:
        raise SystemExit(f"pip downloaded no archive named like {requirement} into {cache}")
    return downloaded


# -- unpack -------------------------------------------------------------------


def unpack(archive: str, destination: str) -> None:
    """Extract ``archive`` into ``destination``, once (a marker file records it)."""
    marker = os.path.join(destination, UNPACKED_MARKER)
    if os.path.exists(marker):
        return
    if os.path.isdir(destination):
        shutil.rmtree(destination)  # an interrupted extraction
    os.makedirs(destination)
    if archive.endswith((".whl", ".zip")):
        _extract_zip(archive, destination)
    else:
        _extract_tar(archive, destination)
    with open(marker, "w", encoding="utf-8") as handle:
        handle.write(os.path.basename(archive) + "\n")


def _inside(root: str, member: str) -> bool:
    target = os.path.realpath(os.path.join(root, member))
    return os.path.commonpath([os.path.realpath(root), target]) == os.path.realpath(root)


def _extract_zip(archive: str, destination: str) -> None:
    with zipfile.ZipFile(archive) as bundle:
        for member in bundle.namelist():
            if not _inside(destination, member):
                raise SystemExit(f"{archive}: refusing member outside the archive root: {member}")
        bundle.extractall(destination)


def _extract_tar(archive: str, destination: str) -> None:
    with tarfile.open(archive) as bundle:
        members = [
            member
            for member in bundle.getmembers()
            if (member.isfile() or member.isdir()) and _inside(destination, member.name)
        ]
        if hasattr(tarfile, "data_filter"):  # Python 3.12+, and security backports
            bundle.extractall(destination, members=members, filter="data")
        else:
            bundle.extractall(destination, members=members)


def package_directory(root: str, package: str) -> str:
    """The shallowest ``package/__init__.py`` under ``root`` (wheel, sdist or src layout)."""
    best: Optional[Tuple[int, str]] = None
    for directory, subdirectories, files in os.walk(root):
        subdirectories.sort()
        depth = directory[len(root):].count(os.sep)
        if os.path.basename(directory) == package and "__init__.py" in files:
            if best is None or depth < best[0]:
                best = (depth, directory)
            subdirectories[:] = []
    if best is None:
        raise SystemExit(f"no package directory {package!r} under {root}")
    return best[1]


# -- analysis -----------------------------------------------------------------


def neutral_config(cache: str) -> str:
    """An empty ``[tool.idemlint]`` table: default settings, whatever lies above the cache."""
    path = os.path.join(cache, "pyproject.toml")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("# written by bench/corpus.py: idemlint's default settings\n[tool.idemlint]\n")
    return path


def run_idemlint(
    package_dir: str, application: Application, config: str
) -> Tuple[List[Dict[str, Any]], List[str]]:
    """idemlint's JSON findings for the package, and the problems it reported on stderr.

    It runs from the package's parent directory so that reported paths start
    with the package name (``weblate/trans/tasks.py``).
    """
    command = [sys.executable, "-m", "idemlint", "check", "--exit-zero", "--format", "json",
               "--config", config]
    for decorator in application.task_decorators:
        command += ["--task-decorator", decorator]
    command.append(os.path.basename(package_dir))
    completed = subprocess.run(
        command, cwd=os.path.dirname(package_dir), capture_output=True, text=True, check=False
    )
    # --exit-zero covers findings and files it could not parse (reported on
    # stderr, and in the JSON at "error" level); anything else is a failure.
    if completed.returncode != 0:
        raise SystemExit(f"idemlint failed on {application.label}:\n{completed.stderr}")
    try:
        entries = json.loads(completed.stdout or "[]")
    except json.JSONDecodeError as error:
        raise SystemExit(f"idemlint printed invalid JSON for {application.label}: {error}") from None
    findings = [entry for entry in entries if entry.get("level", "warning") == "warning"]
    problems = [line for line in completed.stderr.splitlines() if line.strip()]
    return findings, problems


def count_tasks(package_dir: str, application: Application) -> Tuple[int, int, int]:
    """(Python files, files that could hold tasks, tasks) with idemlint's own detection."""
    from idemlint.discovery import discover
    from idemlint.engine import could_hold_tasks
    from idemlint.project import LoadedModule, load_source
    from idemlint.settings import Settings
    from idemlint.tasks import find_tasks, task_decorators

    settings = Settings(task_decorators=application.task_decorators)
    files = [item for item in discover([package_dir]) if isinstance(item, str)]
    candidate_files = tasks = 0
    for path in files:
        with open(path, "rb") as handle:
            raw = handle.read()
        if not could_hold_tasks(raw, settings):
            continue
        candidate_files += 1
        loaded = load_source(raw, path)
        if isinstance(loaded, LoadedModule):
            tasks += len(find_tasks(loaded.index, task_decorators(loaded.index, settings.task_decorators)))
    return len(files), candidate_files, tasks


def analyse(cache: str, application: Application, config: str) -> Result:
    """Download, unpack, check and count one application; write its JSON."""
    archive = download(cache, application)
    root = os.path.join(cache, application.label)
    unpack(archive, root)
    package_dir = package_directory(root, application.package)
    findings, problems = run_idemlint(package_dir, application, config)
    files, candidate_files, tasks = count_tasks(package_dir, application)
    result = Result(application, files, candidate_files, tasks, findings, problems)
    write_result(cache, result, package_dir)
    return result


def idemlint_version() -> str:
    import idemlint

    return str(idemlint.__version__)


def write_result(cache: str, result: Result, package_dir: str) -> str:
    results = os.path.join(cache, "results")
    os.makedirs(results, exist_ok=True)
    path = os.path.join(results, f"{result.application.label}.json")
    document = {
        "application": result.application.name,
        "version": result.application.version,
        "package": result.application.package,
        "package_dir": package_dir,
        "task_decorators": list(result.application.task_decorators),
        "idemlint": idemlint_version(),
        "files": result.files,
        "candidate_files": result.candidate_files,
        "tasks": result.tasks,
        "per_code": dict(sorted(result.per_code().items())),
        "problems": result.problems,
        "findings": result.findings,
    }
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)
        handle.write("\n")
    return path


# -- report -------------------------------------------------------------------


def summary_table(results: Sequence[Result]) -> str:
    """A Markdown table: one row per application, one column per reported code."""
    codes = sorted({code for result in results for code in result.per_code()})
    header = ["application", "version", "files", "candidate files", "tasks", *codes, "total"]
    rows = [header, ["---"] * len(header)]
    for result in results:
        counts = result.per_code()
        rows.append([
            result.application.name, result.application.version, str(result.files),
            str(result.candidate_files), str(result.tasks),
            *(str(counts.get(code, 0)) for code in codes), str(len(result.findings)),
        ])
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def parse_arguments(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cache", default=DEFAULT_CACHE,
                        help=f"download, unpack and result directory (default: {DEFAULT_CACHE})")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only this application (repeatable)")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = parse_arguments(argv)
    cache = os.path.abspath(os.path.expanduser(arguments.cache))
    os.makedirs(cache, exist_ok=True)
    selected = [a for a in APPLICATIONS if not arguments.only or a.name in arguments.only]
    if not selected:
        known = ", ".join(a.name for a in APPLICATIONS)
        raise SystemExit(f"no application named {arguments.only} (known: {known})")
    config = neutral_config(cache)
    results = [analyse(cache, application, config) for application in selected]
    print(f"idemlint {idemlint_version()}; results in {os.path.join(cache, 'results')}")
    print(summary_table(results))
    for result in results:
        for problem in result.problems:
            print(f"{result.application.name}: {problem}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
