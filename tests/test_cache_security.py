"""The cache is untrusted input: a repository crafted to attack its linter
cannot make idemlint write or delete outside its own cache, hide or forge
findings, read any other file, crash or exhaust memory through it.

Each attack is a repository in ``tmp_path``; files outside it must keep their
bytes and mtimes.  The user's secret lives in ``$XDG_CACHE_HOME`` (a
temporary directory for the whole suite, see conftest.py); an attacker's is
another directory, as an attacker's machine would have.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap
from typing import Callable, Dict, List, Tuple

import pytest

from idemlint import cache as cache_module
from idemlint import engine
from idemlint.cache import (
    DIRECTORY_NAME,
    MAX_ENTRY_BYTES,
    MAX_SCREENS_BYTES,
    Cache,
    Invalid,
    decode_variants,
)
from idemlint.codes import RULE_CODES
from idemlint.settings import DEFAULT_SETTINGS
from conftest import RunCli

SHOP = {
    "shop/__init__.py": "",
    "shop/billing.py": """
        import requests

        def capture(order_id):
            requests.post("https://pay.example/capture", json={"order": order_id})
        """,
    "shop/tasks.py": """
        from celery import shared_task
        from shop.billing import capture

        @shared_task
        def charge(order_id):
            capture(order_id)
        """,
}
FINDING = "shop/billing.py:5:5: IDM002"

Snapshot = Dict[str, Tuple[bytes, int]]


def write(root: pathlib.Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))


def repository(tmp_path: pathlib.Path) -> pathlib.Path:
    repo = tmp_path / "repo"
    write(repo, SHOP)
    (repo / "pyproject.toml").write_text("[tool.idemlint]\n")
    return repo


def outside_directory(tmp_path: pathlib.Path, count: int = 70) -> pathlib.Path:
    """A directory of the user's that looks like cache entries to a careless pruner."""
    outside = tmp_path / "precious"
    outside.mkdir()
    for index in range(count):
        path = outside / f"{index:040x}.json"
        path.write_text(json.dumps({"document": index}))
        os.utime(path, (1_000_000 + index, 1_000_000 + index))
    (outside / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n")
    return outside


def snapshot(directory: pathlib.Path) -> Snapshot:
    return {
        p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.iterdir()) if p.is_file()
    }


def check(run_cli: RunCli, repo: pathlib.Path, *argv: str) -> Tuple[int, str, str]:
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        return run_cli("check", *argv, ".")
    finally:
        os.chdir(cwd)


def assert_uncached_run_reports(result: Tuple[int, str, str], warning: str) -> None:
    status, out, err = result
    assert status == 1
    assert FINDING in out
    assert err.startswith(f"idemlint: warning: cache not used: {warning}") or warning in err
    assert len(err.splitlines()) == 1


def genuine_cache(run_cli: RunCli, repo: pathlib.Path) -> pathlib.Path:
    """The user's own cache of ``repo``, made by a cold run."""
    status, out, _ = check(run_cli, repo)
    assert (status, FINDING in out) == (1, True)
    return repo / DIRECTORY_NAME


