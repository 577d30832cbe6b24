"""Where a cold idemlint run spends its time, stage by stage.

    python bench/profile_cold.py [--cache DIR] [--only NAME ...]

Runs ``lint_paths`` in this process, one worker and no cache, on each
application of :mod:`performance` (downloaded by it first), with timers
around the stages of the engine: reading and prefiltering every file, the
CPython parse that screens each parsed file, the libcst parse, the module
index, and positions of reported nodes.  What is left is building traces
and running the rules.  Prints one table: seconds per stage and the number
of files read, parsed as task files and parsed because a task reached them.
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
from performance import APPLICATIONS  # noqa: E402

STAGES = ("read + prefilter", "CPython parse", "libcst parse", "index", "positions")


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


def profile(package_dir: str) -> Dict[str, float]:
    import libcst

    from idemlint import engine, positions, project
    from idemlint.settings import DEFAULT_SETTINGS

    totals: Dict[str, float] = defaultdict(float)
    counts: Dict[str, int] = defaultdict(int)
    originals = (engine._candidates, project.python_ast, libcst.parse_module,
                 project.build_index, engine._locate)
    engine._candidates = timed(totals, counts, "read + prefilter", engine._candidates)
    project.python_ast = timed(totals, counts, "CPython parse", project.python_ast)
    project.cst.parse_module = timed(totals, counts, "libcst parse", libcst.parse_module)
    project.build_index = timed(totals, counts, "index", project.build_index)
    engine._locate = timed(totals, counts, "positions", engine._locate)
    try:
        start = time.perf_counter()
        engine.lint_paths([package_dir], DEFAULT_SETTINGS, jobs=1)
        total = time.perf_counter() - start
    finally:
        (engine._candidates, project.python_ast, project.cst.parse_module,
         project.build_index, engine._locate) = originals
    result = {stage: totals[stage] for stage in STAGES}
    result["traces + rules"] = total - sum(result.values())
    result["total"] = total
    result["files parsed"] = counts["libcst parse"]
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", default=DEFAULT_CACHE)
    parser.add_argument("--only", action="append", default=[])
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
                    + [str(int(measured["files parsed"]))])
    names = [*STAGES, "traces + rules", "total", "files parsed (libcst)"]
    print("| stage | " + " | ".join(labels) + " |")
    print("|" + " --- |" * (len(labels) + 1))
    for index, name in enumerate(names):
        print(f"| {name} | " + " | ".join(row[index] for row in rows) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
