"""The findings cache: a warm run gives exactly what a cold one gives, and
an edit anywhere a task reached makes that task file be analysed again."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap
from typing import Dict, List

import pytest

from idemlint import engine, lint_paths
from idemlint.cache import DIRECTORY_NAME, MAX_VARIANTS, Cache
from idemlint.cli import main
from idemlint.settings import DEFAULT_SETTINGS, Settings

TESTS = pathlib.Path(__file__).parent


def write(root: pathlib.Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))


def codes(result: engine.LintResult) -> List[str]:
    return [f"{pathlib.Path(f.path).name}:{f.line}:{f.code}:{f.task}" for f in result.findings]


# The whole fixture tree, 10 s (`make test-all`); the shop is quick.
@pytest.mark.parametrize("root", [pytest.param("fixtures", marks=pytest.mark.slow), "projects/shop"])
def test_cold_warm_and_any_number_of_workers_give_identical_findings(
    root: str, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(TESTS / root)
    uncached = lint_paths([path], jobs=1)
    cold = lint_paths([path], jobs=2, cache=Cache(str(tmp_path), DEFAULT_SETTINGS))
    monkeypatch.setattr(engine, "_analyse_chunks", None)  # a warm run analyses nothing
    warm = lint_paths([path], jobs=1, cache=Cache(str(tmp_path), DEFAULT_SETTINGS))
    assert uncached.findings
    assert cold == uncached
    assert warm == uncached


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
        from shop.mail import send_receipt

        @shared_task
        def charge(order_id):
            capture(order_id)

        @shared_task
        def receipt(order_id):
            send_receipt(order_id)
        """,
    "shop/refunds.py": """
        from celery import shared_task
        from shop.billing import capture

        @shared_task
        def recharge(order_id):
            capture(order_id)
        """,
}
KEYED_BILLING = """
    import requests

    def capture(order_id):
        requests.post(
            "https://pay.example/capture",
            json={"order": order_id},
            headers={"Idempotency-Key": f"capture-{order_id}"},
        )
    """


def test_an_edited_helper_module_invalidates_every_task_that_reached_it(
    tmp_path: pathlib.Path,
) -> None:
    write(tmp_path, SHOP)
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    before = lint_paths([str(tmp_path / "shop")], jobs=1, cache=Cache(cache_dir, DEFAULT_SETTINGS))
    # recharge (refunds.py comes first) walks capture(); charge replays its
    # summary: both depend on billing.py, and both must be analysed again.
    assert codes(before) == ["billing.py:5:IDM002:recharge"]
    write(tmp_path, {"shop/billing.py": KEYED_BILLING})
    after = lint_paths([str(tmp_path / "shop")], jobs=1, cache=Cache(cache_dir, DEFAULT_SETTINGS))
    assert codes(after) == codes(lint_paths([str(tmp_path / "shop")]))
    assert after.findings == ()


def test_a_module_that_appears_invalidates_the_tasks_that_looked_for_it(
    tmp_path: pathlib.Path,
) -> None:
    write(tmp_path, SHOP)
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    lint_paths([str(tmp_path / "shop")], cache=Cache(cache_dir, DEFAULT_SETTINGS))
    write(
        tmp_path,
        {
            "shop/mail.py": """
                from django.core.mail import send_mail

                def send_receipt(order_id):
                    send_mail("Receipt", f"Order {order_id}", "shop@example.com", ["a@example.com"])
                """
        },
    )
    warm = lint_paths([str(tmp_path / "shop")], cache=Cache(cache_dir, DEFAULT_SETTINGS))
    assert "mail.py:5:IDM013:receipt" in codes(warm)
    assert codes(warm) == codes(lint_paths([str(tmp_path / "shop")]))


def test_a_module_name_that_falls_to_a_namespace_file_invalidates_its_users(
    tmp_path: pathlib.Path,
) -> None:
    """``import utils`` is the top-level ``utils.py``; once it is gone, the
    name falls to ``app/bg/utils.py``, a namespace portion's module that is
    ``utils`` only by its short name: the cached answer must not survive."""
    root = tmp_path / "project"
    root.mkdir()
    for path in (TESTS / "projects" / "namespace_portions").rglob("*.py"):
        target = root / path.relative_to(TESTS / "projects" / "namespace_portions")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    cold = lint_paths([str(root)], cache=Cache(cache_dir, DEFAULT_SETTINGS))
    assert "utils.py:5:IDM002:charge" not in codes(cold)
    (root / "utils.py").unlink()
    warm = lint_paths([str(root)], cache=Cache(cache_dir, DEFAULT_SETTINGS))
    assert "utils.py:5:IDM002:charge" in codes(warm)
    assert codes(warm) == codes(lint_paths([str(root)]))


