"""The command line, through click (``CliRunner`` on ``cli``), through
``idemlint.cli.main(argv)``, and through the installed console script.

Most tests run twice, once per in-process front end (the ``idemlint``
fixture): both must give the same exit status and output.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable, List

import pytest
from click.testing import CliRunner

from idemlint import __version__
from idemlint.cli import cli, main
from idemlint.urls import rule_url
from idemlint.rules import RULES

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
CLEAN = FIXTURES / "clean"
IDM002_FIXTURE = FIXTURES / "IDM002_celery.py"
CELERY_FIXTURES = sorted(FIXTURES.glob("IDM*_celery.py"))
ALL_CODES = {rule.code for rule in RULES}
CODES_FROM_10 = {code for code in ALL_CODES if not code.startswith("IDM00")}

FINDING_LINE = re.compile(r"^(?P<path>.+):(?P<line>\d+):(?P<column>\d+): (?P<code>[A-Z]+\d+) ")
JSON_KEYS = {
    "path", "line", "column", "end_line", "end_column",
    "code", "rule", "message", "why", "fix", "task", "tasks", "related", "suggestion",
    "level", "url", "fingerprint",
}

TASK_MODULE = """\
import requests
from celery import shared_task


@shared_task
def notify_warehouse(url, order_id):
    {call}
"""
UNKEYED_POST = 'requests.post(url, json={"order": order_id})'


@dataclass
class Run:
    status: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def lines(self) -> List[str]:
        return self.stdout.splitlines()

    def codes(self) -> List[str]:
        return [m.group("code") for m in map(FINDING_LINE.match, self.lines()) if m]


Idemlint = Callable[..., Run]


def _runner() -> CliRunner:
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:  # click >= 8.2 always keeps them apart
        return CliRunner()


# Through CliRunner, every test runs a second time, for 45 s: the quick tier
# runs the tests through main(argv) only, `make test-all` through both.
@pytest.fixture(params=[pytest.param("clirunner", marks=pytest.mark.slow), "main"])
def idemlint(request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]) -> Idemlint:
    """Run the CLI in process, through click's CliRunner or through main(argv)."""

    def run(*args: object) -> Run:
        argv = [str(a) for a in args]
        if request.param == "clirunner":
            result = _runner().invoke(cli, argv)
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                raise result.exception
            return Run(result.exit_code, result.stdout, result.stderr)
        status = main(argv)
        captured = capsys.readouterr()
        return Run(status, captured.out, captured.err)

    return run


def write_task(tmp_path: pathlib.Path, call: str = UNKEYED_POST, name: str = "tasks.py") -> pathlib.Path:
    path = tmp_path / name
    path.write_text(TASK_MODULE.format(call=call), encoding="utf-8")
    return path


# --- exit status ----------------------------------------------------------


def test_clean_fixtures_exit_0_and_print_nothing(idemlint: Idemlint) -> None:
    run = idemlint("check", CLEAN)
    assert (run.status, run.stdout, run.stderr) == (0, "", "")


def test_a_file_with_findings_exits_1(idemlint: Idemlint) -> None:
    run = idemlint("check", IDM002_FIXTURE)
    assert run.status == 1
    assert run.codes() and set(run.codes()) == {"IDM002"}
    assert all(line.startswith(f"{IDM002_FIXTURE}:") for line in run.lines())


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--select", "FOO"],
        ["check", "--ignore", "FOO"],
        ["check", "--select", "IDM0001"],
        ["check", "--format", "nope"],
        ["check", "--no-such-option"],
        ["no-such-command"],
    ],
    ids=["select-FOO", "ignore-FOO", "select-too-long", "format-nope", "unknown-option", "unknown-command"],
)
def test_usage_errors_exit_2_without_traceback(idemlint: Idemlint, argv: List[str]) -> None:
    run = idemlint(*argv, CLEAN)
    assert run.status == 2
    assert "Error" in run.stderr
    assert "Traceback" not in run.output
    assert run.stdout == ""


