"""What every report format says about a code: its name, docs and URLs.

The rules come from the registry; ``IDM800`` (an unused ``# noqa``) is a
report-level item the front end adds, so it is described here and not in
the rule registry or the rule docs.  The URLs come from :mod:`idemlint.urls`.
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
