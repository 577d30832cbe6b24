"""Command line: ``idemlint check``, ``idemlint tasks``, ``idemlint rules``,
``idemlint explain``, ``idemlint server`` (the language server).

Exit status: 0 no findings, 1 findings, 2 usage, configuration or internal
error, or a file that could not be read or parsed (the others are still
analysed and reported), 130 interrupted (Ctrl-C).  ``check --exit-zero``
exits 0 whatever the report holds (findings, files that could not be
analysed), as ruff's does; what stops the run before a complete report is
written (a usage or configuration error, an unreadable baseline, a bad
``--diff`` revision, an unwritable ``--output-file``, an internal error
outside any one file) still exits 2, and Ctrl-C 130.
"""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Dict, List, NoReturn, Optional, Sequence, Set, Tuple, TypeVar

import click

from idemlint import __version__
from idemlint.config import (
    ConfigError,
    Configurations,
    Overrides,
    code_problem,
    common_directory,
    invalid_decorator_names,
)
from idemlint.cache import DIRECTORY_NAME, Cache
from idemlint.engine import LintResult, lint_paths
from idemlint.findings import Finding
from idemlint.fixes import Fix, by_file, chosen, plan, unified_diff, write
from idemlint.report import FORMATS, STRUCTURED_FORMATS, TERMINAL_FORMATS, formatter
from idemlint.escape import visible
from idemlint.report.terminal import (
    COLOR_CHOICES,
    PLAIN,
    Presentation,
    ProgressBar,
    is_terminal,
    presentation_for,
    summary,
)
from idemlint.report.text import line_for
from idemlint.settings import PathPattern

# Only what every run needs is imported up front: a warm run is mostly
# interpreter start-up and imports.
if TYPE_CHECKING:
    from idemlint.diff import ChangedLines

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
# The name of the text read from stdin (path '-') when --stdin-filename gives none.
STDIN_NAME = "stdin.py"
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a process Ctrl-C stopped

# A word after a "pattern:" of --per-file-ignores that is a code, not the next pattern (as flake8 reads it).
_CODE_WORD = re.compile(r"[A-Za-z]+[0-9]*\Z")


class ConfigurationError(click.ClickException):
    exit_code = EXIT_ERROR

    def __init__(self, message: str) -> None:
        # Messages quote keys of the checked repository's pyproject.toml and paths.
        super().__init__(visible(message))


def _code_prefixes(
    context: click.Context, parameter: click.Parameter, value: Optional[str]
) -> Tuple[str, ...]:
    if not value:
        return ()
    prefixes = tuple(p.strip().upper() for p in value.split(",") if p.strip())
    for prefix in prefixes:
        problem = code_problem(prefix)
        if problem is not None:
            raise click.BadParameter(problem)
    return prefixes


def _per_file_ignores(
    context: click.Context, parameter: click.Parameter, values: Tuple[str, ...]
) -> Tuple[Tuple[PathPattern, Tuple[str, ...]], ...]:
    """``"tests/*:IDM002,IDM003 legacy.py:IDM"``, as flake8 writes it: file
    patterns (relative to the current directory), a colon, codes (any case);
    entries separated by spaces, and the option repeatable."""
    groups: List[Tuple[List[str], List[str]]] = []
    for value in values:
        patterns: List[str] = []
        codes: Optional[List[str]] = None
        for word in re.findall(r"[^\s,:]+|:", value):
            if word == ":":
                if not patterns:
                    raise click.BadParameter(f"{value!r}: codes without a file pattern before ':'")
                codes = []
                groups.append((patterns, codes))
                patterns = []
            elif codes is not None and _CODE_WORD.match(word):
                problem = code_problem(word.upper())
                if problem is not None:
                    raise click.BadParameter(problem)
                codes.append(word.upper())
            else:
                if codes == []:
                    raise click.BadParameter(f"{value!r}: no codes after {groups[-1][0][-1]!r}")
                codes = None
                patterns.append(word)
        if patterns or codes == []:
            raise click.BadParameter(f"{value!r}: a file pattern needs ':' and codes after it")
    root = os.getcwd()
    return tuple(
        (PathPattern(pattern, root), tuple(codes)) for patterns, codes in groups for pattern in patterns
    )