def test_a_wrapper_module_that_appears_makes_its_users_tasks(tmp_path: pathlib.Path) -> None:
    """Whether ``@background_task`` may be the project's own task decorator
    decides whether the function it decorates is parsed up front at all
    (idemlint.segments); that decision is part of what the cache checks."""
    write(
        tmp_path,
        {
            "shop/__init__.py": "",
            "shop/tasks.py": """
                import requests
                from shop.taskutils import background_task

                @background_task
                def notify(order_id):
                    requests.post("https://partner.example.com", json={"order": order_id})
                """,
        },
    )
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    assert codes(lint_paths([str(tmp_path / "shop")], cache=Cache(cache_dir, DEFAULT_SETTINGS))) == []
    write(
        tmp_path,
        {
            "shop/taskutils.py": """
                from celery import shared_task

                def background_task(function):
                    return shared_task(function)
                """
        },
    )
    warm = lint_paths([str(tmp_path / "shop")], cache=Cache(cache_dir, DEFAULT_SETTINGS))
    assert codes(warm) == ["tasks.py:7:IDM002:notify"]


def test_unchanged_files_are_not_analysed_again(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, SHOP)
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    cold = lint_paths([str(tmp_path)], cache=Cache(cache_dir, DEFAULT_SETTINGS))
    monkeypatch.setattr(engine, "_analyse_chunks", None)
    assert lint_paths([str(tmp_path)], cache=Cache(cache_dir, DEFAULT_SETTINGS)) == cold


