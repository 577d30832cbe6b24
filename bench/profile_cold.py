"""Where a cold idemlint run spends its time, stage by stage.

    python bench/profile_cold.py [--cache DIR] [--only NAME ...]

Runs ``lint_paths`` in this process, one worker and no cache, on each
application of :mod:`performance` (downloaded by it first), with timers
around the stages of the engine: reading and prefiltering every file, the
CPython parse that screens each parsed file, the libcst parse, the module
index, and positions of reported nodes.  What is left is building traces
and running the rules.  Prints one table: seconds per stage, the files
parsed and their lines, and the lines libcst was given (the statements
parsed up front and the definitions parsed later, see idemlint.segments);
``--write FILE`` also puts it between ``<!-- profile:begin -->`` and
``<!-- profile:end -->`` in FILE.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from typing import Any, Callable, Dict, List, Optional, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from corpus import DEFAULT_CACHE, download, package_directory, unpack  # noqa: E402
from performance import APPLICATIONS, write_report  # noqa: E402

STAGES = ("read + prefilter", "nesting scan", "CPython parse", "libcst parse", "index", "positions")
COUNTS = ("files parsed", "their lines", "lines given to libcst")


def timed(totals: Dict[str, float], counts: Dict[str, int], stage: str,
          function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            totals[stage] += time.perf_counter() - start
            counts[stage] += 1

    return wrapper


def counted_lines(counts: Dict[str, int], key: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(text: str, *args: Any, **kwargs: Any) -> Any:
        counts[key] += text.count("\n")
        return function(text, *args, **kwargs)

    return wrapper


def profile(package_dir: str) -> Dict[str, float]:
    import libcst

    from idemlint import engine, project
    from idemlint.settings import DEFAULT_SETTINGS

    totals: Dict[str, float] = defaultdict(float)
    counts: Dict[str, int] = defaultdict(int)
    # Count lines before timing: the counters' own cost stays out of the stages.
    libcst_parse, python_ast = libcst.parse_module, project.python_ast
    libcst.parse_module = counted_lines(counts, "libcst lines", libcst_parse)
    project.python_ast = counted_lines(counts, "file lines", python_ast)
    patched = (
        (engine, "_candidates", "read + prefilter"),
        (project, "cpython_parses_safely", "nesting scan"),
        (project, "too_deep", "nesting scan"),
        (project, "too_deep_parsed", "nesting scan"),
        (project, "python_ast", "CPython parse"),
        (libcst, "parse_module", "libcst parse"),
        (project, "build_index", "index"),
        (engine, "_locate", "positions"),
    )
    originals = [getattr(owner, name) for owner, name, _ in patched]
    for (owner, name, stage), original in zip(patched, originals):
        setattr(owner, name, timed(totals, counts, stage, original))
    try:
        start = time.perf_counter()
        engine.lint_paths([package_dir], DEFAULT_SETTINGS, jobs=1)
        total = time.perf_counter() - start
    finally:
        for (owner, name, _), original in zip(patched, originals):
            setattr(owner, name, original)
        libcst.parse_module, project.python_ast = libcst_parse, python_ast
    result = {stage: totals[stage] for stage in STAGES}
    result["traces + rules"] = total - sum(result.values())
    result["total"] = total
    result["files parsed"] = counts["CPython parse"]
    result["their lines"] = counts["file lines"]
    result["lines given to libcst"] = counts["libcst lines"]
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", default=DEFAULT_CACHE)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--write", metavar="FILE", help="replace the profile section of FILE")
    arguments = parser.parse_args(argv)
    cache = os.path.abspath(os.path.expanduser(arguments.cache))
    os.makedirs(cache, exist_ok=True)
    rows: List[List[str]] = []
    labels: List[str] = []
    for application in APPLICATIONS:
        if arguments.only and application.name not in arguments.only:
            continue
        root = os.path.join(cache, application.label)
        unpack(download(cache, application), root)
        measured = profile(package_directory(root, application.package))
        labels.append(application.label)
        rows.append([f"{measured[k]:.2f} s" for k in (*STAGES, "traces + rules", "total")]
                    + [f"{int(measured[k]):,}" for k in COUNTS])
    names = [*STAGES, "traces + rules", "total", *COUNTS]
    lines = ["| stage | " + " | ".join(labels) + " |", "|" + " --- |" * (len(labels) + 1)]
    for index, name in enumerate(names):
        lines.append(f"| {name} | " + " | ".join(row[index] for row in rows) + " |")
    table = "\n".join(lines)
    print(table)
    if arguments.write:
        begin, end = "<!-- profile:begin -->", "<!-- profile:end -->"
        write_report(arguments.write, f"{begin}\n{table}\n{end}", begin, end)
    return 0


if __name__ == "__main__":
    sys.exit(main())
