"""What every report format says about a code: its name, docs and URLs.

The rules come from the registry; ``IDM800`` (an unused ``# noqa``) is a
report-level item the front end adds, so it is described here and not in
the rule registry or the rule docs, and so are the codes of a file that
could not be analysed (``E902``, ``E999``, ``IDM900``), which the machine
formats report as error-level results.  The URLs come from :mod:`idemlint.urls`.
"""

from __future__ import annotations

from dataclasses import dataclass

from idemlint.urls import file_url, rule_url


@dataclass(frozen=True)
class CodeInfo:
    code: str
    name: str
    summary: str
    why: str
    fix: str
    use_instead: str
    help_url: str
    # "warning" for a finding, "error" for a file that could not be analysed.
    level: str = "warning"


UNUSED_NOQA = CodeInfo(
    code="IDM800",
    name="unused-noqa",
    summary="A `# noqa` comment names an idemlint code that has no finding on its line",
    why=(
        "A suppression that suppresses nothing hides the next real finding on "
        "that line, and tells readers the line was reviewed when it was not."
    ),
    fix="Remove the unused code from the `# noqa` comment (or the whole comment).",
    use_instead="requests.get(url)  # no `# noqa: IDM002`: nothing to suppress\n",
    help_url=file_url("README.md") + "#unused-suppressions",
)


def code_info(code: str) -> CodeInfo:
    from idemlint.rules import RULES_BY_CODE  # imports libcst: only when a finding is described

    if code == UNUSED_NOQA.code:
        return UNUSED_NOQA
    if code in FILE_PROBLEMS:
        return FILE_PROBLEMS[code]
    rule = RULES_BY_CODE[code]
    return CodeInfo(
        code=rule.code,
        name=rule.name,
        summary=rule.summary,
        why=rule.why,
        fix=rule.fix,
        use_instead=rule.use_instead,
        help_url=rule_url(rule.code),
    )


def readme_url(anchor: str) -> str:
    """A section of the README, for codes that have no rule page."""
    return file_url(f"README.md#{anchor}")


_NOT_ANALYSED = (
    "idemlint did not analyse this file, so nothing in it is reported: a "
    "report without findings there does not mean the file has none."
)

# A file that could not be analysed (idemlint.findings.FileProblem), by code.
FILE_PROBLEMS = {
    info.code: info
    for info in (
        CodeInfo(
            code="E902",
            name="io-error",
            summary="A file could not be read: missing, unreadable, not a regular file, or not decodable",
            why=_NOT_ANALYSED,
            fix=(
                "Make the file a readable regular file in its declared encoding "
                "(UTF-8 without a coding cookie), or exclude it (`--exclude`, `extend-exclude`)."
            ),
            use_instead="",
            help_url=readme_url("limits"),
            level="error",
        ),
        CodeInfo(
            code="E999",
            name="syntax-error",
            summary="A file is not valid Python, or is nested too deeply to analyse",
            why=_NOT_ANALYSED,
            fix=(
                "Fix the syntax error where it is reported; exclude a generated "
                "file that is nested too deeply (`--exclude`, `extend-exclude`)."
            ),
            use_instead="",
            help_url=readme_url("limits"),
            level="error",
        ),
        CodeInfo(
            code="IDM900",
            name="internal-error",
            summary="idemlint failed on a file: a bug in idemlint",
            why=(
                "The analysis of this file stopped on a bug in idemlint, so "
                "findings in it may be missing."
            ),
            fix=(
                "Report the bug with the file (run again with IDEMLINT_DEBUG=1 "
                "for the traceback); see 'Reporting a bug' in the README."
            ),
            use_instead="",
            help_url=readme_url("reporting-a-bug"),
            level="error",
        ),
    )
}
