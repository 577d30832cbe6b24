"""A run that has a file swapped under it ends cleanly.

A checked file replaced by a FIFO after discovery is one ``E902`` line,
never a hang.
"""

from __future__ import annotations

import os
import pathlib
from typing import Iterator

import pytest
from conftest import RunCli

import idemlint.engine
from idemlint.reading import FileTooLarge, NotRegularFile, read_regular

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and POSIX signals")


# --- a file swapped for a FIFO between discovery and reading -----------------

TASK = """\
import requests
from celery import shared_task

from helpers import audit

@shared_task
def notify(order_id):
    audit(order_id)
    requests.post('https://partner.example/orders', json={'id': order_id})
"""
HELPERS = """\
import requests

def audit(order_id):
    requests.post('https://audit.example/', json={'id': order_id})
"""


@posix_only
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_replaced_by_a_fifo_after_discovery_is_one_line(
    tmp_path: pathlib.Path,
    run_cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
    alarm: None,
    jobs: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tasks.py").write_text(TASK)
    (tmp_path / "helpers.py").write_text(HELPERS)
    discover = idemlint.engine.discover

    def discover_then_swap(*arguments: object, **options: object) -> Iterator[object]:
        for item in discover(*arguments, **options):  # type: ignore[arg-type]
            yield item
            if item == "./helpers.py":  # decided on as a regular file, now a FIFO
                os.unlink("helpers.py")
                os.mkfifo("helpers.py")

    monkeypatch.setattr(idemlint.engine, "discover", discover_then_swap)
    status, out, err = run_cli("check", "--no-cache", "--jobs", jobs, ".")
    assert status == 2
    lines = out.splitlines()
    assert "./helpers.py:1:1: E902 not a regular file" in lines
    # The task is still analysed (its own finding), the FIFO read by no one.
    assert [line.split(": ")[1].split()[0] for line in lines] == ["E902", "IDM002"]
    assert err == ""


@posix_only
def test_reading_refuses_fifos_and_devices_without_blocking(
    tmp_path: pathlib.Path, alarm: None
) -> None:
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile):
        read_regular(str(fifo))  # no writer: a blocking open would wait forever
    if os.path.exists("/dev/zero"):
        with pytest.raises(NotRegularFile):
            read_regular("/dev/zero", limit=1024)  # would never end


def test_reading_stops_at_the_limit(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 11)
    assert read_regular(str(path), limit=11) == b"x" * 11
    with pytest.raises(FileTooLarge):
        read_regular(str(path), limit=10)
    with pytest.raises(IsADirectoryError):
        read_regular(str(tmp_path))
