"""What the checked repository can put into a report: nothing that forges a
line, drives a terminal or points outside the repository.

File names are the attacker's text here.  A task module named with a newline,
an escape sequence, a carriage return, a C1 control, a bidirectional override
or bytes that are not UTF-8 holds a finding whose message names the module
(a helper in the same file is called ``<module>.helper``) and whose source
line quotes the same characters; a broken file with such a name is an E999
line.  Every format is run through the installed ``idemlint`` entry point,
so the real stdout encoding is what has to cope.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any, Dict, List, Tuple
from urllib.parse import unquote_to_bytes

import jsonschema
import pytest
from conftest import RunCli

if TYPE_CHECKING:
    from idemlint.engine import LintResult

from idemlint.report import FORMATS, STRUCTURED_FORMATS

SARIF_SCHEMA = pathlib.Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"

# File name (as Python sees it) -> how the text formats must print it.
HOSTILE_NAMES = {
    "new\nline.py": "new\\nline.py",
    "esc\x1b[31mred.py": "esc\\x1b[31mred.py",
    "carriage\rreturn.py": "carriage\\rreturn.py",
    "csi\x9b2J.py": "csi\\x9b2J.py",
    "bidi\u202eyp.py": "bidi\\u202eyp.py",
    os.fsdecode(b"latin\xe9.py"): "latin\\udce9.py",
}
BROKEN_NAME = "broken\n\x1b]0;pwned\x07.py"
BROKEN_SHOWN = "broken\\n\\x1b]0;pwned\\x07.py"

# The flagged line quotes an escape sequence and a bidi override, raw in a literal.
TASK = (
    "import requests\n"
    "from celery import shared_task\n"
    "\n"
    "def helper(order_id):\n"
    "    requests.post('\x1b[2J\u202ehttps://partner.example', json={'id': order_id})\n"
    "\n"
    "@shared_task\n"
    "def notify(order_id):\n"
    "    helper(order_id)\n"
)
BROKEN = "from celery import shared_task\n\n@shared_task\ndef oops(:\n"

# What must never reach stdout raw: C0 controls but TAB and the format's own
# newline, DEL, C1, line/paragraph separators, bidi controls, lone surrogates.
FORBIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)
LOCATION = re.compile(r":\d+:\d+: (IDM\d{3}|E9\d\d) ")
# The formats that hand programs every value exactly as it is.
EXACT_FORMATS = {"json", "json-lines"}


def parsed(output_format: str, report: str) -> Any:
    """A machine-read report as data (which also checks that it parses);
    JUnit's, as the list of its attribute values and texts."""
    if output_format == "json-lines":
        return [json.loads(line) for line in report.splitlines()]
    if output_format == "junit":
        root = ET.fromstring(report)
        return [text for element in root.iter() for text in (*element.attrib.values(), element.text or "")]
    return json.loads(report)


@pytest.fixture
def scene(tmp_path: pathlib.Path) -> pathlib.Path:
    repository = tmp_path / "repo"
    repository.mkdir()
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    for name in HOSTILE_NAMES:
        (repository / name).write_text(TASK, encoding="utf-8")
    (repository / BROKEN_NAME).write_text(BROKEN)
    return repository


def run_idemlint(cwd: pathlib.Path, *argv: str) -> Tuple[int, str, str]:
    """The installed entry point; stdout and stderr must be valid UTF-8."""
    script = os.path.join(os.path.dirname(sys.executable), "idemlint")
    completed = subprocess.run(
        [script, "check", "--no-cache", *argv], cwd=cwd, capture_output=True, timeout=120
    )
    return (
        completed.returncode,
        completed.stdout.decode("utf-8"),
        completed.stderr.decode("utf-8"),
    )


def assert_inert(text: str) -> None:
    raw = sorted({match.group() for match in FORBIDDEN.finditer(text)})
    assert raw == [], f"raw control characters in the output: {raw!r}"


