"""The result is the same whatever the number of worker processes, and a
cache filled by workers records what each file depends on."""

from __future__ import annotations

import pathlib
import shutil
import textwrap
from typing import Dict, List, Tuple

import pytest

from idemlint import lint_paths
from idemlint.cache import Cache
from idemlint.settings import DEFAULT_SETTINGS, Fixed

TESTS = pathlib.Path(__file__).parent


@pytest.mark.sweep
@pytest.mark.parametrize(
    "root",
    [
        pytest.param("fixtures", marks=pytest.mark.slow),  # 10 s a run: `make test-all`
        "projects/shop", "projects/shared_helpers", "projects/subtasks", "projects/calls_picked",
    ],
)
@pytest.mark.parametrize("workers", [2, 3])
def test_one_and_more_workers_give_identical_results(root: str, workers: int) -> None:
    path = str(TESTS / root)
    single = lint_paths([path], jobs=1)
    several = lint_paths([path], jobs=workers)
    assert single.findings  # the comparison is not between two empty results
    assert several == single


def test_a_cache_workers_filled_sees_a_helper_edited_since(tmp_path: pathlib.Path) -> None:
    """Each file's result records what it looked up, also when a worker's
    project served several files (and a task file was another's helper first)."""
    root = tmp_path / "project"
    shutil.copytree(TESTS / "projects" / "shared_helpers", root)
    cache_dir = str(tmp_path / "cache")
    lint_paths([str(root)], jobs=2, cache=Cache(cache_dir, DEFAULT_SETTINGS))
    billing = root / "orders" / "billing.py"
    billing.write_text(billing.read_text().replace("send_mail(", "print("))
    warm = lint_paths([str(root)], jobs=2, cache=Cache(cache_dir, DEFAULT_SETTINGS))
    assert warm == lint_paths([str(root)], jobs=1)
    assert not any(f.code == "IDM013" for f in warm.findings)


def test_the_files_of_a_directory_are_handed_out_together_a_few_at_a_time() -> None:
    from idemlint.engine import _by_directory

    candidates = [(path, b"") for path in ["a/1.py", "a/2.py", "a/3.py", "b/1.py", "a/4.py"]]
    assert _by_directory(candidates, 2) == [[0, 1], [2, 4], [3]]


def test_workers_are_not_started_for_a_handful_of_files() -> None:
    from idemlint.engine import FILES_PER_WORKER, _workers

    assert _workers(None, FILES_PER_WORKER - 1) == 1
    assert _workers(3, 1) == 3


