"""JUnit XML, as Jenkins, GitLab and the test-report actions read it.

One ``testsuite`` named ``idemlint`` (inside a ``testsuites`` root that
repeats its counts), holding a ``testcase`` per finding, with a
``failure``, and one per file that could not be analysed, with an
``error``; a run with neither has one passing test case, ``no findings``, so
that a CI step that wants at least one test gets it.  A test case per
finding rather than per file: the merge-request widget of GitLab lists new
and fixed test cases, and only a test case per finding says which finding
is new.

A test case is named by what the finding is, not by its line, so that the
comparison of a merge request with its target branch (GitLab matches test
cases by suite, class and name; Jenkins tracks a test's history the same
way) does not turn a finding that moved into a new one and a fixed one:
``<path>: <code> <rule>: <offending source>``, the path relative to the
repository root (absolute outside it) and the offending source as the
baseline and the fingerprints read it (whitespace collapsed), shortened;
a name two test cases would share gets `` (2)``, `` (3)``... in report
order.  The position, message, related places, why and fix are in the
failure's text.  The class name is the path as a dotted name
(``shop/payments/tasks.py`` is ``shop.payments.tasks``), which Jenkins shows
as a package and a class.

Only the elements and attributes of the common JUnit schema (the Jenkins
xUnit plugin's) are written: no ``file`` or ``line`` attribute, no time.
Every text goes through :func:`visible` (these reports are read by people,
in a browser), and the document is ASCII, anything else written as a
character reference.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Dict, List, Union

from idemlint.engine import LintResult
from idemlint.escape import xml_text
from idemlint.findings import FileProblem, Finding
from idemlint.git import report_root
from idemlint.report.meta import code_info
from idemlint.report.source import ReportPaths, offending_source

SUITE = "idemlint"
CLEAN_CASE = "no findings"
# How much of the offending source a test case's name quotes.
EXCERPT_LENGTH = 100


def render_junit(result: LintResult) -> str:
    paths = ReportPaths.under(report_root())
    items: List[Union[Finding, FileProblem]] = sorted(
        [*result.findings, *result.problems], key=lambda i: (i.path, i.line, i.column, i.code)
    )
    cases = [_case(item, paths) for item in items]
    _number_repeated_names(cases)
    if not cases:
        cases = [ET.Element("testcase", {"name": CLEAN_CASE, "classname": SUITE})]
    counts = {
        "tests": str(len(cases)),
        "failures": str(len(result.findings)),
        "errors": str(len(result.problems)),
    }
    root = ET.Element("testsuites", {"name": SUITE, **counts})
    suite = ET.SubElement(root, "testsuite", {"name": SUITE, **counts, "skipped": "0"})
    suite.extend(cases)
    ET.indent(root)
    document = ET.tostring(root, encoding="unicode")
    ascii_only = document.encode("ascii", "xmlcharrefreplace").decode("ascii")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ascii_only + "\n"


def _case(item: Union[Finding, FileProblem], paths: ReportPaths) -> ET.Element:
    info = code_info(item.code)
    path = paths.inside(item.path) or os.path.abspath(item.path)
    excerpt = offending_source(item)
    if len(excerpt) > EXCERPT_LENGTH:
        excerpt = excerpt[: EXCERPT_LENGTH - 3] + "..."
    name = f"{path}: {item.code} {info.name}" + (f": {excerpt}" if excerpt else "")
    case = ET.Element("testcase", {"name": xml_text(name), "classname": xml_text(_dotted(path))})
    lines = [f"{item.path}:{item.line}:{item.column}: {item.code} {item.message}"]
    if isinstance(item, Finding) and item.related:
        lines += ["", "Related:", *(f"  {p.path}:{p.line}:{p.column}  {p.note}" for p in item.related)]
    lines += ["", f"Why: {info.why}", f"Fix: {info.fix}", f"See: {info.help_url}"]
    kind = "failure" if isinstance(item, Finding) else "error"
    outcome = ET.SubElement(case, kind, {"message": xml_text(item.message), "type": xml_text(item.code)})
    outcome.text = "\n".join(xml_text(line) for line in lines)
    return case


def _dotted(path: str) -> str:
    """``shop/payments/tasks.py`` as ``shop.payments.tasks``."""
    stem = path[:-3] if path.endswith(".py") else path
    return ".".join(part for part in stem.replace(os.sep, "/").split("/") if part)


def _number_repeated_names(cases: List[ET.Element]) -> None:
    """Give the second and later test cases of one name `` (2)``, `` (3)``...:
    a report that holds two of a name counts one of them."""
    totals = Counter(case.get("name") for case in cases)
    seen: Dict[str, int] = {}
    for case in cases:
        name = case.get("name", "")
        if totals[name] > 1:
            seen[name] = seen.get(name, 0) + 1
            if seen[name] > 1:
                case.set("name", f"{name} ({seen[name]})")