def finding_count(scene: pathlib.Path) -> int:
    _, out, _ = run_idemlint(scene, "--format", "json", ".")
    return len([entry for entry in json.loads(out) if entry["level"] == "warning"])


@pytest.mark.sweep
@pytest.mark.parametrize("output_format", FORMATS)
def test_no_format_lets_a_control_character_through(scene: pathlib.Path, output_format: str) -> None:
    status, out, err = run_idemlint(scene, "--format", output_format, "--statistics", ".")
    assert status == 2  # the broken file; the others are still reported
    assert_inert(out)
    assert_inert(err)
    if output_format in STRUCTURED_FORMATS:
        assert out.isascii()  # JSON's or XML's escapes, nothing raw for a terminal to obey
        parsed(output_format, out)


def test_text_output_has_one_line_per_finding_each_starting_with_its_path(
    scene: pathlib.Path,
) -> None:
    status, out, _ = run_idemlint(scene, ".")
    lines = out.splitlines()  # splits on every Unicode line boundary, not only "\n"
    assert len(lines) == finding_count(scene) + 1  # and the E999 line
    shown = [f"./{name}" for name in [*HOSTILE_NAMES.values(), BROKEN_SHOWN]]
    for line in lines:
        assert any(line.startswith(path + ":") for path in shown), line
        assert len(LOCATION.findall(line)) == 1, line
    assert sorted(line.split(":", 1)[0] for line in lines) == sorted(shown)


def test_review_quotes_the_source_line_escaped(scene: pathlib.Path) -> None:
    status, out, _ = run_idemlint(scene, "--format", "review", ".")
    assert status == 2
    headers = [line for line in out.splitlines() if LOCATION.search(line)]
    assert len(headers) == finding_count(scene) + 1
    quoted = "requests.post('\\x1b[2J\\u202ehttps://partner.example'"
    assert out.count(quoted) == len(HOSTILE_NAMES)
    # The caret stays under `requests`, after the escapes widened nothing before it.
    source, caret = [line for line in out.splitlines() if "| " in line][:2]
    assert caret.index("^") == source.index("requests")


def test_review_caret_moves_with_escapes_before_the_column(tmp_path: pathlib.Path) -> None:
    (tmp_path / "tasks.py").write_text(
        TASK.replace("    requests.post(", "    x = '\x1b'; requests.post("), encoding="utf-8"
    )
    _, out, _ = run_idemlint(tmp_path, "--format", "review", "tasks.py")
    source, caret = [line for line in out.splitlines() if "| " in line][:2]
    assert caret.index("^") == source.index("requests")


def test_github_commands_cannot_be_forged(scene: pathlib.Path) -> None:
    _, out, _ = run_idemlint(scene, "--format", "github", ".")
    lines = out.splitlines()
    assert len(lines) == finding_count(scene) + 1
    assert all(line.startswith(("::warning file=", "::error file=")) for line in lines)
    assert "::warning file=esc\\x1b[31mred.py,line=5," in out
    assert f"::error file={BROKEN_SHOWN},line=4," in out


def test_machine_formats_keep_paths_exact_and_valid(scene: pathlib.Path) -> None:
    names = sorted([*HOSTILE_NAMES, BROKEN_NAME])
    _, out, _ = run_idemlint(scene, "--format", "sarif", ".")
    log = json.loads(out)
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    run_ = log["runs"][0]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run_["results"]]
    assert all(uri["uriBaseId"] == "%SRCROOT%" for uri in uris)
    # Percent-encoded bytes: the exact file names, even the one that is not UTF-8.
    assert sorted(os.fsdecode(unquote_to_bytes(uri["uri"])) for uri in uris) == names
    _, out, _ = run_idemlint(scene, "--format", "json", ".")
    exact = sorted(finding["path"][2:] for finding in json.loads(out))
    assert exact == names  # Python reads it back, the broken file's E999 included
    replaced = [name.encode("utf-8", "surrogateescape").decode("utf-8", "replace") for name in names]
    for output_format, paths_of in (
        ("gitlab", lambda doc: [i["location"]["path"] for i in doc]),
        ("rdjson", lambda doc: [d["location"]["path"] for d in doc["diagnostics"]]),
    ):
        _, out, _ = run_idemlint(scene, "--format", output_format, ".")
        paths = sorted(paths_of(json.loads(out)))
        assert paths == sorted(replaced), output_format  # the broken file's E999 included
        assert "\ufffd" in "".join(paths)


