"""The driver JVM's class archive (``spark.class_cache``), through real commands: the first
``run`` that starts Spark has its JVM write the archive as it exits, and a detached process
puts it in place; the next ``run`` starts its JVM with it; a damaged archive is ignored
(rows are still applied); ``class_cache: false`` neither reads nor writes one. The launch
commands are read from spark-submit's own output (``SPARK_PRINT_LAUNCH_COMMAND``)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.system import roundkit as rk

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def channel(tmp: Path, cache: bool) -> Path:
    src, dst = tmp / "src.db", tmp / "dst.db"
    data = {
        "channel": "cc",
        "application": "wh",
        "locations": {
            "src": {"url": f"sqlite:///{src}", "capture": True},
            "cen": {"url": f"sqlite:///{dst}", "integrate": True},
        },
        "tables": [{"name": "t", "snapshot": "none"}],
        # every round through Spark, so that each run starts a JVM
        "spark": {"master": "local[1]", "driver_round_max": 0, "class_cache": cache},
    }
    path = tmp / "cc.yaml"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run(cfg: Path, cache_home: Path, n: int) -> str:
    import sqlite3

    src = sqlite3.connect(cfg.parent / "src.db")
    src.execute(f"INSERT INTO t VALUES ({n}, 'v{n}')")
    src.commit()
    src.close()
    env = {"XDG_CACHE_HOME": str(cache_home), "SPARK_PRINT_LAUNCH_COMMAND": "1"}
    r = rk.syncpoint(cfg, "--verbose", "run", "--once", env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    dst = sqlite3.connect(cfg.parent / "dst.db")
    try:
        assert dst.execute("SELECT count(*) FROM t WHERE id = ?", (n,)).fetchone() == (1,)
    finally:
        dst.close()
    return r.stdout + r.stderr


def prepare(tmp: Path, cache: bool) -> Path:
    import sqlite3

    src = sqlite3.connect(tmp / "src.db")
    src.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    src.commit()
    src.close()
    cfg = channel(tmp, cache)
    r = rk.syncpoint(cfg, "install")
    assert r.returncode == 0, r.stderr
    return cfg


def archives(folder: Path) -> list[Path]:
    return sorted(folder.glob("syncpoint/*.jsa"))


@pytest.mark.long(100)
def test_the_first_run_writes_the_archive_and_the_next_starts_with_it(tmp_path: Path) -> None:
    cfg, home = prepare(tmp_path, True), tmp_path / "cache"
    out = run(cfg, home, 1)
    assert "-XX:ArchiveClassesAtExit=" in out, out[-3000:]
    deadline = time.monotonic() + 180
    while not archives(home):  # the JVM writes it after the command has ended
        assert time.monotonic() < deadline, sorted(home.rglob("*"))
        time.sleep(1)
    (archive,) = archives(home)
    time.sleep(1)
    assert sorted(p.suffix for p in (home / "syncpoint").iterdir()) == [".jsa"]  # no lock, no tmp

    out = run(cfg, home, 2)
    assert f"-XX:SharedArchiveFile={archive}" in out, out[-3000:]
    assert "ArchiveClassesAtExit" not in out

    # damaged: the JVM goes on without it, and the rows still arrive
    archive.chmod(0o644)
    archive.write_bytes(b"not an archive" * 1000)
    out = run(cfg, home, 3)
    assert f"-XX:SharedArchiveFile={archive}" in out


@pytest.mark.long(40)
def test_class_cache_false_reads_and_writes_none(tmp_path: Path) -> None:
    cfg, home = prepare(tmp_path, False), tmp_path / "cache"
    out = run(cfg, home, 1)
    assert "ArchiveClassesAtExit" not in out and "SharedArchiveFile" not in out
    assert "Spark Command" in out  # the launch command was printed: the check above means it
    time.sleep(2)
    assert not (home / "syncpoint").exists()
