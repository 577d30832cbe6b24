"""The order of the command line changes nothing: not which tasks a finding
in a shared helper names nor its related places, not which of two files
claiming one module name is followed, and so neither baselines nor SARIF
fingerprints.

The project (``tests/projects/shared_helpers``) has helpers reached from
tasks in several files, and two top-level ``utils.py`` of which only one has
a finding.  A property test permutes, repeats and respells the paths and
compares every output a CI pipeline keeps against the run in sorted order.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
from typing import Dict, List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idemlint.cli import main

# A property test of 25 command lines, three runs each: about a minute (`make test-all`).
pytestmark = pytest.mark.slow

PROJECT = pathlib.Path(__file__).parent / "projects" / "shared_helpers"
PATHS = ["jobs/tasks.py", "jobs/utils.py", "legacy/utils.py", "orders", "orders/alpha.py", "orders/beta.py"]


def _outputs(capsys: pytest.CaptureFixture[str], paths: List[str], *options: str) -> Dict[str, str]:
    """Text output, JSON findings (tasks and related places included), SARIF
    fingerprints and the baseline of one run from the project root."""
    outputs = {}
    for output_format in ("text", "json", "sarif"):
        status = main(["check", "--format", output_format, *options, *paths])
        assert status == 1
        outputs[output_format] = capsys.readouterr().out
    outputs["json"] = json.dumps(_normalised_findings(json.loads(outputs["json"])))
    sarif = json.loads(outputs.pop("sarif"))
    outputs["fingerprints"] = json.dumps(
        sorted(
            (r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["ruleId"],
             r["partialFingerprints"]["idemlint/v2"])
            for r in sarif["runs"][0]["results"]
        )
    )
    assert main(["check", "--write-baseline", "baseline.json", *options, *paths]) == 0
    capsys.readouterr()
    outputs["baseline"] = pathlib.Path("baseline.json").read_text()
    return outputs


@pytest.fixture
def project(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    monkeypatch.chdir(root)
    return root


def test_a_shared_helper_names_every_task_that_reaches_it(
    project: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for paths in (PATHS, list(reversed(PATHS))):
        assert main(["check", "--no-cache", *paths]) == 1
        lines = capsys.readouterr().out.splitlines()
        tasks = [line.split(" (called from ")[1] for line in lines]
        # The module `utils` is jobs/utils.py (before legacy/utils.py), whose
        # refund has no key.
        assert [line.split(" ")[0:2] for line in lines] == [
            ["jobs/utils.py:5:5:", "IDM002"],
            ["orders/billing.py:6:5:", "IDM002"],
            ["orders/billing.py:10:5:", "IDM013"],
        ]
        both = "tasks `orders.alpha.zulu_charge` and `orders.beta.able_charge`)"
        assert tasks == ["task `tasks.refund_order`)", both, both]


@st.composite
def _command_lines(draw: st.DrawFn) -> Tuple[List[str], str]:
    """A permutation of the paths, some named twice, some as ``./path``."""
    paths = [*draw(st.permutations(PATHS)), *draw(st.lists(st.sampled_from(PATHS), max_size=3))]
    respelled = draw(st.lists(st.booleans(), min_size=len(paths), max_size=len(paths)))
    return [f"./{p}" if dot else p for p, dot in zip(paths, respelled)], draw(st.sampled_from(["1", "2"]))


@settings(
    max_examples=int(os.environ.get("IDEMLINT_ORDER_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,
    database=None,  # never write .hypothesis/ into the checkout
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(command_line=_command_lines())
def test_no_permutation_of_the_command_line_changes_what_is_kept(
    project: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    command_line: Tuple[List[str], str],
) -> None:
    paths, jobs = command_line
    expected = _outputs(capsys, sorted(PATHS), "--no-cache", "--jobs", "1")
    # One cache for every example: an entry written under one order must
    # serve every other.
    cached = ("--cache-dir", str(project.parent / "cache"), "--jobs", jobs)
    actual = _outputs(capsys, paths, *cached)
    # The text output keeps the spelling the user gave (`./orders/...`) and
    # sorts by it; baselines and fingerprints are relative to the root.
    assert {**actual, "text": _normalised(actual["text"])} == {**expected, "text": _normalised(expected["text"])}


def _normalised_findings(findings: List[Dict[str, object]]) -> List[Dict[str, object]]:
    """The JSON findings with every path as ``os.path.normpath`` spells it
    (related places sorted again: ``./orders/beta.py`` sorts before
    ``orders/alpha.py``, as the text output sorts by the paths as given)."""
    normalised = []
    for finding in findings:
        related = finding["related"]
        assert isinstance(related, list)
        normalised.append({
            **finding,
            "path": os.path.normpath(str(finding["path"])),
            "related": sorted(
                ({**place, "path": os.path.normpath(place["path"])} for place in related),
                key=lambda place: json.dumps(place, sort_keys=True),
            ),
        })
    return sorted(normalised, key=lambda finding: json.dumps(finding, sort_keys=True))


def _normalised(text: str) -> str:
    lines = [line.split(":", 1) for line in text.splitlines(keepends=True)]
    return "".join(sorted(f"{os.path.normpath(path)}:{rest}" for path, rest in lines))