def _path_patterns(
    context: click.Context, parameter: click.Parameter, values: Tuple[str, ...]
) -> Tuple[PathPattern, ...]:
    root = os.getcwd()  # as ruff's: relative to where the command runs
    return tuple(PathPattern(value, root) for value in values)


def _decorator_names(
    context: click.Context, parameter: click.Parameter, value: Tuple[str, ...]
) -> Tuple[str, ...]:
    invalid = invalid_decorator_names(value)
    if invalid:
        raise click.BadParameter(f"{invalid[0]!r} is not a name or a dotted name")
    return value


def _revision(
    context: click.Context, parameter: click.Parameter, value: Optional[str]
) -> Optional[str]:
    # An empty revision (an unset CI variable) must not quietly mean "no filter".
    if value is not None and not value.strip():
        raise click.BadParameter("an empty revision; give a git revision, or '-' to read a diff")
    return value


# Options `check` and `tasks` share: what makes a task, which files, which configuration.
_task_decorator_option = click.option(
    "--task-decorator",
    "task_decorators",
    multiple=True,
    callback=_decorator_names,
    help="An extra decorator that makes a task (qualified or bare name). Repeatable.",
)
_exclude_option = click.option(
    "--exclude",
    multiple=True,
    callback=_path_patterns,
    help="Glob of files or directories to skip, added to the configured ones "
    "(as --extend-exclude). Repeatable.",
)
_extend_exclude_option = click.option(
    "--extend-exclude",
    multiple=True,
    callback=_path_patterns,
    help="Glob of files or directories to skip, relative to the current directory, "
    "added to every configuration's. Repeatable.",
)
_gitignore_option = click.option(
    "--respect-gitignore/--no-respect-gitignore",
    default=None,
    help="Skip what .gitignore files ignore in directory walks (default: yes, "
    "or the configuration's respect-gitignore).",
)
_timeout_option = click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True, max=float("inf"), max_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop analysing a task file (and what it follows) after this long and report it "
    "as IDM902 (default: 30, or the configuration's timeout).",
)
_config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help="A pyproject.toml to read [tool.idemlint] from, for every file "
    "(default: for each file, the nearest one that has the table).",
)


def _configurations(
    paths: Sequence[str], config_path: Optional[str], overrides: Overrides
) -> Configurations:
    """Which settings apply to each file: the named configuration's, else
    each file's nearest; with the command line's options on top.  The
    configuration of the paths' common directory (or the named one) is
    read now, so that a broken one stops the run before anything else."""
    configurations = Configurations(config_path, overrides)
    _configured(lambda: configurations.for_directory(common_directory(paths)))
    return configurations


_T = TypeVar("_T")


def _configured(run: Callable[[], _T]) -> _T:
    """``run()``, a configuration it cannot use reported as a usage error (exit 2)."""
    try:
        return run()
    except ConfigError as error:
        raise ConfigurationError(str(error)) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="idemlint")
def cli() -> None:
    """Find idempotency bugs in Python background tasks."""