def test_json_keeps_the_path_as_it_is(scene: pathlib.Path) -> None:
    _, out, _ = run_idemlint(scene, "--format", "json", "esc\x1b[31mred.py")
    [finding] = json.loads(out)
    assert finding["path"] == "esc\x1b[31mred.py"  # JSON escapes it; a program gets the name


def test_a_baseline_of_a_file_name_that_is_not_utf8_round_trips(scene: pathlib.Path) -> None:
    status, _, err = run_idemlint(scene, "--write-baseline", "baseline.json", ".")
    assert status == 2 and "recorded" in err  # the broken file is not in the record
    recorded = (scene / "baseline.json").read_text("utf-8")
    assert_inert(recorded)  # the excerpts quote the source lines escaped
    json.loads(recorded)
    status, out, _ = run_idemlint(scene, "--baseline", "baseline.json", ".")
    assert status == 2
    assert [line for line in out.splitlines() if "IDM" in line] == []


# -- paths outside the root -------------------------------------------------

HELPER = """\
import requests


def notify_partner(order_id):
    requests.post('https://partner.example/orders', json={'id': order_id})
"""
CALLER = """\
from celery import shared_task

import helpers


@shared_task
def notify(order_id):
    helpers.notify_partner(order_id)
"""


@pytest.fixture
def linked(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """repo/tasks.py calls repo/helpers.py, a link to ../elsewhere/helpers.py."""
    repository, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    repository.mkdir()
    elsewhere.mkdir()
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    (elsewhere / "helpers.py").write_text(HELPER)
    (repository / "tasks.py").write_text(CALLER)
    (repository / "helpers.py").symlink_to(os.path.join("..", "elsewhere", "helpers.py"))
    monkeypatch.chdir(repository)
    return repository


def reported_paths(run_cli: RunCli, output_format: str, *paths: str) -> List[Any]:
    status, out, _ = run_cli("check", "--no-cache", "--format", output_format, *paths)
    assert status == 1
    if output_format == "github":
        return [line.split(",", 1)[0] for line in out.splitlines()]
    document: Any = json.loads(out)
    if output_format == "sarif":
        results = document["runs"][0]["results"]
        return [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in results]
    if output_format == "gitlab":
        return [issue["location"]["path"] for issue in document]
    if output_format == "rdjson":
        return [d["location"]["path"] for d in document["diagnostics"]]
    return [finding["path"] for finding in document]


def test_a_finding_in_a_linked_helper_is_reported_at_the_link(
    linked: pathlib.Path, run_cli: RunCli
) -> None:
    assert reported_paths(run_cli, "json", ".") == ["./helpers.py"]
    assert reported_paths(run_cli, "sarif", ".") == [{"uri": "helpers.py", "uriBaseId": "%SRCROOT%"}]
    assert reported_paths(run_cli, "gitlab", ".") == ["helpers.py"]
    assert reported_paths(run_cli, "rdjson", ".") == ["helpers.py"]
    assert reported_paths(run_cli, "github", ".") == ["::warning file=helpers.py"]


def test_linked_helper_is_reported_the_same_with_the_cache(
    linked: pathlib.Path, run_cli: RunCli
) -> None:
    for _ in range(2):  # cold, then from the cache
        status, out, _ = run_cli("check", "--format", "gitlab", ".")
        assert status == 1
        assert [issue["location"]["path"] for issue in json.loads(out)] == ["helpers.py"]


def test_the_fingerprint_follows_the_link_not_its_target(
    linked: pathlib.Path, run_cli: RunCli, tmp_path: pathlib.Path
) -> None:
    _, before, _ = run_cli("check", "--no-cache", "--format", "gitlab", ".")
    # Point the link at another copy of the same file: the finding is the same one.
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "helpers.py").write_text(HELPER)
    (linked / "helpers.py").unlink()
    (linked / "helpers.py").symlink_to(os.path.join("..", "other", "helpers.py"))
    _, after, _ = run_cli("check", "--no-cache", "--format", "gitlab", ".")
    assert [i["fingerprint"] for i in json.loads(before)] == [
        i["fingerprint"] for i in json.loads(after)
    ]


