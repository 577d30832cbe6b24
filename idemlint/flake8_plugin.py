"""flake8 front end: ``flake8 --select IDM``.

A thin adapter: it lints the lines flake8 already read (never the file on
disk), yields every finding (with a note when it carries a fix, which
flake8 cannot make and ``idemlint check --fix`` can), and leaves ``noqa``, ``--select``/``--ignore``
and ``--per-file-ignores`` to flake8.  It never raises into flake8: a file
that cannot be parsed yields nothing (flake8 reports E999 itself), a bug
in idemlint on one file yields one ``IDM900`` line, as the CLI prints it,
and a configuration that cannot be used yields one ``IDM901`` line per file
(where the CLI stops with that line): raising would end flake8's other
checks too.
"""

from __future__ import annotations

import argparse
import ast
from dataclasses import replace
from typing import Any, Iterator, Optional, Sequence, Tuple, Type

from idemlint import __version__
from idemlint.config import ConfigError, find_config, invalid_decorator_names, load_settings
from idemlint.escape import visible
from idemlint.engine import INTERNAL_ERROR, LintResult, could_hold_tasks, internal_error, lint_source
from idemlint.findings import Finding
from idemlint.settings import DEFAULT_SETTINGS, Settings

CONFIGURATION_ERROR = "IDM901"


class IdemlintChecker:
    name = "idemlint"
    version = __version__
    settings: Settings = DEFAULT_SETTINGS
    # The line every file reports instead of findings when the configuration
    # cannot be used (None when it can).
    configuration_problem: Optional[str] = None

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

        Never raises: a configuration that cannot be used makes every file
        report one line naming the file and the key, and nothing else from
        idemlint (no run with half a configuration), while flake8's other
        checks go on.
        """
        cls.settings, cls.configuration_problem = DEFAULT_SETTINGS, None
        try:
            configured = load_settings(find_config(["."]))
            extra = tuple(getattr(options, "idemlint_task_decorators", None) or ())
            invalid = invalid_decorator_names(extra)
            if invalid:
                raise ConfigError(
                    f"flake8 option 'idemlint-task-decorators': {invalid[0]!r} is not a name "
                    "or a dotted name"
                )
            cls.settings = replace(configured, task_decorators=configured.task_decorators + extra)
        except ConfigError as error:
            cls.configuration_problem = (
                f"{CONFIGURATION_ERROR} invalid idemlint configuration: {error}; "
                "idemlint checked nothing"
            )
        except Exception as error:  # a bug in reading it must not stop flake8 either
            problem = internal_error(".", "reading the configuration", error)
            cls.configuration_problem = f"{problem.code} {problem.message}"

    def run(self) -> Iterator[Tuple[int, int, str, Type["IdemlintChecker"]]]:
        if self.configuration_problem is not None:
            yield 1, 0, self.configuration_problem, type(self)
            return
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
            message = f"{finding.code} {visible(finding.message)}{_fix_note(finding)}"
            yield finding.line, finding.column - 1, message, type(self)
        for problem in result.problems:
            if problem.code == INTERNAL_ERROR:  # not E999 or E902: flake8 reports those itself
                yield problem.line, problem.column - 1, f"{problem.code} {visible(problem.message)}", type(self)


def _fix_note(finding: Finding) -> str:
    """Where the finding carries a fix, how to make it: flake8 cannot."""
    if finding.suggestion is None:
        return ""
    if finding.suggestion.safe:
        return " [fix: `idemlint check --fix`]"
    return " [unsafe fix: `idemlint check --fix --unsafe-fixes`]"