@cli.command()
# readable=False: an unreadable path is reported as E902 by the engine and the
# other paths are still checked, instead of click aborting the whole run.
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text: one line per finding; review: review comments; json: every field; "
    "json-lines: the json objects, one a line; sarif: GitHub code scanning; "
    "github: Actions annotations; rdjson: reviewdog; gitlab: GitLab Code Quality; "
    "junit: JUnit XML, a test case per finding.",
)
@click.option(
    "--output-file",
    type=click.Path(dir_okay=False),
    help="Write the report to this file instead of stdout.",
)
@click.option(
    "--statistics",
    is_flag=True,
    help="After the report, count the findings of each code, and the calls "
    "not followed for a budget (on stderr for the machine-read formats).",
)
@click.option(
    "--diff",
    "diff_revision",
    metavar="REV",
    callback=_revision,
    help="Report only findings on lines changed since git revision REV "
    "(or in the unified diff read from stdin with '-').",
)
@click.option(
    "--baseline",
    "baseline_path",
    type=click.Path(dir_okay=False),
    help="Hide the findings recorded in this baseline file; report only new ones.",
)
@click.option(
    "--write-baseline",
    "write_baseline_path",
    type=click.Path(dir_okay=False),
    help="Record today's findings in this file and exit 0.",
)
@click.option(
    "--show-unused-noqa",
    is_flag=True,
    help="Report `# noqa: IDMnnn` comments that suppress nothing (as IDM800).",
)
@click.option(
    "--select",
    callback=_code_prefixes,
    help="Comma-separated code prefixes to report, instead of the configured ones (any case).",
)
@click.option(
    "--extend-select",
    callback=_code_prefixes,
    help="Comma-separated code prefixes to report, added to the configured ones.",
)
@click.option("--ignore", callback=_code_prefixes, help="Comma-separated code prefixes to skip.")
@click.option(
    "--per-file-ignores",
    multiple=True,
    callback=_per_file_ignores,
    help="'GLOB:CODE,CODE GLOB:CODE' (globs relative to the current directory), "
    "instead of every configuration's per-file-ignores. Repeatable.",
)
@click.option(
    "--extend-per-file-ignores",
    multiple=True,
    callback=_per_file_ignores,
    help="Like --per-file-ignores, added to every configuration's. Repeatable.",
)
@_task_decorator_option
@_exclude_option
@_extend_exclude_option
@_gitignore_option
@_timeout_option
@click.option(
    "--force-exclude",
    is_flag=True,
    help="Apply exclusions to files named on the command line too (for pre-commit).",
)
@_config_option
@click.option(
    "--show-settings",
    is_flag=True,
    help="Print the settings that apply to PATH (one file or directory) and which "
    "configuration file they come from, then exit.",
)
@click.option(
    "--project",
    "project_root",
    type=click.Path(file_okay=False),
    help="Analyse every task under this directory and report only findings in PATHS "
    "(for pre-commit, which passes the changed files).",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    help="Worker processes (default: as many as the number of task files pays for).",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help=f"Analyse every task file again instead of reusing {DIRECTORY_NAME}/.",
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    help=f"Where to keep the cache (default: {DIRECTORY_NAME}/ beside the "
    "configuration file, else in the current directory).",
)
@click.option(
    "--fix",
    is_flag=True,
    help="Apply the safe fixes (with --unsafe-fixes, the unsafe ones too), then report what is left.",
)
@click.option(
    "--unsafe-fixes",
    is_flag=True,
    help="Include fixes that change behaviour on purpose, for --fix and --fix-diff.",
)
@click.option(
    "--fix-diff",
    is_flag=True,
    help="Print the unified diff the fixes would make and write nothing "
    "(ruff's --diff; idemlint's --diff REV filters findings by a revision).",
)
@click.option(
    "--exit-non-zero-on-fix",
    is_flag=True,
    help="With --fix, exit 1 when something was fixed, even if nothing is left.",
)
@click.option(
    "--exit-zero",
    is_flag=True,
    help="Exit 0 whatever the report holds: findings, and files that could not be "
    "analysed (usage and configuration errors still exit 2).",
)
@click.option(
    "--color",
    "color",
    type=click.Choice(COLOR_CHOICES),
    default="auto",
    show_default=True,
    help="Colour the text and review formats: auto colours a terminal unless NO_COLOR is set.",
)
@click.option(
    "--stdin-filename",
    metavar="PATH",
    help="With PATH '-': the name of the file read from stdin, where it is reported, whose "
    "configuration applies and around which the project is resolved (default: stdin.py).",
)
@click.option("-q", "--quiet", is_flag=True, help="Print the report and nothing else (no summary line).")
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Print the summary line on stderr even when it is not a terminal, with the "
    "files checked and the time taken.",
)
def check(
    paths: Sequence[str],
    output_format: str,
    output_file: Optional[str],
    statistics: bool,
    diff_revision: Optional[str],
    baseline_path: Optional[str],
    write_baseline_path: Optional[str],
    show_unused_noqa: bool,
    select: Tuple[str, ...],
    extend_select: Tuple[str, ...],
    ignore: Tuple[str, ...],
    per_file_ignores: Tuple[Tuple[PathPattern, Tuple[str, ...]], ...],
    extend_per_file_ignores: Tuple[Tuple[PathPattern, Tuple[str, ...]], ...],
    task_decorators: Tuple[str, ...],
    exclude: Tuple[PathPattern, ...],
    extend_exclude: Tuple[PathPattern, ...],
    respect_gitignore: Optional[bool],
    timeout: Optional[float],
    force_exclude: bool,
    config_path: Optional[str],
    show_settings: bool,
    project_root: Optional[str],
    jobs: Optional[int],
    no_cache: bool,
    cache_dir: Optional[str],
    fix: bool,
    unsafe_fixes: bool,
    fix_diff: bool,
    exit_non_zero_on_fix: bool,
    exit_zero: bool,
    color: str,
    stdin_filename: Optional[str],
    quiet: bool,
    verbose: bool,
) -> int:
    """Check PATHS (files or directories; default: the current directory;
    ``-``: the text on stdin, as the file ``--stdin-filename`` names)."""
    started = time.perf_counter()
    paths = paths or (".",)
    if quiet and verbose:
        raise click.UsageError("--quiet and --verbose cannot be used together")
    overlay: Dict[str, bytes] = {}
    if "-" in paths:
        if len(paths) > 1:
            raise click.UsageError("'-' (stdin) must be the only path")
        # These read the file from disk again, which is not the text checked.
        if fix or fix_diff or diff_revision is not None or baseline_path or write_baseline_path or show_unused_noqa:
            raise click.UsageError(
                "--fix, --fix-diff, --diff, --baseline, --write-baseline and --show-unused-noqa "
                "cannot be used with '-' (stdin)"
            )
        if show_settings:
            raise click.UsageError("'-' (stdin) checks text: --show-settings names a path")
        paths = (stdin_filename or STDIN_NAME,)
        if os.path.isdir(paths[0]):
            raise click.UsageError(f"--stdin-filename {visible(paths[0])!r} is a directory")
        try:
            overlay[paths[0]] = sys.stdin.buffer.read()
        except (AttributeError, OSError, ValueError) as error:  # stdin closed or not readable
            raise click.UsageError(f"cannot read stdin: {error}") from None
    elif stdin_filename is not None:
        raise click.UsageError("--stdin-filename names the text read with the path '-'")
    if baseline_path and write_baseline_path:
        raise click.UsageError("--baseline and --write-baseline cannot be used together")
    if fix and fix_diff:
        raise click.UsageError("--fix and --fix-diff cannot be used together")
    if exit_zero and exit_non_zero_on_fix:
        raise click.UsageError("--exit-zero and --exit-non-zero-on-fix cannot be used together")
    if fix and diff_revision == "-":
        # The lines a diff on stdin names move as fixes are made, and it cannot be read again.
        raise click.UsageError("--fix cannot be used with --diff - (name a revision instead)")
    if show_settings and len(paths) > 1:
        raise click.UsageError("--show-settings shows the settings of one path")
    if show_settings and not os.path.lexists(paths[0]):
        raise click.BadParameter(f"{visible(paths[0])!r}: no such file or directory", param_hint="PATH")
    overrides = Overrides(
        select=select,
        extend_select=extend_select,
        ignore=ignore,
        per_file_ignores=per_file_ignores or None,
        extend_per_file_ignores=extend_per_file_ignores,
        extend_exclude=exclude + extend_exclude,
        task_decorators=task_decorators,
        respect_gitignore=respect_gitignore,
        timeout=timeout,
    )
    configurations = _configurations(paths, config_path, overrides)
    if overlay and project_root is None:
        # The text is one file of its project: resolved around it, as the hook's --project is.
        config = _configured(lambda: configurations.config_file(os.path.dirname(os.path.abspath(paths[0]))))
        project_root = _as_given(os.path.dirname(os.path.abspath(config))) if config else "."
    if show_settings:
        from idemlint.show_settings import render_settings

        click.echo(_configured(lambda: render_settings(paths[0], configurations)), nl=False)
        return EXIT_CLEAN
    # Read before the analysis: a bad revision or diff fails fast.
    changed = _changed_lines(diff_revision, paths) if diff_revision is not None else None
    analysed_before: List[bool] = []
    cache = None
    if not no_cache:
        # Beside the configuration of the paths' common directory; its
        # entries are keyed by the settings each file is analysed with.
        config = configurations.config_file(common_directory(paths))
        root = os.path.dirname(os.path.abspath(config)) if config else os.getcwd()
        settings = configurations.for_directory(common_directory(paths))
        cache = Cache(cache_dir or os.path.join(root, DIRECTORY_NAME), settings)

    def analyse() -> LintResult:
        # After a round of fixes the changed lines are those of the fixed files.
        now = changed if not analysed_before else _changed_lines(diff_revision, paths) if diff_revision else None
        analysed_before.append(True)
        bar = ProgressBar(sys.stderr) if not quiet and is_terminal(sys.stderr) else None
        try:
            result = _configured(
                lambda: lint_paths(
                    paths,
                    configurations,
                    force_exclude=force_exclude,
                    project=project_root,
                    jobs=jobs,
                    cache=cache,
                    progress=bar.update if bar is not None else None,
                    overlay=overlay or None,
                )
            )
        finally:
            if bar is not None:
                bar.clear()
        if cache is not None and cache.warning is not None:
            click.echo(f"idemlint: warning: {visible(cache.warning)}", err=True)
        if not analysed_before[1:]:  # once, not after each round of fixes
            for warning in result.warnings:
                click.echo(f"idemlint: warning: {visible(warning)}", err=True)
        if show_unused_noqa:
            from idemlint.unused_noqa import nothing_to_report, unused_noqa

            result = replace(result, findings=_sorted_findings(result, unused_noqa(result, configurations)))
            if not analysed_before[1:] and nothing_to_report(result, configurations):
                click.echo(
                    "idemlint: warning: --show-unused-noqa reports nothing: IDM800 is not selected "
                    "(add it: --extend-select IDM800)",
                    err=True,
                )
        if now is not None:
            result = replace(
                result,
                findings=now.keep_findings(result.findings),
                problems=now.keep_problems(result.problems),
            )
        if baseline_path and not write_baseline_path:
            result = _without_baselined(baseline_path, result)
        return result

    result = analyse()
    if write_baseline_path:
        return _write_baseline(write_baseline_path, result, exit_zero)
    if fix_diff:
        return _print_fix_diff(result, unsafe_fixes, exit_zero, quiet)
    fixed = 0
    if fix:
        result, fixed = _apply_fixes(result, unsafe_fixes, analyse, quiet)
    _report(result, output_format, output_file, presentation_for(color, sys.stdout))
    if statistics:
        from idemlint.report.statistics import render_statistics

        click.echo(
            render_statistics(result.findings, result.unfollowed, result.problems),
            nl=False,
            err=output_format in STRUCTURED_FORMATS,
        )
    if not quiet and (verbose or is_terminal(sys.stderr)):
        _summarise(result, verbose, time.perf_counter() - started, presentation_for(color, sys.stderr))
    # Exit through the context: in click's standalone mode (``cli()``, CliRunner)
    # a command's return value is discarded and the process would exit 0.
    if exit_zero:
        return EXIT_CLEAN
    if result.problems:
        click.get_current_context().exit(EXIT_ERROR)
    if result.findings or (fixed and exit_non_zero_on_fix):
        click.get_current_context().exit(EXIT_FINDINGS)
    return EXIT_CLEAN