def test_a_root_reached_through_a_link_is_still_the_root(
    linked: pathlib.Path, run_cli: RunCli, tmp_path: pathlib.Path
) -> None:
    (tmp_path / "alias").symlink_to("repo", target_is_directory=True)
    aliased = os.path.join("..", "alias")
    named = [os.path.join(aliased, "tasks.py"), os.path.join(aliased, "helpers.py")]
    assert reported_paths(run_cli, "gitlab", *named) == ["helpers.py"]
    assert reported_paths(run_cli, "sarif", *named) == [{"uri": "helpers.py", "uriBaseId": "%SRCROOT%"}]


def outside(linked: pathlib.Path) -> str:
    """A task file the user names explicitly, outside the repository."""
    path = linked.parent / "elsewhere" / "outside_tasks.py"
    path.write_text(CALLER.replace("import helpers", "import requests").replace(
        "helpers.notify_partner(order_id)", "requests.post('https://x.example', json={})"
    ))
    return str(path)


def test_a_file_outside_the_root_is_flagged_by_an_absolute_location(
    linked: pathlib.Path, run_cli: RunCli
) -> None:
    path = outside(linked)
    [artifact] = reported_paths(run_cli, "sarif", path)
    assert artifact == {"uri": pathlib.Path(path).as_uri()}  # no %SRCROOT%, never "../"
    assert reported_paths(run_cli, "gitlab", path) == [path]
    assert reported_paths(run_cli, "rdjson", path) == [path]
    _, out, _ = run_cli("check", "--no-cache", "--format", "sarif", path)
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(json.loads(out))


def test_github_annotates_a_file_outside_the_root_without_a_file(
    linked: pathlib.Path, run_cli: RunCli
) -> None:
    path = outside(linked)
    status, out, _ = run_cli("check", "--no-cache", "--format", "github", path)
    assert status == 1
    [line] = out.splitlines()
    assert "file=" not in line and "line=" not in line  # GitHub cannot place it in the repo
    assert line.startswith("::warning title=IDM002 missing-idempotency-key::")
    assert line.split("::", 2)[2].startswith(f"{path}:8:5: ")  # still reported, with its location


def test_text_formats_print_the_path_as_named(linked: pathlib.Path, run_cli: RunCli) -> None:
    path = outside(linked)
    status, out, _ = run_cli("check", "--no-cache", path, ".")
    assert status == 1
    assert sorted(line.split(":", 1)[0] for line in out.splitlines()) == sorted(
        [path, "./helpers.py"]
    )


def test_problem_files_outside_the_root_are_placed_the_same_way(
    linked: pathlib.Path, run_cli: RunCli
) -> None:
    broken = linked.parent / "elsewhere" / "broken.py"
    broken.write_text(BROKEN)
    status, out, _ = run_cli("check", "--no-cache", "--format", "sarif", str(broken))
    assert status == 2
    [problem] = json.loads(out)["runs"][0]["results"]
    artifact: Dict[str, str] = problem["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": broken.as_uri()}
    _, out, _ = run_cli("check", "--no-cache", "--format", "github", str(broken))
    assert out.startswith(f"::error title=E999::{broken}:4:")


# -- text that reaches a report without coming from a file name -------------
#
# A task or function name cannot hold these characters, but an exception's
# message can, and every field of a finding is printed by some format: each
# formatter must escape what it is given, not rely on where it came from.