def count_analysed(monkeypatch: pytest.MonkeyPatch) -> List[int]:
    analysed: List[int] = []
    analyse = engine._analyse_chunks

    def counting(chunks: List[List[object]], *args: object) -> object:
        analysed.append(sum(len(chunk) for chunk in chunks))
        return analyse(chunks, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_analyse_chunks", counting)
    return analysed


# Symbolic links


@pytest.mark.parametrize("whose", ["committed", "ours"])
def test_entries_linked_outside_are_never_written_or_pruned(
    whose: str, tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``entries`` a link to the user's directory: in a cache directory the
    repository ships, and in the user's own one after a checkout replaced
    ``entries`` (git overwrites ignored files)."""
    repo = repository(tmp_path)
    outside = outside_directory(tmp_path)
    before = snapshot(outside)
    cache_dir = repo / DIRECTORY_NAME
    if whose == "ours":
        genuine_cache(run_cli, repo)
        for entry in (cache_dir / "entries").iterdir():
            entry.unlink()
        (cache_dir / "entries").rmdir()
    else:
        cache_dir.mkdir()
        (cache_dir / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n")
    (cache_dir / "entries").symlink_to(outside)
    monkeypatch.setattr(cache_module, "MAX_BYTES", 0)  # a run that writes would prune everything
    for edit in range(3):
        (repo / "shop" / "tasks.py").write_text(textwrap.dedent(SHOP["shop/tasks.py"]) + f"# edit {edit}\n")
        warning = "entries is a symbolic link" if whose == "ours" else "was not created by idemlint"
        assert_uncached_run_reports(check(run_cli, repo), warning)
    assert snapshot(outside) == before


def test_a_linked_cache_directory_is_not_used(
    tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repository(tmp_path)
    outside = outside_directory(tmp_path)
    (outside / "entries").mkdir()
    before = snapshot(outside)
    (repo / DIRECTORY_NAME).symlink_to(outside)
    monkeypatch.setattr(cache_module, "MAX_BYTES", 0)
    for _ in range(2):
        assert_uncached_run_reports(check(run_cli, repo), "is a symbolic link")
    assert snapshot(outside) == before
    assert list((outside / "entries").iterdir()) == []


def test_a_cache_path_that_is_a_file_is_not_used(tmp_path: pathlib.Path, run_cli: RunCli) -> None:
    repo = repository(tmp_path)
    (repo / DIRECTORY_NAME).write_text("not a directory\n")
    assert_uncached_run_reports(check(run_cli, repo), "is not a directory")
    assert (repo / DIRECTORY_NAME).read_text() == "not a directory\n"


@pytest.mark.parametrize("target", ["outside file", "/dev/zero", "fifo"])
def test_an_entry_that_is_not_a_regular_file_is_a_miss(
    target: str, tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link to a genuine entry kept elsewhere, to /dev/zero (never read
    unbounded), or a FIFO (never blocks): each a miss, and what the run then
    writes replaces the name, never what a link points to."""
    repo = repository(tmp_path)
    entries = genuine_cache(run_cli, repo) / "entries"
    outside = tmp_path / "outside"
    outside.mkdir()
    for entry in entries.iterdir():
        if target == "fifo":
            entry.unlink()
            os.mkfifo(entry)
            continue
        if target == "outside file":
            kept = outside / entry.name
            entry.rename(kept)
            os.utime(kept, (1, 1))
        else:
            entry.unlink()
        entry.symlink_to(outside / entry.name if target == "outside file" else target)
    before = snapshot(outside)
    analysed = count_analysed(monkeypatch)
    status, out, err = check(run_cli, repo)
    assert (status, FINDING in out, err) == (1, True, "")
    assert analysed and sum(analysed) > 0
    assert snapshot(outside) == before
    assert all(entry.is_file() and not entry.is_symlink() for entry in entries.iterdir())


# A cache shipped in the repository


def attacker_entries(tmp_path: pathlib.Path, repo: pathlib.Path, run_cli: RunCli,
                     monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """What an attacker commits: the cache idemlint at HEAD makes of ``repo``
    with the attacker's own secret (not the victim's)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "attacker-home"))
    cache_dir = genuine_cache(run_cli, repo)
    monkeypatch.undo()
    return cache_dir


def forge(
    cache_dir: pathlib.Path, change: Callable[[Dict[str, object]], bytes], screens: bool = True
) -> None:
    """Rewrite every entry's payload, signed with whichever secret is current;
    with ``screens``, the entry of what the byte screen found says that no
    file holds a task.  (Signed with the user's own secret, that entry is
    believed: unlike a finding, nothing in it can be checked against the
    files without screening them again.)"""
    signer = Cache(str(cache_dir.parent / "unused-cache"), DEFAULT_SETTINGS)
    assert signer.ready()
    for entry in (cache_dir / "entries").iterdir():
        payload = json.loads(entry.read_bytes().split(b"\n", 1)[1])
        if "variants" in payload:
            entry.write_bytes(signer.signed(entry.stem, change(payload)))
        elif screens:
            entry.write_bytes(signer.signed(entry.stem, no_task_anywhere(payload)))


def no_task_anywhere(payload: Dict[str, object]) -> bytes:
    screens: Dict[str, object] = payload["screens"]  # type: ignore[assignment]
    return json.dumps({"screens": {digest: [False, False, None, []] for digest in screens}}).encode()


def variants(*variant: Dict[str, object]) -> bytes:
    return json.dumps({"variants": list(variant)}).encode()


def nothing(payload: Dict[str, object]) -> bytes:
    return variants(
        {"findings": [], "problems": [], "suppressed": [], "dependencies": [], "unfollowed": []}
    )


def escapes(payload: Dict[str, object]) -> bytes:
    line = ["shop/tasks.py", 1, 1, "IDM002", 1, 2, "missing-idempotency-key",
            "\x1b]0;owned\x07\x1b[2J\nshop/ok.py:1:1: IDM999 forged", "why", "fix", "charge"]
    return variants(
        {"findings": [line], "problems": [], "suppressed": [], "dependencies": [], "unfollowed": []}
    )


def elsewhere(payload: Dict[str, object]) -> bytes:
    line = ["/etc/passwd", 1, 1, "IDM002", 1, 2, "missing-idempotency-key", "m", "why", "fix", "charge"]
    return variants(
        {"findings": [line], "problems": [], "suppressed": [], "dependencies": [], "unfollowed": []}
    )


ATTACKS = {"hide every finding": nothing, "forge escape sequences": escapes, "quote /etc/passwd": elsewhere}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_committed_cache_is_useless_to_an_attacker(
    attack: str, tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repository(tmp_path)
    cache_dir = attacker_entries(tmp_path, repo, run_cli, monkeypatch)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "attacker-home"))
    forge(cache_dir, ATTACKS[attack])
    monkeypatch.undo()
    before = snapshot(cache_dir / "entries")
    status, out, err = check(run_cli, repo, "--format", "review")
    assert status == 1
    assert "billing.py" in out and "root:" not in out and "\x1b" not in out and "IDM999" not in out
    assert err.startswith("idemlint: warning: cache not used: ")
    assert "was not created by idemlint for this user" in err
    assert snapshot(cache_dir / "entries") == before  # not ours: nothing written or pruned


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_entries_signed_without_the_users_secret_are_misses(
    attack: str, tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forged entries under the names of the user's own cache (the names
    alone would need the secret too), signed with another secret."""
    repo = repository(tmp_path)
    cache_dir = genuine_cache(run_cli, repo)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "attacker-home"))
    forge(cache_dir, ATTACKS[attack])
    monkeypatch.undo()
    status, out, err = check(run_cli, repo, "--format", "review")
    assert (status, err) == (1, "")
    assert "billing.py" in out and "root:" not in out and "\x1b" not in out


FIELDS = ("path", "line", "column", "code", "end_line", "end_column", "rule", "message", "why",
          "fix", "task", "tasks", "callers", "related")


DROPPED = object()  # a field left out


def edited(**changes: object) -> Callable[[Dict[str, object]], bytes]:
    """The genuine entry with fields of its finding (or its dependencies) replaced."""

    def change(payload: Dict[str, object]) -> bytes:
        variant: Dict[str, object] = dict(payload["variants"][0])  # type: ignore[index]
        finding = list(variant["findings"][0])  # type: ignore[index]
        for name, value in changes.items():
            if name != "dependencies":
                finding[FIELDS.index(name)] = value
        variant["findings"] = [[value for value in finding if value is not DROPPED]]
        variant["dependencies"] = changes.get("dependencies", variant["dependencies"])
        return variants(variant)

    return change


def unfollowed(payload: Dict[str, object], call: List[object]) -> bytes:
    """The genuine entry with one call not followed added."""
    variant: Dict[str, object] = dict(payload["variants"][0])  # type: ignore[index]
    variant["unfollowed"] = [call]
    return variants(variant)


SIGNED_BUT_INVALID: Dict[str, Callable[[Dict[str, object]], bytes]] = {
    "not JSON": lambda payload: b"{not json",
    "deeply nested": lambda payload: b"[" * 100_000,
    "oversized": lambda payload: b" " * MAX_ENTRY_BYTES + variants(),
    "no variants": lambda payload: variants(),
    "a string for a line": edited(line="5"),
    "a boolean for a column": edited(column=True),
    "an unknown code": edited(code="IDM999"),
    "a list for a code": edited(code=["IDM002"]),
    "a line the file does not have": edited(line=10_000, end_line=10_000),
    "an end before the start": edited(end_line=4),
    "a zero column": edited(column=0),
    "another file": edited(path="/etc/passwd"),
    "a helper it did not look up": edited(dependencies=[]),
    "an escape sequence in a message": edited(message="\x1b[2Jowned"),
    "a newline in a task name": edited(task="charge\nshop/x.py:1:1: IDM001 forged"),
    "an escape sequence in a listed task": edited(tasks=["shop.tasks.charge\x1b[2J"]),
    "tasks out of order": edited(tasks=["shop.tasks.z", "shop.tasks.a"]),
    "a caller that is not a task": edited(callers=["shop.tasks.other"]),
    "a related place in another file": edited(related=[["/etc/passwd", 1, 1, "note"]]),
    "a related place on a line the file does not have": edited(
        related=[["./shop/billing.py", 10_000, 1, "note"]]
    ),
    "an escape sequence in a related note": edited(related=[["./shop/billing.py", 1, 1, "\x1b[2J"]]),
    "a related place with too few fields": edited(related=[["./shop/billing.py", 1, 1]]),
    "too few fields": edited(why=DROPPED),
    "a digest of no file": edited(dependencies=[["shop.billing", None, "0" * 32]]),
    "a malformed digest": edited(dependencies=[["shop.billing", "./shop/billing.py", "../../x"]]),
    "an unknown reason for a call not followed": lambda payload: unfollowed(
        payload, ["./shop/billing.py", "capture", "stripe.Charge.create()", "tired"]
    ),
    "a call not followed in another file": lambda payload: unfollowed(
        payload, ["/etc/passwd", "capture", "stripe.Charge.create()", "events"]
    ),
    "a problem with an unhashable code": lambda payload: variants(
        {"findings": [], "problems": [["shop/tasks.py", 1, 1, {}, "m"]], "suppressed": [],
         "dependencies": [], "unfollowed": []}
    ),
    "a problem with a rule code": lambda payload: variants(
        {"findings": [], "problems": [["shop/tasks.py", 1, 1, "IDM002", "m"]], "suppressed": [],
         "dependencies": [], "unfollowed": []}
    ),
}


@pytest.mark.sweep  # every field, a cold run each: some 40 s
@pytest.mark.parametrize("damage", sorted(SIGNED_BUT_INVALID))
def test_a_signed_entry_is_still_checked_field_by_field(
    damage: str, tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defence in depth: even with the user's own signature, an entry idemlint
    could not have written is a miss, analysed again, never a crash."""
    repo = repository(tmp_path)
    cache_dir = genuine_cache(run_cli, repo)
    expected = check(run_cli, repo, "--no-cache")
    forge(cache_dir, SIGNED_BUT_INVALID[damage], screens=False)
    analysed = count_analysed(monkeypatch)
    assert check(run_cli, repo) == expected
    assert sum(analysed) == 1  # shop/tasks.py, the one task file


def test_a_genuine_entry_still_hits(
    tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repository(tmp_path)
    genuine_cache(run_cli, repo)
    cold = check(run_cli, repo, "--format", "json")
    monkeypatch.setattr(engine, "_analyse_chunks", None)  # a warm run analyses nothing
    assert check(run_cli, repo, "--format", "json") == cold


def test_the_installed_entry_point_ignores_a_committed_cache(
    tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repository(tmp_path)
    cache_dir = attacker_entries(tmp_path, repo, run_cli, monkeypatch)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "attacker-home"))
    forge(cache_dir, nothing)
    monkeypatch.undo()
    script = os.path.join(os.path.dirname(sys.executable), "idemlint")
    for _ in range(2):
        run = subprocess.run([script, "check", "."], cwd=repo, capture_output=True, text=True, timeout=120)
        assert run.returncode == 1
        assert FINDING in run.stdout
        assert "was not created by idemlint for this user" in run.stderr


# The secret


def test_without_a_usable_secret_the_run_goes_on_uncached(
    tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repository(tmp_path)
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the user's cache directory should be\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert_uncached_run_reports(check(run_cli, repo), "cannot create")
    assert not (repo / DIRECTORY_NAME).exists()


@pytest.mark.parametrize("problem", ["a symbolic link", "readable by others", "damaged"])
def test_a_secret_that_cannot_be_trusted_is_not_used(
    problem: str, tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repository(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    secret = tmp_path / "home" / "idemlint" / "secret"
    secret.parent.mkdir(parents=True)
    planted = tmp_path / "planted"
    planted.write_text("0" * 64 + "\n")
    planted.chmod(0o600)
    if problem == "a symbolic link":
        secret.symlink_to(planted)
    else:
        secret.write_text("0" * 64 + "\n" if problem == "readable by others" else "short\n")
        secret.chmod(0o644 if problem == "readable by others" else 0o600)
    warning = {"a symbolic link": "is a symbolic link", "readable by others": "other users",
               "damaged": "is damaged"}[problem]
    assert_uncached_run_reports(check(run_cli, repo), warning)
    assert not (repo / DIRECTORY_NAME).exists()


def test_the_secret_is_private_and_outside_the_work_tree(
    tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repository(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    genuine_cache(run_cli, repo)
    secret = tmp_path / "home" / "idemlint" / "secret"
    assert secret.stat().st_mode & 0o777 == 0o600
    assert sorted(os.listdir(secret.parent)) == ["secret"]
    assert secret.read_text().strip() not in "".join(
        p.read_text(errors="replace") for p in (repo / DIRECTORY_NAME).rglob("*") if p.is_file()
    )


# The directory


def test_an_empty_directory_is_adopted(tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = repository(tmp_path)
    empty = tmp_path / "fresh-cache"
    empty.mkdir()
    status, _, err = check(run_cli, repo, "--cache-dir", str(empty))
    assert (status, err) == (1, "")
    assert (empty / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    monkeypatch.setattr(engine, "_analyse_chunks", None)
    assert check(run_cli, repo, "--cache-dir", str(empty))[0] == 1


def test_prune_deletes_only_idemlint_names(tmp_path: pathlib.Path, run_cli: RunCli) -> None:
    repo = repository(tmp_path)
    entries = genuine_cache(run_cli, repo) / "entries"
    kept = {name: entries / name for name in ("notes.json", "ABCDEF.json", f"{'0' * 40}.json.bak")}
    for path in kept.values():
        path.write_text("x" * 10_000)
        os.utime(path, (1, 1))
    stale = entries / f"{'0' * 40}.json"
    stale.write_text("x" * 10_000)
    os.utime(stale, (1, 1))
    cache = Cache(str(entries.parent), DEFAULT_SETTINGS)
    cache._written = True  # as after a run that wrote an entry
    cache.prune(limit=0)
    assert not stale.exists()
    assert all(path.exists() for path in kept.values())


# The pieces


def test_the_code_list_is_the_rule_registry() -> None:
    from idemlint.rules import RULES_BY_CODE

    assert RULE_CODES == frozenset(RULES_BY_CODE)


@pytest.mark.parametrize(
    "payload",
    [b'{"variants": "[[[[[[[[[[[[[[[["}', b'{"variants": "\\\\"}', b'{"variants": "\\"[[[[[[[[[[[["}'],
)
def test_brackets_inside_strings_do_not_count_as_nesting(payload: bytes) -> None:
    with pytest.raises(Invalid, match="no variants"):
        decode_variants(payload)


def test_nesting_is_refused_before_parsing() -> None:
    with pytest.raises(Invalid, match="nested too deeply"):
        decode_variants(b'{"variants": [' + b"[" * 10 + b"]" * 10 + b"]}")


# What the byte screen found, remembered by content hash


def screened_files(monkeypatch: pytest.MonkeyPatch) -> List[int]:
    """How many files each run's byte screen reads (one count per call)."""
    screened: List[int] = []
    screen = engine._screened

    def counting(raw: bytes, settings: object) -> object:
        screened.append(1)
        return screen(raw, settings)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_screened", counting)
    return screened


def test_a_warm_run_screens_only_the_files_whose_bytes_changed(
    tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repository(tmp_path)
    genuine_cache(run_cli, repo)
    files = len(list(repo.rglob("*.py")))
    screened = screened_files(monkeypatch)
    warm = check(run_cli, repo)
    assert warm[0] == 1 and FINDING in warm[1] and screened == []
    # A file that starts to hold a task is screened again, and analysed.
    (repo / "shop" / "later.py").write_text(
        "import requests\nfrom celery import shared_task\n\n\n@shared_task\ndef later(pk):\n"
        "    requests.post('https://x.example/', json={'pk': pk})\n"
    )
    status, out, err = check(run_cli, repo)
    assert (status, err) == (1, "")
    assert FINDING in out and "shop/later.py:7:5: IDM002" in out
    assert len(screened) == 1 and files + 1 == len(list(repo.rglob("*.py")))


def screens_entry(cache_dir: pathlib.Path) -> pathlib.Path:
    (found,) = [e for e in (cache_dir / "entries").iterdir() if b'{"screens"' in e.read_bytes()]
    return found


SCREENS_SIGNED_BUT_INVALID = {
    "not JSON": b"{not json",
    "deeply nested": b"[" * 100_000,
    "another shape": b'{"screens": [], "more": 1}',
    "a malformed digest": b'{"screens": {"../x": [false, false, null, []]}}',
    "a string for a flag": b'{"screens": {"%s": ["no", false, null, []]}}' % (b"0" * 32),
    "a name that is no name": b'{"screens": {"%s": [false, false, ["a b"], []]}}' % (b"0" * 32),
    "too few fields": b'{"screens": {"%s": [false, false, null]}}' % (b"0" * 32),
    "oversized": b" " * (MAX_SCREENS_BYTES + 1),
}


@pytest.mark.sweep  # the same for the screen's entries
@pytest.mark.parametrize("damage", sorted(SCREENS_SIGNED_BUT_INVALID))
def test_a_signed_screen_entry_is_still_checked_field_by_field(
    damage: str, tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anything idemlint could not have written is nothing remembered: every
    file is screened again, and the run reports what it should."""
    repo = repository(tmp_path)
    cache_dir = genuine_cache(run_cli, repo)
    entry = screens_entry(cache_dir)
    signer = Cache(str(cache_dir.parent / "unused-cache"), DEFAULT_SETTINGS)
    assert signer.ready()
    entry.write_bytes(signer.signed(entry.stem, SCREENS_SIGNED_BUT_INVALID[damage]))
    screened = screened_files(monkeypatch)
    status, out, err = check(run_cli, repo)
    assert (status, FINDING in out, err) == (1, True, "")
    assert len(screened) == len(list(repo.rglob("*.py")))
