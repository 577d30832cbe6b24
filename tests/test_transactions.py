"""What opens a transaction (idemlint.semantic.transactions): the
catalogue's openers however they are held, and the project's own context
managers, decorators and task classes around them.

tests/projects/transactions/ runs through the CLI with ``# expect:`` on
every finding and safe twins beside them; the tests below check how a
message names a transaction opened through project code, and that the
answer does not depend on file order or jobs.
"""

from __future__ import annotations

import pathlib

import pytest
from conftest import RunCli
from expectations import assert_independent_of_order_and_jobs, expectations, reported

from idemlint import lint_paths

PROJECT = pathlib.Path(__file__).parent / "projects" / "transactions"


def test_each_way_into_a_transaction_is_one(run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", str(PROJECT))
    assert (status, err) == (1, "")
    assert reported(out) == expectations(PROJECT)


@pytest.mark.parametrize(
    ("task", "opened"),
    [
        ("in_a_wrapped_unit_of_work", '`with db.audited_unit_of_work("welcome")`, which opens `transaction.atomic()`'),
        ("through_a_decorated_helper", "`@in_transaction` on `notify`, which opens `transaction.atomic()`"),
        ("in_an_atomic_task", "task class `AtomicTask`, which opens `transaction.atomic()`"),
        ("in_the_transaction_package", "`with transaction.manager`"),
    ],
)
def test_a_message_names_the_wrapper_and_what_it_opens(task: str, opened: str) -> None:
    findings = lint_paths([str(PROJECT)]).findings
    (found,) = [f for f in findings if f.code == "IDM010" and f.task.endswith(task)]
    assert f"runs inside {opened}:" in found.message


def test_the_answer_does_not_depend_on_the_order_of_the_files_nor_on_jobs(tmp_path: pathlib.Path) -> None:
    assert_independent_of_order_and_jobs(PROJECT, tmp_path)
