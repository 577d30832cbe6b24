"""Files idemlint writes are replaced in one rename, never left half written."""

from __future__ import annotations

import os
import pathlib

import pytest

from idemlint.atomic import temporary_pattern, write_atomic


def test_replaces_content_and_leaves_no_temporary(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "report.txt"
    target.write_text("old\n")
    write_atomic(str(target), "new\n")
    assert target.read_text() == "new\n"
    assert sorted(os.listdir(tmp_path)) == ["report.txt"]


def test_interrupted_write_keeps_the_old_file(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "baseline.json"
    target.write_text("old\n")

    def interrupted(source: str, destination: str, **dir_fds: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(str(target), b"new\n")
    assert target.read_text() == "old\n"
    assert sorted(os.listdir(tmp_path)) == ["baseline.json"]


def test_new_files_get_the_usual_permissions_and_existing_ones_keep_theirs(
    tmp_path: pathlib.Path,
) -> None:
    umask = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.sarif"
        write_atomic(str(fresh), "{}")
        assert fresh.stat().st_mode & 0o777 == 0o644
        kept = tmp_path / "kept.json"
        kept.write_text("{}")
        kept.chmod(0o640)
        write_atomic(str(kept), "[]")
        assert kept.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(umask)


def test_a_link_at_the_target_is_replaced_not_written_through(tmp_path: pathlib.Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    outside.chmod(0o600)
    os.utime(outside, (1, 1))
    target = tmp_path / "dir" / "entry.json"
    target.parent.mkdir()
    target.symlink_to(outside)
    umask = os.umask(0o022)
    try:
        write_atomic(str(target), "new\n")
    finally:
        os.umask(umask)
    assert not target.is_symlink() and target.read_text() == "new\n"
    assert outside.read_text() == "precious\n" and outside.stat().st_mtime == 1
    assert target.stat().st_mode & 0o777 == 0o644  # the link's target lends it nothing
    assert sorted(os.listdir(target.parent)) == ["entry.json"]


def test_temporary_names_have_the_shape_the_cache_recognises(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = []

    def recording(source: str, destination: str, **dir_fds: int) -> None:
        seen.append(source)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", recording)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(str(tmp_path / "entry.json"), "x")
    assert temporary_pattern(r"entry\.json").fullmatch(seen[0])
