"""``--statistics``: how many findings of each code, like flake8 and ruff."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from idemlint.findings import Finding
from idemlint.report.meta import code_info


def render_statistics(findings: Sequence[Finding]) -> str:
    counts = Counter(finding.code for finding in findings)
    if not counts:
        return ""
    width = len(str(max(counts.values())))
    return "".join(
        f"{counts[code]:>{width}}  {code}  {code_info(code).name}\n" for code in sorted(counts)
    )