# How many times --fix applies fixes and analyses again: a fix may let
# another be made (two that overlapped), never more than a few times.
MAX_FIX_ROUNDS = 4


def _as_given(directory: str) -> str:
    """``directory`` relative to the current one when it is under it, so that
    paths are reported as the user's others are."""
    relative = os.path.relpath(directory)
    return directory if relative.startswith(os.pardir) else relative


def _fixable(result: LintResult, unsafe: bool, skipped: Set[str]) -> Dict[str, List[Fix]]:
    return by_file(
        (finding.path, fix)
        for finding in result.findings
        if finding.path not in skipped
        for fix in chosen([finding.suggestion], unsafe)
    )


def _summarise(result: LintResult, verbose: bool, seconds: float, presentation: Presentation) -> None:
    """The summary line on stderr (with ``-v``, the files checked and the time first)."""
    safe = sum(1 for f in result.findings if f.suggestion is not None and f.suggestion.safe)
    unsafe = sum(1 for f in result.findings if f.suggestion is not None and not f.suggestion.safe)
    files = len({finding.path for finding in result.findings})
    if verbose:
        count = len(result.checked)
        click.echo(f"Checked {count} file{'s' if count != 1 else ''} in {seconds:.2f}s.", err=True)
    problems = len({problem.path for problem in result.problems})
    line = summary(len(result.findings), files, safe, unsafe, presentation, problems)
    click.echo(line, err=True, color=presentation.colour)


