"""``--statistics``: how many findings of each code, like flake8 and ruff,
then how many calls the analysis did not follow for a budget, and how many
files the time limit cut."""

from __future__ import annotations

from collections import Counter
from typing import List, Sequence, Tuple

from idemlint.deadline import TIMED_OUT
from idemlint.findings import PAST_EVENTS, FileProblem, Finding, UnfollowedCall
from idemlint.report.meta import code_info

_UNFOLLOWED_LABELS = (
    (PAST_EVENTS, "calls not followed: past the event budget"),
)


def render_statistics(
    findings: Sequence[Finding], unfollowed: Sequence[UnfollowedCall] = (), problems: Sequence[FileProblem] = ()
) -> str:
    codes = Counter(finding.code for finding in findings)
    reasons = Counter(call.reason for call in unfollowed)
    rows: List[Tuple[int, str]] = [
        (codes[code], f"{code}  {code_info(code).name}") for code in sorted(codes)
    ]
    rows += [(reasons[reason], label) for reason, label in _UNFOLLOWED_LABELS if reasons[reason]]
    cut = sum(1 for problem in problems if problem.code == TIMED_OUT)
    if cut:
        rows.append((cut, f"files not analysed: past the time limit ({TIMED_OUT})"))
    if not rows:
        return ""
    width = len(str(max(count for count, _ in rows)))
    return "".join(f"{count:>{width}}  {label}\n" for count, label in rows)
