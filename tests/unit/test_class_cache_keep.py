"""The class archives kept on disk: the ones used last, so that two installations of
syncpoint on one machine (each with its own class path, so its own archive) do not remove
each other's at every command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from syncpoint.spark import classcache


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])  # noqa: S603
    proc.wait()
    return proc.pid


def test_a_new_archive_keeps_the_archives_used_last(tmp_path: Path) -> None:
    folder = tmp_path / "syncpoint"
    folder.mkdir()
    for age, name in enumerate(["a", "b", "c", "d"]):  # a used last, d longest ago
        path = folder / f"spark-{name}.jsa"
        path.write_bytes(b"x")
        os.utime(path, (1_000_000 - age * 1000, 1_000_000 - age * 1000))
    tmp, lock = folder / "spark-new.1.tmp", folder / "spark-new.lock"
    tmp.write_bytes(b"archive")
    lock.write_text("1")
    classcache.finish(_dead_pid(), tmp, folder / "spark-new.jsa", lock)
    kept = sorted(p.name for p in folder.iterdir())
    assert kept == ["spark-a.jsa", "spark-b.jsa", "spark-new.jsa"]
    assert (folder / "spark-new.jsa").read_bytes() == b"archive"


def test_starting_with_an_archive_marks_it_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache = classcache.ClassCache({})
    cache.folder.mkdir(parents=True)
    cache.archive.write_bytes(b"x")
    os.utime(cache.archive, (1_000_000, 1_000_000))
    assert cache.java_options().startswith(f"-XX:SharedArchiveFile={cache.archive}")
    assert cache.archive.stat().st_mtime > 1_000_000