def _apply_fixes(
    result: LintResult, unsafe: bool, analyse: Callable[[], LintResult], quiet: bool = False
) -> Tuple[LintResult, int]:
    """Apply the fixes, analyse again, until nothing more is fixed; the
    last result, and how many fixes were applied."""
    fixed = 0
    skipped: Set[str] = set()
    for _ in range(MAX_FIX_ROUNDS):
        wrote = False
        for path, fixes in sorted(_fixable(result, unsafe, skipped).items()):
            planned = plan(path, fixes)
            why = write(planned)
            if why is not None:
                click.echo(f"idemlint: {visible(path)}: {visible(why)}", err=True)
                skipped.add(path)
            elif planned.applied:
                fixed += planned.applied
                wrote = True
        if not wrote:
            break
        result = analyse()
    if fixed and not quiet:
        click.echo(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.", err=True)
    return result, fixed


def _print_fix_diff(result: LintResult, unsafe: bool, exit_zero: bool, quiet: bool = False) -> int:
    """``--fix-diff``: what --fix would change, as a unified diff; exit 1 when
    it would change something (0 with ``--exit-zero``, as ruff's ``--diff``)."""
    would = 0
    for path, fixes in sorted(_fixable(result, unsafe, set()).items()):
        planned = plan(path, fixes)
        if planned.problem is not None:
            click.echo(f"idemlint: {visible(path)}: {visible(planned.problem)}", err=True)
            continue
        would += planned.applied
        click.echo(unified_diff(path, planned.before, planned.after), nl=False)
    if not quiet:
        click.echo(f"Would fix {would} finding{'s' if would != 1 else ''}.", err=True)
    for problem in result.problems:  # files it could not analyse: nothing to fix there is not nothing wrong
        click.echo(line_for(problem), err=True)
    if result.problems and not exit_zero:
        click.get_current_context().exit(EXIT_ERROR)
    if would and not exit_zero:
        click.get_current_context().exit(EXIT_FINDINGS)
    return EXIT_CLEAN


def _changed_lines(revision: str, paths: Sequence[str]) -> "ChangedLines":
    from idemlint.diff import DiffError, changed_in_patch, changed_since

    try:
        if revision == "-":
            return changed_in_patch(sys.stdin.read())
        return changed_since(revision, paths)
    except DiffError as error:
        raise ConfigurationError(str(error)) from None


def _sorted_findings(result: LintResult, extra: Tuple[Finding, ...]) -> Tuple[Finding, ...]:
    return tuple(
        sorted((*result.findings, *extra), key=lambda f: (f.path, f.line, f.column, f.code))
    )


def _write_baseline(path: str, result: LintResult, exit_zero: bool) -> int:
    from idemlint.baseline import write_baseline

    for problem in result.problems:
        click.echo(line_for(problem), err=True)
    try:
        count = write_baseline(path, result.findings)
    except OSError as error:
        raise ConfigurationError(f"cannot write {path}: {error.strerror or error}") from None
    click.echo(
        f"idemlint: recorded {count} finding{'s' if count != 1 else ''} in {path}", err=True
    )
    # A file that could not be analysed is missing from the baseline: say so.
    if result.problems and not exit_zero:
        click.get_current_context().exit(EXIT_ERROR)
    return EXIT_CLEAN


def _without_baselined(path: str, result: LintResult) -> LintResult:
    from idemlint.baseline import BaselineError, apply_baseline

    try:
        filtered = apply_baseline(path, result.findings)
    except BaselineError as error:
        raise ConfigurationError(str(error)) from None
    if filtered.stale:
        entries = "entry no longer matches" if filtered.stale == 1 else "entries no longer match"
        click.echo(
            f"idemlint: {filtered.stale} baseline {entries}; "
            "run --write-baseline to shrink it",
            err=True,
        )
    return replace(result, findings=filtered.findings)


def _report(
    result: LintResult, output_format: str, output_file: Optional[str], presentation: Presentation = PLAIN
) -> None:
    """Write the report; structured formats keep file problems off stdout.
    The text and review formats are shown as ``presentation`` says on
    stdout (a report written to a file is plain)."""
    if output_format in STRUCTURED_FORMATS:
        for problem in result.problems:
            click.echo(line_for(problem), err=True)
    render = formatter(output_format)
    if output_format in TERMINAL_FORMATS and output_file is None:
        report = render(result, presentation)  # type: ignore[call-arg]
    else:
        report = render(result)
    if output_file is None:
        click.echo(report, nl=False, color=presentation.colour)
        return
    from idemlint.atomic import write_atomic

    try:
        write_atomic(output_file, report)
    except OSError as error:
        raise ConfigurationError(f"cannot write {output_file}: {error.strerror or error}") from None


@cli.command("tasks")
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help=(
        "text: one line per task; json: an array of objects, each task traced as `check` traces it: "
        "its calls by resolution (followed, enqueued, library, cut, unresolved), "
        "where each unresolved call is, and its effects."
    ),
)
@_task_decorator_option
@_exclude_option
@_extend_exclude_option
@_gitignore_option
@_timeout_option
@_config_option
@click.option(
    "--project",
    "project_root",
    type=click.Path(file_okay=False),
    help="Index every module under this directory and list only the tasks in PATHS.",
)
def tasks(
    paths: Sequence[str],
    output_format: str,
    task_decorators: Tuple[str, ...],
    exclude: Tuple[PathPattern, ...],
    extend_exclude: Tuple[PathPattern, ...],
    respect_gitignore: Optional[bool],
    timeout: Optional[float],
    config_path: Optional[str],
    project_root: Optional[str],
) -> int:
    """List every task `check` analyses in PATHS (default: the current directory)."""
    from idemlint.engine import list_tasks
    from idemlint.report.task_list import render_tasks_json, render_tasks_text

    paths = paths or (".",)
    overrides = Overrides(
        extend_exclude=exclude + extend_exclude,
        task_decorators=task_decorators,
        respect_gitignore=respect_gitignore,
        timeout=timeout,
    )
    configurations = _configurations(paths, config_path, overrides)
    traced = output_format == "json"
    listing = _configured(lambda: list_tasks(paths, configurations, project=project_root, traced=traced))
    for problem in listing.problems:
        click.echo(line_for(problem), err=True)
    render = render_tasks_json if output_format == "json" else render_tasks_text
    click.echo(render(list(listing.tasks)), nl=False)
    if listing.problems:
        click.get_current_context().exit(EXIT_ERROR)
    return EXIT_CLEAN


