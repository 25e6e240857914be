"""The guarantees with a MariaDB source captured from its binary log (``capture: log``), built
as their trigger versions are and with their helpers: eight writers (long and rolled-back
transactions, related tables, foreign keys at the target) while ``run --follow`` is
SIGKILLed again and again and run again; a three-site mesh with two sites captured from
the binary log (two databases of one server) and one by triggers; a snapshot taken under
writers that hands over to the log. DDL under writers: tests/system/test_ddl_live.py
(``mariadb-log``)."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.ops.channel import Channel
from tests.conftest import make_pg
from tests.private_mariadb import make_log_maria_db
from tests.system import roundkit as rk
from tests.system import snapkit as sk
from tests.system.test_concurrency_rounds import Checker, converge, status
from tests.system.test_three_sites import items, parents

pytestmark = [pytest.mark.spark]


def as_log(cfg: Path, *names: str) -> Path:
    """The config with the named locations (every capturing one by default) on the log."""
    data = yaml.safe_load(cfg.read_text(encoding="utf-8"))
    for n in names or [k for k, v in data["locations"].items() if v.get("capture")]:
        data["locations"][n]["capture"] = "log"
    cfg.write_text(yaml.safe_dump(data), encoding="utf-8")
    return cfg


def test_eight_writers_while_run_follow_is_killed_again_and_again(
    log_maria_db: Any, maria_db: Any, tmp_path: Path
) -> None:
    src, dst = log_maria_db, maria_db
    rk.setup_source(src)
    rk.setup_target(dst)  # foreign keys at the target: an orphan could not commit
    cfg = as_log(rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst))
    r = rk.syncpoint(cfg, "install")
    assert r.returncode == 0, r.stderr
    checker = Checker(dst)
    checker.start()
    writers = rk.run_writers(src.vendor, src.url, 8, 14)
    follower, rc = None, None
    try:
        for i in range(3):  # killed wherever it is: draining, applying, committing, idle
            killed = rk.start_syncpoint(
                cfg, "run", "--follow", "--interval", "0.3", log=tmp_path / f"killed{i}.log"
            )
            time.sleep(3 + 1.5 * i)
            killed.send_signal(signal.SIGKILL)
            assert killed.wait(60) == -signal.SIGKILL
        follower = rk.start_syncpoint(
            cfg, "run", "--follow", "--interval", "0.5", log=tmp_path / "follow.log"
        )
        for w in writers:
            w.join()
        ok, why = converge(src, dst)
        assert ok, why
    finally:
        checker.done.set()
        if follower is not None:
            follower.send_signal(signal.SIGTERM)
            rc = follower.wait(120)
    assert rc == 0, (tmp_path / "follow.log").read_text(errors="replace")[-3000:]
    assert checker.samples > 10 and checker.orphans == 0
    assert rk.duplicates(dst) == []  # no row version applied twice
    # the writers did work: every change they committed left its record in the queue (not
    # purged here); the rows left in parent depend on how many the writers deleted again
    assert int(src.query("SELECT count(*) FROM repl_items")[0][0]) > 20
    tables = status(cfg)["tables"]
    assert [(t["backlog"], t["stopped"]) for t in tables] == [(0, None), (0, None)]


def test_three_site_mesh_two_from_the_binary_log_never_echoes(
    log_maria: str, tmp_path: Path, spark: Any
) -> None:
    gens = [make_log_maria_db(log_maria), make_log_maria_db(log_maria), make_pg()]
    x, y, z = (next(g) for g in gens)  # x, y: one binary log, read for each database
    try:
        for db in (x, y, z):
            rk.setup_source(db)
        kinds = {"x": "log", "y": "log", "z": True}
        data = {
            "channel": "mesh",
            "application": "sync",
            "locations": {
                n: {"url": db.url, "capture": kinds[n], "integrate": True}
                for n, db in (("x", x), ("y", y), ("z", z))
            },
            "tables": [
                {"name": "parent", "snapshot": "none"},
                {"name": "child", "snapshot": "none"},
            ],
            "sync_groups": {"g": ["parent", "child"]},
            "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
        }
        (tmp_path / "mesh.yaml").write_text(yaml.safe_dump(data))
        ch = Channel.from_file(tmp_path / "mesh.yaml")
        ch.install()
        x.execute("INSERT INTO parent (id, ver) VALUES (1, 'x1')")
        y.execute(
            "INSERT INTO parent (id, ver) VALUES (2, 'y2')",
            "INSERT INTO child (id, parent_id, ver) VALUES (20, 2, 'y20')",
        )
        z.execute("INSERT INTO parent (id, ver) VALUES (3, 'z3')")
        ch.run(once=True, spark=spark)
        for db in (x, y, z):
            assert parents(db) == [(1, "x1"), (2, "y2"), (3, "z3")], db.vendor
        # a change made at y to a row that came from x travels on with y as its origin
        y.execute("UPDATE parent SET ver = 'y1' WHERE id = 1")
        z.execute("DELETE FROM child WHERE id = 20", "DELETE FROM parent WHERE id = 2")
        for _ in range(3):
            ch.run(once=True, spark=spark)
        for db in (x, y, z):
            assert parents(db) == [(1, "y1"), (3, "z3")], db.name
            assert db.query("SELECT count(*) FROM child") == [(0,)], db.name
            # each change once at every site, marked with where it was made: none came back
            assert items(db) == [("x", 1), ("y", 3), ("z", 3)], db.name
        report = ch.run(once=True, spark=spark)
        assert report.changes == 0 and not report.errors and not report.stopped
        assert [items(db) for db in (x, y, z)] == [[("x", 1), ("y", 3), ("z", 3)]] * 3
    finally:
        for g in gens:
            next(g, None)


def test_snapshot_under_writers_hands_over_to_the_binary_log(
    log_maria_db: Any, pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = log_maria_db, pg_db
    sk.seed(src, 3000)
    ch = Channel.from_file(as_log(sk.config(tmp_path / "sp.yaml", {"src": src}, dst)))
    ch.install()
    # the writers keep going for the whole copy, and are stopped (mid-transaction, too) after it
    procs = sk.start_writers(src.vendor, src.url, 3, 3000, seconds=900)
    try:
        report = ch.snapshot(spark=spark)
        ch.run(once=True, spark=spark)  # rounds from the hand-over, writers still writing
    finally:
        sk.stop(procs)
    ch.run(once=True, spark=spark)
    ok, detail = sk.same(src, dst)
    assert ok, detail
    assert sk.keys_unique(dst)
    (row,) = report["tables"]
    assert row["state"] == "done" and row["rows_copied"] > 2000
    assert src.query("SELECT count(*) FROM information_schema.TRIGGERS "
                     "WHERE TRIGGER_SCHEMA = DATABASE()") == [(0,)]  # fmt: skip