def test_a_state_the_files_return_to_outlives_many_edits(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each edit of a helper stores a new variant for the tasks that reach
    it; the variant in use when the edits are undone must still be there."""
    write(tmp_path, SHOP)
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    billing = tmp_path / "shop" / "billing.py"
    original = billing.read_text()
    cold = lint_paths([str(tmp_path)], cache=Cache(cache_dir, DEFAULT_SETTINGS))
    analysed: List[int] = []
    analyse = engine._analyse_chunks

    def counting(chunks: List[List[object]], *args: object) -> object:
        analysed.append(sum(len(chunk) for chunk in chunks))
        return analyse(chunks, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_analyse_chunks", counting)
    for edit in range(2 * MAX_VARIANTS):
        billing.write_text(original + f"\n# edit {edit}\n")
        lint_paths([str(tmp_path)], cache=Cache(cache_dir, DEFAULT_SETTINGS))
        billing.write_text(original)
        analysed.clear()
        assert lint_paths([str(tmp_path)], cache=Cache(cache_dir, DEFAULT_SETTINGS)) == cold
        assert analysed == [], f"undone edit {edit} analysed {analysed} files again"


def test_other_settings_do_not_reuse_entries(tmp_path: pathlib.Path) -> None:
    write(tmp_path, SHOP)
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    lint_paths([str(tmp_path)], cache=Cache(cache_dir, DEFAULT_SETTINGS))
    only_locks = Settings(select=("IDM004",))
    assert lint_paths([str(tmp_path)], only_locks, cache=Cache(cache_dir, only_locks)).findings == ()


def test_a_damaged_entry_is_a_miss(tmp_path: pathlib.Path) -> None:
    write(tmp_path, SHOP)
    cache_dir = tmp_path / DIRECTORY_NAME
    cold = lint_paths([str(tmp_path / "shop")], cache=Cache(str(cache_dir), DEFAULT_SETTINGS))
    entries = sorted((cache_dir / "entries").iterdir())
    entries[0].write_text("{not json")
    entries[1].write_text(json.dumps({"findings": [[1, 2]], "problems": [], "dependencies": []}))
    assert lint_paths([str(tmp_path / "shop")], cache=Cache(str(cache_dir), DEFAULT_SETTINGS)) == cold


def test_prune_keeps_the_cache_bounded_and_spares_entries_in_use(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, SHOP)
    cache_dir = tmp_path / DIRECTORY_NAME
    lint_paths([str(tmp_path)], cache=Cache(str(cache_dir), DEFAULT_SETTINGS))
    stale = cache_dir / "entries" / ("0" * 40 + ".json")
    stale.write_text("x" * 10_000)
    os.utime(stale, (1, 1))
    write(tmp_path, {"shop/refunds.py": SHOP["shop/refunds.py"] + "\n# edited\n"})
    cache = Cache(str(cache_dir), DEFAULT_SETTINGS)
    expected = lint_paths([str(tmp_path)], cache=cache)  # writes one entry, so it may prune
    # The limit sits a little above what the entries in use take (each lists
    # the modules its analysis looked up), below that plus the stale entry.
    cache.prune(limit=4_000)
    assert not stale.exists()
    assert sum(p.stat().st_size for p in (cache_dir / "entries").iterdir()) <= 4_000
    monkeypatch.setattr(engine, "_analyse_chunks", None)  # every entry in use is still there
    assert lint_paths([str(tmp_path)], cache=Cache(str(cache_dir), DEFAULT_SETTINGS)) == expected


def test_the_cli_keeps_its_cache_beside_the_configuration(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, SHOP)
    (tmp_path / "pyproject.toml").write_text("[tool.idemlint]\n")
    monkeypatch.chdir(tmp_path / "shop")
    assert main(["check", "."]) == 1
    cache_dir = tmp_path / DIRECTORY_NAME
    assert (cache_dir / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (cache_dir / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert any((cache_dir / "entries").iterdir())


def test_no_cache_writes_nothing(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, SHOP)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "."]) == 1
    assert not (tmp_path / DIRECTORY_NAME).exists()


def test_an_unwritable_cache_is_a_warning_not_a_failure(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, SHOP)
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache directory's parent should be\n")
    status = main(["check", "--cache-dir", str(blocker / "cache"), str(tmp_path / "shop")])
    output = capsys.readouterr()
    assert status == 1
    assert "billing.py:5:5: IDM002" in output.out
    assert output.err.startswith("idemlint: warning: cache not saved: cannot write")
    assert len(output.err.splitlines()) == 1


def test_two_runs_at_once_share_the_cache_safely(tmp_path: pathlib.Path) -> None:
    write(tmp_path, SHOP)
    for index in range(30):  # enough task files that both runs are writing at the same time
        write(tmp_path, {f"shop/more_{index}.py": SHOP["shop/refunds.py"]})
    command = [sys.executable, "-m", "idemlint", "check", "--jobs", "1", "shop"]
    runs = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=300)[0] for run in runs]
    uncached = subprocess.run([*command, "--no-cache"], cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    warm = subprocess.run(command, cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    assert outputs[0] == outputs[1] == uncached.stdout == warm.stdout
    assert uncached.stdout.count("IDM002") == 1
    assert not [p for p in (tmp_path / DIRECTORY_NAME / "entries").iterdir() if p.suffix != ".json"]


def test_suppressed_findings_are_cached_for_unused_noqa(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        tmp_path,
        {
            "tasks.py": """
                import requests
                from celery import shared_task

                @shared_task
                def notify(order_id):
                    requests.post("https://partner.example/orders", json={"id": order_id})  # noqa: IDM002
                    return order_id  # noqa: IDM002
                """
        },
    )
    monkeypatch.chdir(tmp_path)
    outputs = []
    for _ in range(2):  # cold, then warm
        status = main(["check", "--show-unused-noqa", "tasks.py"])
        outputs.append((status, capsys.readouterr().out))
    assert outputs[0] == outputs[1]
    assert outputs[0][0] == 1
    assert [line.split(": ")[1].split()[0] for line in outputs[0][1].splitlines()] == ["IDM800"]
    assert outputs[0][1].startswith("tasks.py:8:")


@pytest.mark.parametrize("output_format", ["text", "json", "sarif", "review", "junit"])
def test_a_warm_run_does_not_import_the_parser(tmp_path: pathlib.Path, output_format: str) -> None:
    """Whatever the format: the machine-read ones describe each code too
    (idemlint.rule_texts, not the rule registry)."""
    write(tmp_path, SHOP)
    probe = (
        "import sys\nfrom idemlint.cli import main\n"
        f"status = main(['check', '--format', {output_format!r}, 'shop'])\n"
        "print(status, 'libcst' in sys.modules)\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True)
        for _ in range(2)
    ]
    assert runs[0].stdout.splitlines()[-1] == "1 True"  # cold: parsed
    assert runs[1].stdout.splitlines()[-1] == "1 False"  # warm: read and hashed only


def test_prune_removes_abandoned_temporary_files_even_below_the_limit(tmp_path: pathlib.Path) -> None:
    """A run killed before its rename leaves ``.<key>.json.<random>.tmp``:
    deleted once an hour old, however small the cache; a newer one may be
    another run's write in progress, and a name idemlint does not write is
    never deleted."""
    write(tmp_path, SHOP)
    cache_dir = tmp_path / DIRECTORY_NAME
    cache = Cache(str(cache_dir), DEFAULT_SETTINGS)
    lint_paths([str(tmp_path)], cache=cache)
    entries = cache_dir / "entries"
    writing = entries / f".{'a' * 40}.json.{'1' * 16}.tmp"
    killed = entries / f".{'b' * 40}.json.{'2' * 16}.tmp"
    foreign = entries / ".notes.json.x2.tmp"
    for path in (writing, killed, foreign):
        path.write_text("x" * 10_000)
    for path in (killed, foreign):
        os.utime(path, (1, 1))
    write(tmp_path, {"shop/refunds.py": SHOP["shop/refunds.py"] + "\n# edited\n"})
    lint_paths([str(tmp_path)], cache=Cache(str(cache_dir), DEFAULT_SETTINGS))  # writes, then prunes
    assert writing.exists()
    assert not killed.exists()
    assert foreign.exists()


@pytest.mark.parametrize("direction", ["a bug added", "a bug fixed"])
def test_a_helper_saved_during_the_run_is_cached_under_the_bytes_analysed(
    direction: str, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """billing.py is saved after the analysis parsed it and before the entry
    is stored: the entry must name the bytes that were parsed, so the next
    run sees the change (a new bug reported, a fixed one no longer)."""
    unkeyed = SHOP["shop/billing.py"]
    analysed_text, saved_text = (KEYED_BILLING, unkeyed) if direction == "a bug added" else (unkeyed, KEYED_BILLING)
    write(tmp_path, {**SHOP, "shop/billing.py": analysed_text})
    shop = str(tmp_path / "shop")
    expected_during = codes(lint_paths([shop]))
    analyse = engine._analyse_chunks

    def saved_meanwhile(*args: object) -> object:
        results = analyse(*args)  # type: ignore[arg-type]
        write(tmp_path, {"shop/billing.py": saved_text})
        return results

    cache_dir = str(tmp_path / DIRECTORY_NAME)
    monkeypatch.setattr(engine, "_analyse_chunks", saved_meanwhile)
    assert codes(lint_paths([shop], jobs=1, cache=Cache(cache_dir, DEFAULT_SETTINGS))) == expected_during
    monkeypatch.undo()
    expected_after = codes(lint_paths([shop]))
    assert expected_after != expected_during
    assert codes(lint_paths([shop], jobs=1, cache=Cache(cache_dir, DEFAULT_SETTINGS))) == expected_after


def test_a_task_file_read_again_as_a_helper_is_cached_under_the_bytes_analysed(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mail.py holds a task and a helper that tasks.py calls.  In a chunk of
    its own, tasks.py's analysis reads mail.py again; when mail.py was saved
    in between, tasks.py's entry must name the bytes it parsed, not the ones
    read first (or going back to those would find a stale entry)."""
    sending = """
        from celery import shared_task
        from django.core.mail import send_mail

        def send_receipt(order_id):
            send_mail("Receipt", f"Order {order_id}", "shop@example.com", ["a@example.com"])

        @shared_task
        def resend(order_id):
            return order_id
        """
    quiet = sending.replace('send_mail("Receipt"', 'print("Receipt"')
    write(tmp_path, {**SHOP, "shop/mail.py": quiet})
    shop = str(tmp_path / "shop")
    expected = codes(lint_paths([shop]))
    collect = engine._candidates

    def saved_after_reading(*args: object) -> object:
        candidates = collect(*args)  # type: ignore[arg-type]
        write(tmp_path, {"shop/mail.py": sending})
        return candidates

    cache_dir = str(tmp_path / DIRECTORY_NAME)
    monkeypatch.setattr(engine, "MAX_FILES_PER_CHUNK", 1)
    monkeypatch.setattr(engine, "_candidates", saved_after_reading)
    lint_paths([shop], jobs=1, cache=Cache(cache_dir, DEFAULT_SETTINGS))
    monkeypatch.undo()
    write(tmp_path, {"shop/mail.py": quiet})  # back to the bytes read first
    assert codes(lint_paths([shop], jobs=1, cache=Cache(cache_dir, DEFAULT_SETTINGS))) == expected
