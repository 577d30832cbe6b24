"""What every report format says about a code: its name, docs and URLs.

The rules' texts come from :mod:`idemlint.rule_texts` (generated from the
registry, which a run served from the cache never imports); ``IDM800``
(an unused ``# noqa``) is a report-level item the front end adds, so it is
described here and not in the rule registry or the rule docs, and so are
the codes of a file that could not be analysed (``E902``, ``E999``,
``IDM900``, ``IDM902``), which the machine formats report as error-level
results.  The
URLs come from :mod:`idemlint.urls`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from idemlint.rule_texts import RULE_TEXTS
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
    if code == UNUSED_NOQA.code:
        return UNUSED_NOQA
    if code in FILE_PROBLEMS:
        return FILE_PROBLEMS[code]
    name, summary, why, fix, use_instead = RULE_TEXTS[code]
    return CodeInfo(
        code=code, name=name, summary=summary, why=why, fix=fix, use_instead=use_instead, help_url=rule_url(code)
    )


def rule_infos() -> List[CodeInfo]:
    """Every rule's, in the registry's order."""
    return [code_info(code) for code in RULE_TEXTS]


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
        CodeInfo(
            code="IDM902",
            name="timeout",
            summary="A file's analysis took longer than the time limit, and was stopped",
            why=_NOT_ANALYSED,
            fix=(
                "Raise the limit (`--timeout SECONDS`, `timeout = ...` in [tool.idemlint]) if "
                "the file is large, or exclude it; a file of ordinary size that takes this long "
                "is a bug in idemlint: report it with the file (see 'Reporting a bug' in the README)."
            ),
            use_instead="",
            help_url=readme_url("limits"),
            level="error",
        ),
    )
}
