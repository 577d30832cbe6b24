"""Fixes: the edits, applying them to files, and the front ends that do.

The first fix is IDM800's (an unused ``# noqa``, safe): before/after pairs
with the exact text expected, the fixed file re-checked with nothing left,
``--fix-diff`` writing nothing, and files idemlint must leave alone (read-only,
changed during the run) left untouched with one line saying why.  The CLI
runs through its entry point in a subprocess, as a user runs it.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import pathlib
import stat
import subprocess
import sys
from typing import List, Tuple

import jsonschema
import pytest

from conftest import RunCli
from test_formats import RDJSON_SCHEMA, SARIF_SCHEMA

from idemlint.fixes import SAFE, Edit, Fix, FixConflict, apply, plan, write, write_atomically

HEAD = "from celery import shared_task\n\n\n@shared_task\ndef task(order_id):\n"


def idemlint(cwd: pathlib.Path, *argv: str) -> Tuple[int, str, str]:
    run = subprocess.run(
        [sys.executable, "-m", "idemlint", *argv], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    return run.returncode, run.stdout, run.stderr


# -- edits ------------------------------------------------------------------


@pytest.mark.parametrize(
    "edits, expected",
    [
        ([Edit(1, 5, 1, 8, "xyz")], "abcdxyzh\nijkl\n"),
        ([Edit(2, 1, 2, 1, ">")], "abcdefgh\n>ijkl\n"),
        ([Edit(1, 9, 2, 1, " ")], "abcdefgh ijkl\n"),
        ([Edit(2, 1, 2, 3, ""), Edit(1, 1, 1, 2, "A")], "Abcdefgh\nkl\n"),
    ],
    ids=["replace", "insert", "across-lines", "two-edits-any-order"],
)
def test_edits_apply_where_they_say(edits: List[Edit], expected: str) -> None:
    assert apply("abcdefgh\nijkl\n", edits) == expected


@pytest.mark.parametrize(
    "edits",
    [
        [Edit(1, 2, 1, 5, "x"), Edit(1, 4, 1, 6, "y")],
        [Edit(5, 1, 5, 2, "x")],
        [Edit(1, 40, 1, 41, "x")],
        [Edit(1, 5, 1, 2, "x")],
    ],
    ids=["overlapping", "past-the-last-line", "past-the-line-end", "ends-before-it-starts"],
)
def test_edits_that_do_not_fit_are_refused(edits: List[Edit]) -> None:
    with pytest.raises(FixConflict):
        apply("abcdefgh\nijkl\n", edits)


def test_of_two_overlapping_fixes_one_is_made_and_the_other_left_for_the_next_round(
    tmp_path: pathlib.Path,
) -> None:
    path = tmp_path / "f.py"
    path.write_text("abcdefgh\n", "utf-8")
    first = Fix("first", SAFE, (Edit(1, 2, 1, 5, "X"),))
    second = Fix("second", SAFE, (Edit(1, 4, 1, 6, "Y"),))
    planned = plan(str(path), [second, first])
    assert (planned.after, planned.applied) == ("aXefgh\n", 1)


def test_a_file_changed_since_it_was_read_is_not_written(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "f.py"
    path.write_text("x = 1  # noqa: IDM002\n", "utf-8")
    planned = plan(str(path), [Fix("t", SAFE, (Edit(1, 6, 1, 22, ""),))])
    path.write_text("x = 2  # noqa: IDM002\n", "utf-8")
    why = write(planned)
    assert why is not None and "changed while it was being checked" in why
    assert path.read_text("utf-8") == "x = 2  # noqa: IDM002\n"


def test_writing_keeps_the_mode_and_leaves_no_temporary_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "f.py"
    path.write_text("a\n", "utf-8")
    path.chmod(0o640)
    write_atomically(str(path), "b\n", b"a\n")
    assert path.read_text("utf-8") == "b\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.py"]


# -- IDM800: an unused `# noqa` ---------------------------------------------


@pytest.mark.sweep
@pytest.mark.parametrize(
    "before, after",
    [
        ("    print(order_id)  # noqa: IDM002\n", "    print(order_id)\n"),
        ("    print(order_id)  # noqa: IDM002, E501\n", "    print(order_id)  # noqa: E501\n"),
        ("    print(order_id)  # noqa: E501,IDM013  # why\n", "    print(order_id)  # noqa: E501  # why\n"),
        ("    print(order_id)  # noqa: IDM002  # a reason\n", "    print(order_id)  # a reason\n"),
        ("    print(order_id)  # noqa:IDM002,IDM013\n", "    print(order_id)\n"),
        ("    print(order_id)\t# noqa: IDM002\r\n", "    print(order_id)\r\n"),
        ("    print(order_id)  # noqa: IDM002 because reasons\n", "    print(order_id)  # because reasons\n"),
    ],
    ids=["whole-comment", "other-codes-kept", "text-after-kept", "reason-kept", "every-code", "crlf", "reason-text"],
)
def test_an_unused_noqa_is_fixed_exactly(tmp_path: pathlib.Path, before: str, after: str) -> None:
    path = tmp_path / "tasks.py"
    path.write_bytes((HEAD + before).encode("utf-8"))
    status, _, err = idemlint(tmp_path, "check", "--no-cache", "--show-unused-noqa", "--fix", "tasks.py")
    assert path.read_bytes().decode("utf-8") == HEAD + after
    assert (status, err) == (0, "Fixed 1 finding.\n")
    ast.parse(path.read_text("utf-8"))
    assert idemlint(tmp_path, "check", "--no-cache", "--show-unused-noqa", "tasks.py")[0] == 0


def test_a_used_noqa_is_left_as_it_is(tmp_path: pathlib.Path) -> None:
    body = "    import requests\n    requests.post('https://x.example/o', json={})  # noqa: IDM002\n"
    path = tmp_path / "tasks.py"
    path.write_text(HEAD + body, "utf-8")
    status, out, err = idemlint(tmp_path, "check", "--no-cache", "--show-unused-noqa", "--fix", "tasks.py")
    assert (status, out, err) == (0, "", "")
    assert path.read_text("utf-8") == HEAD + body


def test_fix_diff_prints_the_change_and_writes_nothing(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "tasks.py"
    path.write_text(HEAD + "    print(order_id)  # noqa: IDM002\n", "utf-8")
    status, out, err = idemlint(tmp_path, "check", "--no-cache", "--show-unused-noqa", "--fix-diff", "tasks.py")
    assert status == 1
    assert out.splitlines()[:2] == ["--- a/tasks.py", "+++ b/tasks.py"]
    assert "-    print(order_id)  # noqa: IDM002" in out.splitlines()
    assert "+    print(order_id)" in out.splitlines()
    assert err == "Would fix 1 finding.\n"
    assert path.read_text("utf-8") == HEAD + "    print(order_id)  # noqa: IDM002\n"


def test_fix_diff_exits_0_with_exit_zero_as_ruffs_diff_does(tmp_path: pathlib.Path) -> None:
    (tmp_path / "tasks.py").write_text(HEAD + "    print(order_id)  # noqa: IDM002\n", "utf-8")
    argv = ("check", "--no-cache", "--show-unused-noqa", "--fix-diff", "--exit-zero", "tasks.py")
    status, out, err = idemlint(tmp_path, *argv)
    assert status == 0 and out.startswith("--- a/tasks.py") and err == "Would fix 1 finding.\n"


def test_exit_non_zero_on_fix(tmp_path: pathlib.Path) -> None:
    (tmp_path / "tasks.py").write_text(HEAD + "    print(order_id)  # noqa: IDM002\n", "utf-8")
    argv = ("check", "--no-cache", "--show-unused-noqa", "--fix", "--exit-non-zero-on-fix", "tasks.py")
    assert idemlint(tmp_path, *argv)[0] == 1
    assert idemlint(tmp_path, *argv)[0] == 0  # nothing left to fix


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_a_read_only_file_is_left_untouched_with_one_line(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "tasks.py"
    path.write_text(HEAD + "    print(order_id)  # noqa: IDM002\n", "utf-8")
    tmp_path.chmod(0o555)
    path.chmod(0o444)
    try:
        status, _, err = idemlint(tmp_path, "check", "--no-cache", "--show-unused-noqa", "--fix", "tasks.py")
    finally:
        tmp_path.chmod(0o755)
    assert status == 1
    assert err.count("\n") == 1 and err.startswith("idemlint: tasks.py: not fixed:")
    assert path.read_text("utf-8") == HEAD + "    print(order_id)  # noqa: IDM002\n"


def test_a_file_that_is_not_utf8_is_left_untouched(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "tasks.py"
    raw = ("# -*- coding: latin-1 -*-\n" + HEAD + "    print('\xe9t\xe9')  # noqa: IDM002\n").encode("latin-1")
    path.write_bytes(raw)
    status, _, err = idemlint(tmp_path, "check", "--no-cache", "--show-unused-noqa", "--fix", "tasks.py")
    assert status == 1 and "not fixed" in err
    assert path.read_bytes() == raw


def test_fix_and_fix_diff_together_are_a_usage_error(run_cli: RunCli, tmp_path: pathlib.Path) -> None:
    status, _, err = run_cli("check", "--fix", "--fix-diff", str(tmp_path))
    assert status == 2 and "cannot be used together" in err


# -- the machine formats carry the fix --------------------------------------


def test_json_sarif_and_rdjson_carry_the_fix(tmp_path: pathlib.Path) -> None:
    (tmp_path / "tasks.py").write_text(HEAD + "    print('\u00e9', order_id)  # noqa: IDM002\n", "utf-8")
    argv = ("check", "--no-cache", "--show-unused-noqa", "--exit-zero", "tasks.py")
    (finding,) = json.loads(idemlint(tmp_path, *argv, "--format", "json")[1])
    # The comment and the blanks before it: columns 25 to 41, in characters.
    edit = {"line": 6, "column": 25, "end_line": 6, "end_column": 41, "content": ""}
    assert finding["suggestion"] == {"title": "Remove the unused `# noqa`", "applicability": "safe", "edits": [edit]}
    log = json.loads(idemlint(tmp_path, *argv, "--format", "sarif")[1])
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    (result,) = log["runs"][0]["results"]
    (replacement,) = result["fixes"][0]["artifactChanges"][0]["replacements"]
    assert replacement == {
        "deletedRegion": {"startLine": 6, "startColumn": 25, "endLine": 6, "endColumn": 41},
        "insertedContent": {"text": ""},
    }
    document = json.loads(idemlint(tmp_path, *argv, "--format", "rdjson")[1])
    jsonschema.validate(document, RDJSON_SCHEMA)
    (diagnostic,) = document["diagnostics"]
    # reviewdog counts UTF-8 bytes: the é before the comment is two.
    assert diagnostic["suggestions"] == [
        {"range": {"start": {"line": 6, "column": 26}, "end": {"line": 6, "column": 42}}, "text": ""}
    ]


def test_the_review_format_shows_the_change(tmp_path: pathlib.Path) -> None:
    (tmp_path / "tasks.py").write_text(HEAD + "    print(order_id)  # noqa: IDM002\n", "utf-8")
    out = idemlint(tmp_path, "check", "--no-cache", "--show-unused-noqa", "--format", "review", "tasks.py")[1]
    assert "  Suggested change: Remove the unused `# noqa`\n" in out
    assert "      -     print(order_id)  # noqa: IDM002\n      +     print(order_id)\n" in out


# -- rule fixes: before/after pairs in tests/fixes/ -------------------------

PAIRS = pathlib.Path(__file__).parent / "fixes"


@pytest.mark.sweep
@pytest.mark.parametrize("name", sorted(p.stem for p in PAIRS.glob("*.py") if not p.stem.endswith(".fixed")))
def test_the_unsafe_fixes_turn_each_file_into_its_pair(tmp_path: pathlib.Path, name: str) -> None:
    path = tmp_path / f"{name}.py"
    shutil.copy(PAIRS / f"{name}.py", path)
    code = name.split("_", 1)[0]  # each pair is about one rule's fix
    status, out, err = idemlint(tmp_path, "check", "--no-cache", "--select", code, "--fix", "--unsafe-fixes", path.name)
    expected = (PAIRS / f"{name}.fixed.py").read_text("utf-8")
    assert path.read_text("utf-8") == expected
    ast.parse(expected)
    assert err.startswith("Fixed ")
    # What is left is what no fix was offered for, and the same when checked again.
    again = idemlint(tmp_path, "check", "--no-cache", "--select", code, path.name)
    assert (again[0], again[1]) == (status, out)


def test_safe_fixes_alone_leave_unsafe_ones_unmade(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "settings.py"
    shutil.copy(PAIRS / "IDM009_settings.py", path)
    status, _, err = idemlint(tmp_path, "check", "--no-cache", "--fix", path.name)
    assert (status, err) == (1, "")
    assert path.read_text("utf-8") == (PAIRS / "IDM009_settings.py").read_text("utf-8")


def test_a_cached_finding_keeps_its_fix(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from idemlint import engine, lint_paths
    from idemlint.cache import Cache
    from idemlint.settings import DEFAULT_SETTINGS

    path = str(tmp_path / "settings.py")
    shutil.copy(PAIRS / "IDM009_settings.py", path)
    cold = lint_paths([path], jobs=1, cache=Cache(str(tmp_path / "cache"), DEFAULT_SETTINGS))
    monkeypatch.setattr(engine, "_analyse_chunks", None)  # the warm run must come from the cache alone
    warm = lint_paths([path], jobs=1, cache=Cache(str(tmp_path / "cache"), DEFAULT_SETTINGS))
    assert [f.suggestion for f in warm.findings] == [f.suggestion for f in cold.findings]
    assert sum(f.suggestion is not None for f in warm.findings) == 5
    assert {f.suggestion.applicability for f in warm.findings if f.suggestion is not None} == {"unsafe"}
    assert any("\n" in edit.content for f in warm.findings if f.suggestion for edit in f.suggestion.edits)


def test_a_symbolic_link_is_not_replaced(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "real.py"
    target.write_text("a\n", "utf-8")
    link = tmp_path / "link.py"
    link.symlink_to(target)
    with pytest.raises(OSError, match="symbolic link"):
        write_atomically(str(link), "b\n", b"a\n")
    assert link.is_symlink() and target.read_text("utf-8") == "a\n"


def test_a_byte_order_mark_is_kept_and_counted_out(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "tasks.py"
    rest = (HEAD + "    return order_id\n").encode()
    path.write_bytes(b"\xef\xbb\xbfimport os  # noqa: IDM002, E501\n" + rest)
    assert idemlint(tmp_path, "check", "--no-cache", "--show-unused-noqa", "--fix", "tasks.py")[0] == 0
    assert path.read_bytes() == b"\xef\xbb\xbfimport os  # noqa: E501\n" + rest


@pytest.mark.parametrize(
    "body",
    [
        "    print(order_id)  # noqa: IDM003 # noqa\n",
        "    print(order_id)  # noqa: IDM003  # noqa: IDM002\n",
    ],
    ids=["a-blanket-noqa-follows", "another-noqa-follows"],
)
def test_no_fix_when_another_noqa_would_take_over(tmp_path: pathlib.Path, body: str) -> None:
    path = tmp_path / "tasks.py"
    path.write_text(HEAD + body, "utf-8")
    status, out, _ = idemlint(tmp_path, "check", "--no-cache", "--show-unused-noqa", "--fix", "tasks.py")
    assert status == 1 and "IDM800" in out
    assert path.read_text("utf-8") == HEAD + body


def test_lone_carriage_returns_are_not_fixed(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "tasks.py"
    raw = (HEAD + "    x = 1\r    y = 2  # noqa: IDM002\r    return x\r").encode()
    path.write_bytes(raw)
    status, _, err = idemlint(tmp_path, "check", "--no-cache", "--show-unused-noqa", "--fix", "tasks.py")
    assert status == 1 and "lone carriage return" in err
    assert path.read_bytes() == raw


@pytest.mark.parametrize(
    "decorator",
    [
        "@shared_task(acks_late=(True))",
        "@shared_task(acks_late=True, reject_on_worker_lost=None)",
    ],
    ids=["parenthesised-value", "reject-written-as-none"],
)
def test_idm009_offers_no_fix_it_cannot_make_right(tmp_path: pathlib.Path, decorator: str) -> None:
    source = f"from celery import shared_task\n\n\n{decorator}\ndef charge(order_id):\n    return order_id\n"
    path = tmp_path / "tasks.py"
    path.write_text(source, "utf-8")
    (finding,) = json.loads(idemlint(tmp_path, "check", "--no-cache", "--format", "json", "tasks.py")[1])
    assert (finding["code"], finding["suggestion"]) == ("IDM009", None)


@pytest.mark.parametrize(
    "arguments, fixed",
    [
        (
            "acks_late=True\n    ,\n    bind=True,\n",
            "acks_late=True, reject_on_worker_lost=True\n    ,\n    bind=True,\n",
        ),
        (
            "acks_late=True,\n             bind=True",
            "acks_late=True, reject_on_worker_lost=True,\n             bind=True",
        ),
    ],
    ids=["leading-commas", "first-argument-on-the-call-line"],
)
def test_idm009_keeps_the_layout_it_cannot_extend(tmp_path: pathlib.Path, arguments: str, fixed: str) -> None:
    head = "from celery import shared_task\n\n\n@shared_task("
    tail = ")\ndef charge(order_id):\n    return order_id\n"
    path = tmp_path / "tasks.py"
    path.write_text(head + arguments + tail, "utf-8")
    assert idemlint(tmp_path, "check", "--no-cache", "--unsafe-fixes", "--fix", "tasks.py")[0] == 0
    assert path.read_text("utf-8") == head + fixed + tail


def test_fix_with_a_diff_on_stdin_is_a_usage_error(run_cli: RunCli, tmp_path: pathlib.Path) -> None:
    status, _, err = run_cli("check", "--fix", "--diff", "-", str(tmp_path))
    assert status == 2 and "--diff -" in err


def test_a_file_changed_after_it_was_analysed_is_not_planned(tmp_path: pathlib.Path) -> None:
    from idemlint.cache import content_hash

    path = tmp_path / "f.py"
    path.write_text("x = 1  # noqa: IDM002\n", "utf-8")
    fix = Fix("t", SAFE, (Edit(1, 6, 1, 22, ""),), content_hash(b"x = 1  # noqa: IDM002\n"))
    assert plan(str(path), [fix]).after == "x = 1\n"
    path.write_text("# a line added above\nx = 1  # noqa: IDM002\n", "utf-8")
    planned = plan(str(path), [fix])
    assert planned.applied == 0 and planned.problem == "not fixed: it changed after it was analysed"


LOCKS = "import redis\nfrom celery import shared_task\nfrom django.db import transaction\n\nr = redis.Redis()\n\n\n"


@pytest.mark.sweep
@pytest.mark.parametrize(
    "source, code",
    [
        ("@shared_task\ndef t(k):\n    r.set(k, '1', nx=True, ex=600);\n    work(k)\n", "IDM012"),
        ("@shared_task\ndef t(k):\n    (r.set(k, '1', nx=True, ex=600))\n    work(k)\n", "IDM012"),
        ("@shared_task\ndef t(k):\n    try:\n        r.set(k, '1', nx=True, ex=600)\n        work(k)\n    finally:\n        r.delete(k)\n", "IDM012"),
        ("@shared_task\ndef t(ks):\n    for k in ks:\n        r.set(k, '1', nx=True, ex=600)\n        work(k)\n", "IDM012"),
        ("@shared_task(time_limit=300)\ndef t(k):\n    r.set(k, '1', nx=True, px=None)\n", "IDM004-px"),
        ("@shared_task(time_limit=300)\ndef t(k):\n    r.set(k, '1', nx=True, exat=None)\n", "IDM004"),
        ("@shared_task(time_limit=300)\ndef t(k):\n    if r.setnx(k, '1') == 0:\n        return\n", "IDM004"),
        ("@shared_task(time_limit=300)\ndef t(k):\n    r.set(k, '1', nx=True, keepttl=True)\n", "IDM004"),
        ("def take(k):\n    r.set(k, '1', nx=True)\n\n\n@shared_task(time_limit=300)\ndef t(k):\n    take(k)\n", "IDM004"),
    ],
    ids=[
        "idm012-semicolon", "idm012-brackets", "idm012-finally", "idm012-loop", "idm004-px-in-milliseconds",
        "idm004-absolute", "idm004-setnx-compared", "idm004-keepttl", "idm004-in-a-helper",
    ],
)
def test_lock_fixes_are_not_offered_where_they_would_be_wrong(tmp_path: pathlib.Path, source: str, code: str) -> None:
    (tmp_path / "tasks.py").write_text(LOCKS + source + "\n\ndef work(k):\n    return k\n", "utf-8")
    findings = json.loads(idemlint(tmp_path, "check", "--no-cache", "--format", "json", "tasks.py")[1])
    suggested = {f["code"]: f["suggestion"] for f in findings if f["code"] == code.split("-")[0]}
    assert suggested, findings
    if code == "IDM004-px":  # the fix is made in the keyword's own unit
        (edit,) = suggested["IDM004"]["edits"]
        assert edit["content"] == "300000"
    else:
        assert set(suggested.values()) == {None}


MAIL = "from celery import shared_task\nfrom django.core.mail import send_mail\nfrom django.db import transaction\n\n\n"


@pytest.mark.parametrize(
    "body",
    [
        "    with transaction.atomic():\n        send_mail('s', 'b', 'f', [await fetch(order_id)])\n",
        "    with transaction.atomic('other'):\n        send_mail('s', 'b', 'f', [order_id])\n",
        "    with transaction.atomic(), open('f') as fh:\n        send_mail('s', fh.read(), 'f', [order_id])\n",
        "    transaction = order_id\n    with atomic():\n        send_mail('s', 'b', 'f', [order_id])\n",
        "    with transaction.atomic():\n        with transaction.atomic():\n            send_mail('s', 'b', 'f', [order_id])\n        order_id = 0\n",
    ],
    ids=["await", "another-database", "another-with-item", "transaction-shadowed", "nested-atomic"],
)
def test_on_commit_is_not_offered_where_the_lambda_would_differ(tmp_path: pathlib.Path, body: str) -> None:
    source = MAIL + "from django.db.transaction import atomic\n\n\n@shared_task\nasync def t(order_id):\n" + body
    (tmp_path / "tasks.py").write_text(source, "utf-8")
    findings = json.loads(idemlint(tmp_path, "check", "--no-cache", "--format", "json", "tasks.py")[1])
    idm010 = [f for f in findings if f["code"] == "IDM010"]
    assert idm010 and all(f["suggestion"] is None for f in idm010), findings
