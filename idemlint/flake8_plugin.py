"""flake8 front end: ``flake8 --select IDM``.

A thin adapter: it lints the lines flake8 already read (never the file on
disk), yields every finding, and leaves ``noqa``, ``--select``/``--ignore``
and ``--per-file-ignores`` to flake8.  It never raises into flake8: a file
that cannot be parsed yields nothing (flake8 reports E999 itself), and a bug
in idemlint on one file yields one ``IDM900`` line, as the CLI prints it.
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import replace
from typing import Any, Iterator, List, Sequence, Tuple, Type

from idemlint import __version__
from idemlint.config import ConfigError, find_config, load_settings
from idemlint.report.escape import visible
from idemlint.engine import INTERNAL_ERROR, LintResult, could_hold_tasks, internal_error, lint_source
from idemlint.settings import DEFAULT_SETTINGS, Settings


class IdemlintChecker:
    name = "idemlint"
    version = __version__
    settings: Settings = DEFAULT_SETTINGS

    def __init__(self, tree: ast.AST, lines: Sequence[str], filename: str) -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, parser: Any) -> None:
        parser.add_option(
            "--idemlint-task-decorators",
            default="",
            parse_from_config=True,
            comma_separated_list=True,
            help="Extra decorators (qualified or bare names) that make a task.",
        )

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        """Read ``[tool.idemlint]`` like the CLI; flake8's own options add to it.

        A broken configuration stops the run with one line, as in the CLI,
        rather than linting with half of it.
        """
        try:
            configured = load_settings(find_config(["."]))
        except ConfigError as error:
            print(f"idemlint: {error}", file=sys.stderr)
            raise SystemExit(2) from None
        extra: List[str] = list(getattr(options, "idemlint_task_decorators", []) or [])
        cls.settings = replace(
            configured, task_decorators=configured.task_decorators + tuple(extra)
        )

    def run(self) -> Iterator[Tuple[int, int, str, Type["IdemlintChecker"]]]:
        source = "".join(self.lines)
        if not could_hold_tasks(source, self.settings):
            return
        try:
            # flake8 parsed these lines already: its tree spares us CPython's parse.
            tree = self.tree if isinstance(self.tree, ast.Module) else None
            result = lint_source(source, self.filename, self.settings, apply_noqa=False, tree=tree)
        except Exception as error:  # never break a flake8 run
            result = LintResult(problems=(internal_error(self.filename, "the flake8 plugin", error),))
        for finding in result.findings:
            # Escaped as the CLI's text format escapes them: flake8 prints them as they are.
            yield finding.line, finding.column - 1, f"{finding.code} {visible(finding.message)}", type(self)
        for problem in result.problems:
            if problem.code == INTERNAL_ERROR:  # not E999 or E902: flake8 reports those itself
                yield problem.line, problem.column - 1, f"{problem.code} {visible(problem.message)}", type(self)