def forged_result(path: pathlib.Path) -> "LintResult":
    from idemlint.engine import LintResult
    from idemlint.findings import FileProblem, Finding, Related

    hostile = "x\n\x1b[31m\r\x9b\u202e\u2028y"
    finding = Finding(
        path=str(path), line=5, column=5, code="IDM002", end_line=5, end_column=10,
        rule="missing-idempotency-key", message=f"message {hostile}", why=f"why {hostile}",
        fix=f"fix {hostile}", task=f"task{hostile}", tasks=(f"tasks.task{hostile}",),
        callers=(f"tasks.task{hostile}",), related=(Related(str(path), 2, 1, f"note {hostile}"),),
    )
    problem = FileProblem(str(path), 1, 1, "IDM900", f"internal error ({hostile})")
    return LintResult(findings=(finding,), problems=(problem,))


def strings_in(document: Any) -> List[str]:
    if isinstance(document, str):
        return [document]
    if isinstance(document, dict):
        document = list(document.values())
    if isinstance(document, list):
        return [text for item in document for text in strings_in(item)]
    return []


@pytest.mark.parametrize("output_format", FORMATS)
def test_every_field_a_format_prints_is_escaped(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, output_format: str
) -> None:
    from idemlint.report import formatter

    monkeypatch.chdir(tmp_path)
    (tmp_path / "tasks.py").write_text(TASK, encoding="utf-8")
    report = formatter(output_format)(forged_result(tmp_path / "tasks.py"))
    assert_inert(report)
    if output_format in STRUCTURED_FORMATS - EXACT_FORMATS:
        # What code scanning, GitLab, reviewdog and test reports show people is escaped too;
        # only the JSON formats hand programs the values as they are.
        assert_inert(" ".join(strings_in(parsed(output_format, report))))
    if output_format == "text":
        assert len(report.splitlines()) == 2
    if output_format == "github":
        assert [line.split(" ", 1)[0] for line in report.splitlines()] == ["::warning", "::error"]


def test_the_flake8_plugin_escapes_what_it_yields(monkeypatch: pytest.MonkeyPatch) -> None:
    import ast

    from idemlint import flake8_plugin

    def explode(*args: object, **kwargs: object) -> None:
        raise ValueError("bad \x1b[2J\u202e input")

    monkeypatch.setattr(flake8_plugin, "lint_source", explode)
    checker = flake8_plugin.IdemlintChecker(ast.parse(TASK), TASK.splitlines(True), "tasks.py")
    [(_, _, text, _)] = list(checker.run())
    assert text.startswith("IDM900 internal error in the flake8 plugin (ValueError: bad \\x1b[2J\\u202e input)")
    assert_inert(text)


def test_a_configuration_error_quotes_the_key_escaped(tmp_path: pathlib.Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.idemlint]\n"\\u001b]0;pwned\\u0007\\u202e" = 1\n')
    status, out, err = run_idemlint(tmp_path, ".")
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert "\\x1b]0;pwned\\x07\\u202e" in err
    assert_inert(err)


def test_an_internal_error_quotes_its_exception_escaped(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, run_cli: RunCli
) -> None:
    from idemlint import cli

    def explode(*args: object, **kwargs: object) -> None:
        raise ValueError("bad entry \x1b[2J\u202e")  # a message quoting repository text

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "lint_paths", explode)
    status, out, err = run_cli("check", ".")
    assert status == 2 and out == ""
    assert "ValueError: bad entry \\x1b[2J\\u202e." in err
    assert_inert(err)


def test_rdjson_paths_above_the_working_directory_stay_relative(
    linked: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # reviewdog joins a relative path to the working directory's place in the
    # repository: ../helpers.py from sub/ is helpers.py, which the diff names.
    (linked / "sub").mkdir()
    monkeypatch.chdir(linked / "sub")
    named = [os.path.join("..", "tasks.py"), os.path.join("..", "helpers.py")]
    assert reported_paths(run_cli, "rdjson", *named) == ["../helpers.py"]
    assert reported_paths(run_cli, "gitlab", *named) == ["helpers.py"]