@cli.command("rules")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="text: one line per rule; json: an array of objects (code, name, summary, "
    "url, fix_availability).",
)
def list_rules(output_format: str) -> int:
    """List every rule."""
    from idemlint.report.rule_list import render_rules_json, render_rules_text
    from idemlint.rules import RULES

    render = render_rules_json if output_format == "json" else render_rules_text
    click.echo(render(RULES), nl=False)
    return EXIT_CLEAN


@cli.command()
@click.argument("code")
def explain(code: str) -> int:
    """Explain one rule: what it finds, why it matters, how to fix it."""
    from idemlint.docs import rule_page
    from idemlint.rules import RULES_BY_CODE

    rule = RULES_BY_CODE.get(code.upper())
    if rule is None:
        raise click.BadParameter(
            f"unknown rule {code!r}; `idemlint rules` lists them", param_hint="CODE"
        )
    page = rule_page(rule).split("\n", 1)[1].lstrip("\n")
    click.echo(page, nl=False)
    return EXIT_CLEAN


@cli.command("server")
@click.option("--stdio", is_flag=True, help="Talk LSP over stdin and stdout (the default and only transport).")
@click.option(
    "--debounce",
    type=click.FloatRange(min=0),
    default=0.25,
    show_default=True,
    help="Seconds without an edit before the open files are analysed again.",
)
def server(stdio: bool, debounce: float) -> int:
    """Run the language server for editors (LSP over stdio; needs idemlint[lsp])."""
    try:
        from idemlint.lsp.server import serve
    except ImportError as error:
        raise ConfigurationError(
            f"the language server needs the lsp extra: pip install 'idemlint[lsp]' ({error})"
        ) from None
    click.get_current_context().exit(serve(debounce))
    return EXIT_CLEAN


