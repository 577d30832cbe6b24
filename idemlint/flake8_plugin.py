"""flake8 front end: ``flake8 --select IDM``.

A thin adapter: it lints the lines flake8 already read (never the file on
disk), yields every finding (with a note when it carries a fix, which
flake8 cannot make and ``idemlint check --fix`` can), and leaves ``noqa``, ``--select``/``--ignore``
and ``--per-file-ignores`` to flake8.  It never raises into flake8: a file
that cannot be parsed yields nothing (flake8 reports E999 itself), a bug
in idemlint on one file yields one ``IDM900`` line, as the CLI prints it,
and a configuration that cannot be used yields one ``IDM901`` line per file
(where the CLI stops with that line): raising would end flake8's other
checks too.  Each file gets the settings of its nearest ``pyproject.toml``
with a ``[tool.idemlint]`` table, as in the CLI.
"""

from __future__ import annotations

import argparse
import ast
from typing import Any, Iterator, Optional, Sequence, Tuple, Type

from idemlint import __version__
from idemlint.config import ConfigError, Configurations, Overrides, invalid_decorator_names
from idemlint.escape import visible
from idemlint.deadline import TIMED_OUT
from idemlint.engine import INTERNAL_ERROR, LintResult, could_hold_tasks, internal_error, lint_source
from idemlint.findings import Finding
from idemlint.settings import Settings

CONFIGURATION_ERROR = "IDM901"


class IdemlintChecker:
    name = "idemlint"
    version = __version__
    configurations: Configurations = Configurations()
    # The line every file reports instead of findings when the flake8
    # options cannot be used (None when they can).
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
        parser.add_option(
            "--idemlint-timeout",
            default="",
            parse_from_config=True,
            help="Seconds one file's analysis may take before it is reported as IDM902 "
            "(default: 30, or [tool.idemlint]'s timeout).",
        )

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        """flake8's own options, added to each file's ``[tool.idemlint]``
        (read like the CLI reads it, when a file first needs it).

        Never raises: options that cannot be used make every file report one
        line naming the option, and nothing else from idemlint (no run with
        half a configuration), while flake8's other checks go on.
        """
        cls.configurations, cls.configuration_problem = Configurations(), None
        extra = tuple(getattr(options, "idemlint_task_decorators", None) or ())
        invalid = invalid_decorator_names(extra)
        if invalid:
            cls.configuration_problem = _configuration_problem(
                f"flake8 option 'idemlint-task-decorators': {invalid[0]!r} is not a name or a dotted name"
            )
        timeout = _seconds(str(getattr(options, "idemlint_timeout", None) or ""))
        if timeout == 0:
            cls.configuration_problem = _configuration_problem(
                f"flake8 option 'idemlint-timeout': {options.idemlint_timeout!r} is not a positive number of seconds"
            )
        cls.configurations = Configurations(overrides=Overrides(task_decorators=extra, timeout=timeout or None))

    def settings(self) -> Tuple[Optional[Settings], Optional[str]]:
        """This file's settings, or the one line it reports instead of findings."""
        if self.configuration_problem is not None:
            return None, self.configuration_problem
        try:
            return self.configurations.for_file(self.filename), None
        except ConfigError as error:  # reported on every file it applies to
            return None, _configuration_problem(str(error))
        except Exception as error:  # a bug in reading it must not stop flake8 either
            problem = internal_error(".", "reading the configuration", error)
            return None, f"{problem.code} {problem.message}"

    def run(self) -> Iterator[Tuple[int, int, str, Type["IdemlintChecker"]]]:
        settings, unusable = self.settings()
        if settings is None:
            yield 1, 0, unusable or "", type(self)
            return
        source = "".join(self.lines)
        if not could_hold_tasks(source, settings):
            return
        try:
            # flake8 parsed these lines already: its tree spares us CPython's parse.
            tree = self.tree if isinstance(self.tree, ast.Module) else None
            result = lint_source(source, self.filename, settings, apply_noqa=False, tree=tree)
        except Exception as error:  # never break a flake8 run
            result = LintResult(problems=(internal_error(self.filename, "the flake8 plugin", error),))
        for finding in result.findings:
            # Escaped as the CLI's text format escapes them: flake8 prints them as they are.
            message = f"{finding.code} {visible(finding.message)}{_fix_note(finding)}"
            yield finding.line, finding.column - 1, message, type(self)
        for problem in result.problems:
            if problem.code in (INTERNAL_ERROR, TIMED_OUT):  # not E999 or E902: flake8 reports those itself
                yield problem.line, problem.column - 1, f"{problem.code} {visible(problem.message)}", type(self)


def _seconds(text: str) -> Optional[float]:
    """``--idemlint-timeout``'s seconds: None when not given, 0 when not a positive number."""
    if not text.strip():
        return None
    try:
        seconds = float(text)
    except ValueError:
        return 0
    return seconds if 0 < seconds < float("inf") else 0


def _configuration_problem(error: str) -> str:
    return f"{CONFIGURATION_ERROR} invalid idemlint configuration: {error}; idemlint checked nothing"


def _fix_note(finding: Finding) -> str:
    """Where the finding carries a fix, how to make it: flake8 cannot."""
    if finding.suggestion is None:
        return ""
    if finding.suggestion.safe:
        return " [fix: `idemlint check --fix`]"
    return " [unsafe fix: `idemlint check --fix --unsafe-fixes`]"