def _write(root: pathlib.Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _in_each_order(root: pathlib.Path) -> List[List[Tuple[str, int, str]]]:
    """The findings a worker's project gives for each file, the files
    handed to it in path order and in reverse."""
    from idemlint import engine

    named, files, _, _ = engine._files_to_check([str(root)], Fixed(DEFAULT_SETTINGS), False, None)
    candidates, _, project_files, _, _ = engine._candidates(files, DEFAULT_SETTINGS.task_decorators)
    found = []
    for order in (candidates, candidates[::-1]):
        run = engine._WorkerRun(project_files, DEFAULT_SETTINGS)
        results = [run.analyse(candidate) for candidate in order]
        found.append(sorted((pathlib.Path(f.path).name, f.line, f.code) for r in results for f in r.findings))
    return found


def test_a_re_export_chain_answered_nearer_the_end_first_is_no_shortcut(tmp_path: pathlib.Path) -> None:
    """``long`` imports the project's task decorator six re-exports away,
    past the limit; ``short`` three away. Which file a worker gets first
    must not decide whether ``long``'s function is a task."""
    chain = {f"app/r{n}.py": f"from app.r{n + 1} import project_task\n" for n in range(1, 5)}
    _write(tmp_path, {
        "app/__init__.py": "",
        "app/celery.py": "from celery import shared_task\n\nproject_task = shared_task\n",
        **chain,
        "app/r5.py": "from app.celery import project_task\n",
        "app/long/__init__.py": "",
        "app/long/jobs.py": """
            import requests
            from app.r1 import project_task

            @project_task
            def notify(order_id):
                requests.post("https://partner.example/orders", json={"order": order_id})
            """,
        "app/short/__init__.py": "",
        "app/short/jobs.py": """
            import requests
            from app.r3 import project_task

            @project_task
            def notify(order_id):
                requests.post("https://partner.example/orders", json={"order": order_id})
            """,
    })
    in_order, reversed_order = _in_each_order(tmp_path / "app")
    assert in_order == reversed_order
    assert lint_paths([str(tmp_path / "app")], jobs=2) == lint_paths([str(tmp_path / "app")], jobs=1)


def test_a_task_file_whose_module_name_another_file_claims_is_not_that_module(tmp_path: pathlib.Path) -> None:
    """Two ``tasks.py`` in directories without ``__init__.py`` both claim the
    module name ``tasks``; ``from tasks import send`` is the first one's,
    whichever file the worker analyses first."""
    _write(tmp_path, {
        "svc1/jobs.py": """
            from celery import shared_task
            from tasks import send

            @shared_task
            def notify(order_id):
                send(order_id)
            """,
        "svc1/tasks.py": """
            import requests

            def send(order_id):
                requests.post("https://partner.example/orders", json={"order": order_id})
            """,
        "svc2/tasks.py": """
            from celery import shared_task

            def send(order_id):
                pass

            @shared_task
            def other(order_id):
                send(order_id)
            """,
    })
    in_order, reversed_order = _in_each_order(tmp_path)
    assert in_order == reversed_order == [("tasks.py", 5, "IDM002")]


@pytest.mark.parametrize("enabled_before", [True, False])
def test_the_cycle_collector_pauses_while_a_chunk_is_analysed(
    enabled_before: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from idemlint import engine

    during: List[bool] = []
    analysed = engine._analysed

    def watched(*args: object, **kwargs: object) -> object:
        during.append(gc.isenabled())
        return analysed(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_analysed", watched)
    path = str(TESTS / "projects" / "shop")
    (gc.enable if enabled_before else gc.disable)()
    try:
        result = lint_paths([path], jobs=1)
        assert gc.isenabled() == enabled_before  # as the caller left it
    finally:
        gc.enable()
    assert during and not any(during)
    assert result == lint_paths([path], jobs=2)


def test_a_worker_renewing_its_project_collects_what_the_last_one_left(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    from idemlint import engine

    collections: List[int] = []
    monkeypatch.setattr(engine, "MAX_FILES_PER_CHUNK", 2)
    monkeypatch.setattr(gc, "collect", lambda *args: collections.append(len(args)) or 0)
    named, files, _, _ = engine._files_to_check([str(TESTS / "fixtures")], Fixed(DEFAULT_SETTINGS), False, None)
    candidates, _, project_files, _, _ = engine._candidates(files, DEFAULT_SETTINGS.task_decorators)
    run = engine._WorkerRun(project_files, DEFAULT_SETTINGS)
    for candidate in candidates[:5]:
        run.analyse(candidate)
    assert len(collections) == 2  # before the second project and the third, none before the first


@pytest.mark.parametrize("enabled_before", [True, False])
def test_a_pause_ends_with_a_collection_when_the_collector_was_on(
    enabled_before: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from idemlint import engine

    collections: List[bool] = []
    monkeypatch.setattr(gc, "collect", lambda *args: collections.append(gc.isenabled()) or 0)
    (gc.enable if enabled_before else gc.disable)()
    try:
        with engine._collections_paused():
            assert not gc.isenabled()
        assert gc.isenabled() == enabled_before
    finally:
        gc.enable()
    assert collections == ([True] if enabled_before else [])


@pytest.mark.sweep
@pytest.mark.parametrize(
    "root",
    [
        pytest.param("fixtures", marks=pytest.mark.slow),  # 7 s: `make test-all`
        "projects/subtasks", "projects/decorator_alias", "projects/calls_library_bases",
    ],
)
def test_an_analysed_project_is_freed_without_the_cycle_collector(root: str) -> None:
    """No reference cycle runs through a project, its modules' indexes, the
    decorators worked out for them, or a task's knowledge and guards: a
    chunk's project is freed as soon as it is dropped, and the collection
    that ends a pause (or a worker's renewal) has next to nothing to walk.
    With such a cycle, sentry's workers each spent 0.4 to 0.7 s collecting
    half a million objects every time they renewed their project."""
    import gc

    gc.collect()
    gc.garbage.clear()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds is kept in gc.garbage, to be looked at
    try:
        result = lint_paths([str(TESTS / root)], jobs=1)
        gc.collect()
        kinds = {type(thing) for thing in gc.garbage}
        cyclic = sorted(kind.__qualname__ for kind in kinds if kind.__module__.startswith("idemlint"))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert result.findings  # the analysis ran, and reached helpers
    assert cyclic == []