def main(argv: Optional[List[str]] = None) -> int:
    """Run the CLI and return its exit status (tests call this directly)."""
    try:
        status = cli.main(args=argv, prog_name="idemlint", standalone_mode=False)
    except click.exceptions.Exit as stop:
        return int(stop.exit_code)
    except click.UsageError as error:
        error.show()
        return EXIT_ERROR
    except click.ClickException as error:
        error.show()
        return EXIT_ERROR
    except (click.Abort, KeyboardInterrupt):
        click.echo("idemlint: interrupted", err=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_ERROR
    except Exception as error:
        click.echo(
            f"idemlint: internal error: {type(error).__name__}: {visible(str(error))}. This is a bug "
            "in idemlint; please report it with the file that triggers it (see "
            "'Reporting a bug' in the README; IDEMLINT_DEBUG=1 prints the traceback).",
            err=True,
        )
        if os.environ.get("IDEMLINT_DEBUG"):
            import traceback

            traceback.print_exc()
        return EXIT_ERROR
    return status if isinstance(status, int) else EXIT_CLEAN


def run() -> NoReturn:
    """The ``idemlint`` command: :func:`main`, then the process ends at once.

    An analysis leaves millions of objects (libcst trees, traces, indexes)
    that the interpreter would otherwise collect and free one by one as it
    shuts down: on a large application that takes a second or more after
    the output is complete.  What needs ending (the worker pool, the cache's
    files) has ended when :func:`main` returns, so after flushing the
    output the process exits without tearing down, as mypy does.
    """
    status = main()
    _exit_now(status)


def _exit_now(status: int) -> NoReturn:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # a closed pipe or stream: nothing more to say
            status = status or EXIT_ERROR
    os._exit(status)


if __name__ == "__main__":
    run()