def test_select_error_names_the_bad_value(idemlint: Idemlint) -> None:
    run = idemlint("check", "--select", "FOO", CLEAN)
    assert "'FOO' is not an idemlint code or prefix" in run.stderr


def test_missing_path_exits_2_and_names_it(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    missing = tmp_path / "missing.py"
    run = idemlint("check", missing)
    assert run.status == 2
    assert run.lines() == [f"{missing}:1:1: E902 No such file or directory"]


def test_missing_path_does_not_stop_the_other_files(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    good = write_task(tmp_path)
    run = idemlint("check", tmp_path / "missing.py", good)
    assert run.status == 2
    assert run.codes() == ["E902", "IDM002"]


def test_exit_zero_exits_0_with_findings_and_still_prints_them(idemlint: Idemlint) -> None:
    run = idemlint("check", "--exit-zero", IDM002_FIXTURE)
    assert run.status == 0
    assert run.codes() and set(run.codes()) == {"IDM002"}


def test_exit_zero_exits_0_when_a_file_fails_to_parse_and_still_reports_it(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    good = write_task(tmp_path, name="good.py")
    bad = make_syntax_error(tmp_path)
    run = idemlint("check", "--exit-zero", good, bad, tmp_path / "missing.py")
    assert run.status == 0
    assert run.codes() == ["E999", "IDM002", "E902"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--select", "FOO"],
        ["--no-such-option"],
        ["--config", "{tmp}/pyproject.toml"],
        ["--baseline", "{tmp}/no-baseline.json"],
        ["--exit-non-zero-on-fix"],
    ],
    ids=["bad-select", "unknown-option", "bad-config", "missing-baseline", "exit-non-zero-on-fix"],
)
def test_exit_zero_still_exits_2_on_usage_and_configuration_errors(
    idemlint: Idemlint, tmp_path: pathlib.Path, argv: List[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.idemlint]\nno-such-key = 1\n")
    make_syntax_error(tmp_path)
    run = idemlint("check", "--exit-zero", *(a.format(tmp=tmp_path) for a in argv), tmp_path)
    assert run.status == 2
    assert "Traceback" not in run.output and run.stdout == ""


def test_exit_zero_means_what_ruffs_does_on_a_syntax_error(tmp_path: pathlib.Path) -> None:
    ruff = pytest.importorskip("ruff")
    bad = make_syntax_error(tmp_path)
    binary = ruff.find_ruff_bin()  # type: ignore[attr-defined]
    ruffs = subprocess.run(
        [binary, "check", "--no-cache", "--isolated", "--exit-zero", str(bad)],
        capture_output=True, text=True, timeout=60,
    )
    assert ruffs.returncode == 0 and "invalid-syntax" in ruffs.stdout + ruffs.stderr
    assert main(["check", "--no-cache", "--exit-zero", str(bad)]) == 0


def test_no_path_checks_the_current_directory(
    idemlint: Idemlint, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_task(tmp_path)
    monkeypatch.chdir(tmp_path)
    run = idemlint("check")
    assert run.status == 1
    assert [line.split(":")[0] for line in run.lines()] == [os.path.join(".", "tasks.py")]


def test_version(idemlint: Idemlint) -> None:
    run = idemlint("--version")
    assert run.status == 0
    assert __version__ in run.stdout


# --- --select / --ignore --------------------------------------------------


def codes_for(idemlint: Idemlint, *options: str) -> set:
    run = idemlint("check", *options, *CELERY_FIXTURES)
    assert run.status in (0, 1), run.output
    return set(run.codes())


def test_celery_fixtures_report_every_rule(idemlint: Idemlint) -> None:
    assert codes_for(idemlint) == {rule.code for rule in RULES}


@pytest.mark.sweep
@pytest.mark.parametrize(
    "options, expected",
    [
        (["--select", "IDM002"], {"IDM002"}),
        (["--select", "IDM001,IDM004"], {"IDM001", "IDM004"}),
        (["--select", "IDM001, IDM003"], {"IDM001", "IDM003"}),
        (["--select", "idm002"], {"IDM002"}),
        (["--select", "IDM"], ALL_CODES),
        (["--ignore", "IDM002"], ALL_CODES - {"IDM002"}),
        (["--ignore", "IDM00"], CODES_FROM_10),
        (["--select", "IDM00", "--ignore", "IDM002"], ALL_CODES - CODES_FROM_10 - {"IDM002"}),
        # the longest matching prefix wins, whichever option it is in
        (["--select", "IDM002", "--ignore", "IDM00"], {"IDM002"}),
        (["--select", "IDM", "--ignore", "IDM0"], set()),
    ],
)
def test_select_and_ignore_take_code_prefixes(
    idemlint: Idemlint, options: List[str], expected: set
) -> None:
    assert codes_for(idemlint, *options) == expected


def test_everything_ignored_exits_0(idemlint: Idemlint) -> None:
    run = idemlint("check", "--ignore", "IDM", IDM002_FIXTURE)
    assert (run.status, run.stdout) == (0, "")


# --- output formats ------------------------------------------------------


def test_json_is_an_array_with_exactly_the_documented_keys(idemlint: Idemlint) -> None:
    run = idemlint("check", "--format", "json", *CELERY_FIXTURES)
    assert run.status == 1
    findings = json.loads(run.stdout)
    assert isinstance(findings, list) and findings
    for finding in findings:
        assert set(finding) == JSON_KEYS
        assert isinstance(finding["line"], int) and isinstance(finding["column"], int)
        assert (finding["end_line"], finding["end_column"]) >= (finding["line"], finding["column"])
        assert finding["level"] == "warning"
        assert finding["url"] == rule_url(finding["code"])
        assert re.fullmatch("[0-9a-f]{64}", finding["fingerprint"])


def test_json_is_sorted_by_path_line_column_code(idemlint: Idemlint) -> None:
    findings = json.loads(idemlint("check", "--format", "json", *reversed(CELERY_FIXTURES)).stdout)
    order = [(f["path"], f["line"], f["column"], f["code"]) for f in findings]
    assert len({f["path"] for f in findings}) > 1
    assert order == sorted(order)


def test_json_holds_the_same_findings_as_text(idemlint: Idemlint) -> None:
    text = idemlint("check", *CELERY_FIXTURES).lines()
    findings = json.loads(idemlint("check", "--format", "json", *CELERY_FIXTURES).stdout)
    assert [f"{f['path']}:{f['line']}:{f['column']}: {f['code']} {f['message']}" for f in findings] == text


def test_json_of_a_clean_tree_is_an_empty_array(idemlint: Idemlint) -> None:
    run = idemlint("check", "--format", "json", CLEAN)
    assert run.status == 0
    assert json.loads(run.stdout) == []


def test_json_reports_file_problems_as_errors_and_on_stderr(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    good = write_task(tmp_path)
    missing = tmp_path / "missing.py"
    run = idemlint("check", "--format", "json", good, missing)
    assert run.status == 2
    problem, finding = json.loads(run.stdout)  # sorted by path: missing.py, tasks.py
    assert (finding["code"], finding["level"]) == ("IDM002", "warning")
    assert set(problem) == JSON_KEYS
    assert {key: problem[key] for key in ("path", "line", "column", "end_line", "end_column")} == {
        "path": str(missing), "line": 1, "column": 1, "end_line": 1, "end_column": 1,
    }
    assert (problem["code"], problem["rule"], problem["level"]) == ("E902", "io-error", "error")
    assert problem["message"] == "No such file or directory"
    assert (problem["task"], problem["tasks"], problem["related"], problem["suggestion"]) == ("", [], [], None)
    assert problem["url"].endswith("/README.md#limits") and problem["why"] and problem["fix"]
    assert re.fullmatch("[0-9a-f]{64}", problem["fingerprint"])
    assert run.stderr.splitlines() == [f"{missing}:1:1: E902 No such file or directory"]


def test_review_quotes_the_source_and_says_why_and_how_to_fix(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    path = write_task(tmp_path)
    run = idemlint("check", "--format", "review", path)
    assert run.status == 1
    assert f"{path}:7:5: IDM002 [missing-idempotency-key] in task `tasks.notify_warehouse`" in run.stdout
    assert f"7 |     {UNKEYED_POST}" in run.stdout
    assert "Why:" in run.stdout
    assert "Fix:" in run.stdout
    assert run.stdout.rstrip().endswith("1 finding.")


def test_review_quotes_the_file_as_it_is_now_in_a_long_running_process(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    path = write_task(tmp_path)
    assert f"7 |     {UNKEYED_POST}" in idemlint("check", "--format", "review", path).stdout
    edited = UNKEYED_POST.replace("url, json", "url,  json")
    write_task(tmp_path, edited)
    assert f"7 |     {edited}" in idemlint("check", "--format", "review", path).stdout


def test_review_of_many_findings_counts_them(idemlint: Idemlint) -> None:
    count = len(idemlint("check", IDM002_FIXTURE).lines())
    run = idemlint("check", "--format", "review", IDM002_FIXTURE)
    assert run.stdout.count("Why:") == run.stdout.count("Fix:") == count
    assert run.stdout.rstrip().endswith(f"{count} findings.")


# --- rules and explain ---------------------------------------------------


def test_rules_lists_every_rule(idemlint: Idemlint) -> None:
    run = idemlint("rules")
    assert run.status == 0
    listed = [line.split()[0] for line in run.lines()]
    assert listed == [rule.code for rule in RULES]
    assert "missing-idempotency-key" in run.stdout


def test_rules_json_lists_every_rule_as_data(idemlint: Idemlint) -> None:
    run = idemlint("rules", "--format", "json")
    assert run.status == 0 and run.stderr == ""
    rules = json.loads(run.stdout)
    assert [rule["code"] for rule in rules] == [rule.code for rule in RULES]
    for listed, rule in zip(rules, RULES):
        assert listed == {
            "code": rule.code,
            "name": rule.name,
            "summary": rule.summary,
            "url": rule_url(rule.code),
            "fix_availability": rule.fix_availability or None,
        }
    assert any(r["fix_availability"] for r in rules) and any(r["fix_availability"] is None for r in rules)
    text = idemlint("rules").lines()
    assert [line.split()[:2] for line in text] == [[r["code"], r["name"]] for r in rules]


def test_explain_prints_the_rule_page(idemlint: Idemlint) -> None:
    run = idemlint("explain", "IDM002")
    assert run.status == 0
    assert run.stdout.startswith("# IDM002 missing-idempotency-key\n")
    for heading in ("## What it finds", "## Why is this bad?", "## Example", "## Use instead"):
        assert heading in run.stdout
    assert "docs/catalogue.md" in run.stdout.split("## The catalogue", 1)[1]


def test_explain_accepts_a_lowercase_code(idemlint: Idemlint) -> None:
    assert idemlint("explain", "idm002").stdout == idemlint("explain", "IDM002").stdout


def test_explain_unknown_code_exits_2(idemlint: Idemlint) -> None:
    run = idemlint("explain", "IDM999")
    assert run.status == 2
    assert "unknown rule 'IDM999'" in run.stderr
    assert "Traceback" not in run.output


# --- noqa ----------------------------------------------------------------


def test_without_noqa_the_finding_is_reported(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    assert idemlint("check", write_task(tmp_path)).codes() == ["IDM002"]


@pytest.mark.sweep
@pytest.mark.parametrize(
    "comment",
    ["# noqa", "# NOQA", "# noqa: IDM002", "# noqa:IDM002", "# noqa: IDM001,IDM002", "# noqa: IDM00", "# noqa: IDM"],
)
def test_noqa_suppresses(idemlint: Idemlint, tmp_path: pathlib.Path, comment: str) -> None:
    run = idemlint("check", write_task(tmp_path, f"{UNKEYED_POST}  {comment}"))
    assert (run.status, run.stdout) == (0, "")


@pytest.mark.parametrize("comment", ["# noqa: IDM001", "# noqa: IDM0020", "# noqa: idm002", "# noqa: E501"])
def test_noqa_for_other_codes_does_not_suppress(
    idemlint: Idemlint, tmp_path: pathlib.Path, comment: str
) -> None:
    run = idemlint("check", write_task(tmp_path, f"{UNKEYED_POST}  {comment}"))
    assert run.status == 1
    assert run.codes() == ["IDM002"]


MULTILINE_CALL = """requests.post(
        url,
        json={{"order": order_id}},
    ){last}"""


def test_noqa_on_the_reported_first_line_of_a_multiline_call_suppresses(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    call = MULTILINE_CALL.format(last="").replace("requests.post(", "requests.post(  # noqa: IDM002")
    assert idemlint("check", write_task(tmp_path, call)).stdout == ""


def test_noqa_on_the_last_line_of_a_bracketed_multiline_call_does_not_suppress_as_in_flake8(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    # flake8 joins only physical lines without an NL token between them
    # (a backslash continuation or a multi-line string); a bracketed call is
    # several lines for flake8's noqa, and the CLI must agree with flake8.
    path = write_task(tmp_path, MULTILINE_CALL.format(last="  # noqa: IDM002"))
    assert [line.split(": ")[0] for line in idemlint("check", path).lines()] == [f"{path}:7:5"]


def test_noqa_on_the_last_line_of_a_backslash_continuation_suppresses(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    call = 'requests.post(url, \\\n        json={"order": order_id})  # noqa: IDM002'
    path = write_task(tmp_path, call)
    assert idemlint("check", path).stdout == ""
    assert idemlint("check", write_task(tmp_path, call.replace("  # noqa: IDM002", ""))).codes() == ["IDM002"]


def test_noqa_after_a_multiline_string_argument_suppresses(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    call = 'requests.post(url, data="""\n{order_id}\n""")  # noqa: IDM002'
    assert idemlint("check", write_task(tmp_path, call)).stdout == ""


def test_flake8_noqa_on_its_own_line_skips_the_file(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    path = write_task(tmp_path)
    path.write_text("# flake8: noqa\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    run = idemlint("check", path)
    assert (run.status, run.stdout) == (0, "")


def test_flake8_noqa_after_code_does_not_skip_the_file(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    path = write_task(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace("import requests", "import requests  # flake8: noqa"))
    assert idemlint("check", path).codes() == ["IDM002"]


def test_noqa_lines_are_counted_like_python_despite_form_feeds(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    # str.splitlines() treats \x0c and \u2028 as line breaks; Python does not.
    path = write_task(tmp_path, f"{UNKEYED_POST}  # noqa: IDM002")
    text = path.read_text(encoding="utf-8").replace("import requests\n", 'import requests\n\x0c\nX = "\u2028"\n')
    path.write_text(text, encoding="utf-8")
    assert idemlint("check", path).stdout == ""
    path.write_text(text.replace("  # noqa: IDM002", ""), encoding="utf-8")
    assert idemlint("check", path).lines()[0].startswith(f"{path}:9:5: IDM002")


def test_noqa_works_in_a_crlf_file(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "tasks.py"
    source = TASK_MODULE.format(call=MULTILINE_CALL.format(last=""))
    source = source.replace("requests.post(", "requests.post(  # noqa: IDM002")
    path.write_bytes(source.replace("\n", "\r\n").encode())
    assert idemlint("check", path).stdout == ""


# --- bad input: reported as one line, the other files still checked -------


SYNTAX_ERROR = "from celery import shared_task\n\n\n@shared_task\ndef f(:\n    pass\n"
PYTHON2 = 'from celery import shared_task\n\n\n@shared_task\ndef f():\n    print "x"\n'
UNDECODABLE = b"\xff\xfe\x00 from celery import shared_task\n\n@shared_task\ndef f(): pass\n"


def make_syntax_error(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "broken.py"
    path.write_text(SYNTAX_ERROR, encoding="utf-8")
    return path


def make_python2(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "legacy.py"
    path.write_text(PYTHON2, encoding="utf-8")
    return path


def make_undecodable(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "binary.py"
    path.write_bytes(UNDECODABLE)
    return path


def make_bad_encoding_cookie(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "cookie.py"
    path.write_bytes(b"# -*- coding: klingon -*-\n" + SYNTAX_ERROR.encode())
    return path


def make_broken_symlink(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "dangling.py"
    path.symlink_to(tmp_path / "nowhere.py")
    return path


BAD_INPUTS = {
    "syntax-error": (make_syntax_error, "E999"),
    "python2-print": (make_python2, "E999"),
    "undecodable-bytes": (make_undecodable, "E902"),
    "unknown-encoding-cookie": (make_bad_encoding_cookie, "E902"),
    "broken-symlink": (make_broken_symlink, "E902"),
}


def assert_reported_as_one_line(run: Run, bad: pathlib.Path, code: str) -> None:
    assert "Traceback" not in run.output
    about_bad = [line for line in run.output.splitlines() if str(bad) in line]
    assert len(about_bad) == 1, run.output
    assert re.match(rf"{re.escape(str(bad))}:\d+:\d+: {code} \S", about_bad[0]), about_bad[0]


@pytest.mark.parametrize("kind", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_and_the_good_file_is_still_checked(
    idemlint: Idemlint, tmp_path: pathlib.Path, kind: str
) -> None:
    make, code = BAD_INPUTS[kind]
    good = write_task(tmp_path, name="good.py")
    bad = make(tmp_path)
    run = idemlint("check", good, bad)
    assert run.status == 2
    assert_reported_as_one_line(run, bad, code)
    assert f"{good}:7:5: IDM002 " in run.stdout


@pytest.mark.parametrize("kind", sorted(BAD_INPUTS))
def test_bad_input_found_in_a_directory_walk_is_reported_too(
    idemlint: Idemlint, tmp_path: pathlib.Path, kind: str
) -> None:
    make, code = BAD_INPUTS[kind]
    good = write_task(tmp_path, name="good.py")
    bad = make(tmp_path)
    run = idemlint("check", tmp_path)
    assert run.status == 2
    assert_reported_as_one_line(run, bad, code)
    assert f"{good}:7:5: IDM002 " in run.stdout


def test_syntax_error_is_reported_where_python_reports_it(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    bad = make_syntax_error(tmp_path)  # `def f(:` is line 5, the `:` column 7
    assert idemlint("check", bad).lines() == [
        f"{bad}:5:7: E999 SyntaxError: invalid syntax (expected one of ), *, **, NAME)"
    ]


def test_python2_print_is_reported_on_its_line(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    # libcst's words, the same on every Python; the column is where the
    # running CPython stopped, which differs between versions.
    bad = make_python2(tmp_path)
    (line,) = idemlint("check", bad).lines()
    assert line.startswith(f"{bad}:6:")
    assert line.endswith(" E999 SyntaxError: invalid syntax")


def test_json_format_reports_a_syntax_error_as_an_error_and_on_stderr(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    good = write_task(tmp_path, name="good.py")
    bad = make_syntax_error(tmp_path)
    run = idemlint("check", "--format", "json", good, bad)
    assert run.status == 2
    entries = [(f["path"], f["line"], f["column"], f["code"], f["level"]) for f in json.loads(run.stdout)]
    assert entries == [(str(bad), 5, 7, "E999", "error"), (str(good), 7, 5, "IDM002", "warning")]
    assert_reported_as_one_line(Run(run.status, "", run.stderr), bad, "E999")


def test_a_directory_named_like_a_python_file_is_searched_not_opened(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    # Like flake8 and ruff: a directory is a directory, whatever its name.
    good = write_task(tmp_path, name="good.py")
    package = tmp_path / "x.py"
    package.mkdir()
    inner = write_task(package, name="inner.py")
    for run in (idemlint("check", good, package), idemlint("check", tmp_path)):
        assert "Traceback" not in run.output
        assert run.status == 1
        assert [line.split(": ")[0] for line in run.lines()] == [f"{good}:7:5", f"{inner}:7:5"]


def test_an_empty_directory_named_like_a_python_file_is_no_problem(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    good = write_task(tmp_path, name="good.py")
    (tmp_path / "x.py").mkdir()
    run = idemlint("check", good, tmp_path / "x.py")
    assert (run.status, run.stderr) == (1, "")
    assert run.codes() == ["IDM002"]


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can read a chmod 000 file"
)
def test_unreadable_file_is_one_line_and_the_good_file_is_still_checked(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    good = write_task(tmp_path, name="good.py")
    bad = write_task(tmp_path, name="secret.py")
    bad.chmod(0)
    try:
        run = idemlint("check", good, bad)
    finally:
        bad.chmod(0o644)
    assert run.status == 2
    assert_reported_as_one_line(run, bad, "E902")
    assert f"{good}:7:5: IDM002 " in run.stdout


def test_a_path_given_twice_is_reported_once(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    good = write_task(tmp_path, name="good.py")
    run = idemlint("check", good, good, tmp_path, os.path.join(str(tmp_path), ".", "good.py"))
    assert run.status == 1
    assert run.codes() == ["IDM002"]


def test_a_file_linked_inside_the_walked_tree_is_checked_once(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    (tmp_path / "real").mkdir()
    good = write_task(tmp_path / "real", name="good.py")
    (tmp_path / "alias.py").symlink_to(good)
    (tmp_path / "linked").symlink_to(tmp_path / "real", target_is_directory=True)
    run = idemlint("check", tmp_path, tmp_path / "linked")
    assert run.codes() == ["IDM002"]


def test_a_bad_path_given_twice_is_still_exit_2(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    bad = make_syntax_error(tmp_path)
    run = idemlint("check", bad, bad)
    assert run.status == 2
    assert "Traceback" not in run.output


# --- directory walks -------------------------------------------------------


def test_virtual_environments_and_caches_are_skipped(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    good = write_task(tmp_path, name="good.py")
    for directory in (".venv", "venv", ".tox", "build", "node_modules", "pkg.egg-info", "myenv"):
        (tmp_path / directory).mkdir()
        write_task(tmp_path / directory, name="vendored.py")
    (tmp_path / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    assert [line.split(": ")[0] for line in idemlint("check", tmp_path).lines()] == [f"{good}:7:5"]


def test_a_build_or_dist_directory_that_is_a_package_is_source_code(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    # pkg/build/ and pkg/dist/ are packages (a "build" feature); build/lib/pkg/
    # is setuptools output, a package only below its top; dist/ holds no
    # __init__.py at all.
    package = tmp_path / "pkg"
    for directory in (package, package / "build", package / "dist", tmp_path / "build" / "lib" / "pkg"):
        directory.mkdir(parents=True)
        (directory / "__init__.py").write_text("")
    (tmp_path / "dist").mkdir()
    kept = [write_task(package / "build"), write_task(package / "dist")]
    write_task(tmp_path / "build" / "lib" / "pkg")
    write_task(tmp_path / "dist")
    assert sorted(line.split(": ")[0] for line in idemlint("check", tmp_path).lines()) == sorted(
        f"{path}:7:5" for path in kept
    )
    # What the user excludes stays excluded, package or not.
    excluded = idemlint("check", "--exclude", "build", tmp_path)
    assert [line.split(": ")[0] for line in excluded.lines()] == [f"{kept[1]}:7:5"]


def test_a_file_named_explicitly_is_checked_even_inside_a_skipped_directory(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    (tmp_path / "build").mkdir()
    path = write_task(tmp_path / "build")
    assert idemlint("check", path).codes() == ["IDM002"]


def test_exclude_skips_files_and_directories(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    good = write_task(tmp_path, name="good.py")
    write_task(tmp_path, name="test_tasks.py")
    (tmp_path / "migrations").mkdir()
    write_task(tmp_path / "migrations", name="0001.py")
    run = idemlint("check", "--exclude", "test_*.py", "--exclude", "migrations", tmp_path)
    assert [line.split(": ")[0] for line in run.lines()] == [f"{good}:7:5"]


def test_task_decorator_option_makes_a_custom_decorator_a_task(
    idemlint: Idemlint, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "tasks.py"
    path.write_text(
        TASK_MODULE.format(call=UNKEYED_POST)
        .replace("from celery import shared_task", "from myproject.tasks import instrumented_task")
        .replace("@shared_task", "@instrumented_task"),
        encoding="utf-8",
    )
    assert idemlint("check", path).stdout == ""
    assert idemlint("check", "--task-decorator", "instrumented_task", path).codes() == ["IDM002"]


# --- the installed console script and python -m idemlint ---------------------


def console_script() -> str:
    script = os.path.join(os.path.dirname(sys.executable), "idemlint")
    assert os.access(script, os.X_OK), f"{script} is not installed"
    return script


def run_process(argv: List[str], cwd: pathlib.Path, timeout: float = 60) -> subprocess.CompletedProcess:
    # cwd outside the repository: `python -m` must import the installed package.
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("how", ["console-script", "python-m"])
def test_installed_entry_points_exit_1_and_print_findings(how: str, tmp_path: pathlib.Path) -> None:
    good = write_task(tmp_path, name="good.py")
    command = [console_script()] if how == "console-script" else [sys.executable, "-m", "idemlint"]
    result = run_process([*command, "check", str(good)], cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith(f"{good}:7:5: IDM002 `requests.post()` in task `notify_warehouse`")
    assert result.stderr == ""


@pytest.mark.parametrize("how", ["console-script", "python-m"])
def test_installed_entry_points_exit_0_on_clean_code(how: str, tmp_path: pathlib.Path) -> None:
    command = [console_script()] if how == "console-script" else [sys.executable, "-m", "idemlint"]
    result = run_process([*command, "check", str(CLEAN)], cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.parametrize("how", ["console-script", "python-m"])
def test_installed_entry_points_exit_2_on_usage_errors(how: str, tmp_path: pathlib.Path) -> None:
    command = [console_script()] if how == "console-script" else [sys.executable, "-m", "idemlint"]
    result = run_process([*command, "check", "--format", "nope", str(CLEAN)], cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_console_script_matches_the_in_process_cli(idemlint: Idemlint, tmp_path: pathlib.Path) -> None:
    result = run_process([console_script(), "check", *map(str, CELERY_FIXTURES)], cwd=tmp_path)
    run = idemlint("check", *CELERY_FIXTURES)
    assert (result.returncode, result.stdout) == (run.status, run.stdout)


def test_console_script_does_not_hang_on_a_fifo(tmp_path: pathlib.Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    good = write_task(tmp_path, name="good.py")
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    for paths in ([str(good), str(fifo)], [str(tmp_path)]):
        result = run_process([console_script(), "check", *paths], cwd=tmp_path, timeout=30)
        assert result.returncode == 2
        run = Run(result.returncode, result.stdout, result.stderr)
        assert_reported_as_one_line(run, fifo, "E902")
        assert f"{good}:7:5: IDM002 " in result.stdout
