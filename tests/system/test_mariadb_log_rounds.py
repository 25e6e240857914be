"""Rounds from a MariaDB location captured from its binary log (capture: log), on a private
MariaDB with the binary log on: writers with rolled-back and long transactions, a run killed
between the drain's insert and its commit, the consistent cut into a PostgreSQL target with
foreign keys; a snapshot hand-over of a table with hostile names into MariaDB; a purged
binary log that stops the rounds until a snapshot, which brings the target back equal."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pymysql
import pytest
import yaml

from syncpoint.errors import StreamIdentityError, TableStopped
from syncpoint.ops.channel import Channel
from tests.conftest import Db
from tests.private_mariadb import binlog_head, tables_logged
from tests.system import roundkit as rk

pytestmark = [pytest.mark.spark]


def log_config(path: Path, src: Any, dst: Any, **kw: Any) -> Path:
    rk.write_config(path, {"src": src}, dst, **kw)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["locations"]["src"]["capture"] = "log"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_writers_a_killed_drain_and_the_cut_into_postgres(
    log_maria_db: Any, pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = log_maria_db, pg_db
    rk.setup_source(src)
    rk.setup_target(dst)  # foreign keys at the target: an orphan could not commit
    cfg = log_config(tmp_path / "sp.yaml", src, dst)
    ch = Channel.from_file(cfg)
    ch.install()
    assert src.query("SELECT COUNT(*) FROM information_schema.TRIGGERS "
                     "WHERE TRIGGER_NAME LIKE 'repl%'") == [(0,)]  # fmt: skip
    writers = rk.run_writers("mariadb", src.url, 4, 6)
    time.sleep(2)
    # a run killed after the drain wrote its records, before it committed them
    killed = rk.syncpoint(cfg, "run", "--once", env={"SYNCPOINT_FAILPOINT": "log_before_commit"})
    assert killed.returncode == -9, killed.stderr[-2000:]
    orphans = 0
    while any(w.is_alive() for w in writers):
        ch.run(once=True, spark=spark)
        orphans += rk.orphans(dst)
    for w in writers:
        w.join()
    ch.run(once=True, spark=spark)
    ok, why = rk.same(src, dst)
    assert ok, why
    assert orphans == 0 and rk.duplicates(dst) == []
    # the writers did work (rows they delete leave their records in the queue, not purged)
    assert int(src.query("SELECT count(*) FROM repl_items")[0][0]) > 20
    st = rk.syncpoint(cfg, "status", "--json")
    assert st.returncode == 0, st.stderr
    doc = json.loads(st.stdout)
    tables = doc["integrate"]["cen"]["tables"]
    assert [(t["backlog"], t["stopped"]) for t in tables] == [(0, None), (0, None)]
    held = doc["capture"]["src"]["log"]  # the binary log kept for capture, measured
    assert held["retained_bytes"] >= 0 and not held["lost"]
    assert not [w for w in doc["warnings"] if w["kind"].startswith("log_")]


@pytest.mark.parametrize("binlog_admin", [True, False], ids=["binlog_admin", "without"])
def test_own_writes_stay_out_of_the_binary_log_with_binlog_admin_rounds_converge_either_way(
    binlog_admin: bool, log_maria_db: Any, pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = log_maria_db, pg_db
    rk.setup_source(src)
    rk.setup_target(dst)
    cfg = log_config(tmp_path / "sp.yaml", src, dst)
    Channel.from_file(cfg).install()  # by root: its stored function needs SUPER here
    user = f"u{src.name[-8:]}"
    if not binlog_admin:  # runs as a user that may not set sql_log_bin
        src.execute(
            f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'",
            f"GRANT ALL ON `{src.name}`.* TO '{user}'@'%'",
            f"GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO '{user}'@'%'",
        )
        runner = Db("mariadb", src.url.replace("root@", f"{user}:pw@"), src.name)
        cfg = log_config(tmp_path / "sp.yaml", runner, dst)
    said = (
        "src: queue writes kept out of the binary log: yes (ALL PRIVILEGES)"
        if binlog_admin
        else f"src: queue writes kept out of the binary log: no: grant BINLOG ADMIN to '{user}'@'%'"
    )
    checked = rk.syncpoint(cfg, "validate")
    assert checked.returncode == 0 and said in checked.stdout, checked.stdout + checked.stderr
    planned = rk.syncpoint(cfg, "plan")
    assert said.replace("src: ", "-- ") in planned.stdout, planned.stdout + planned.stderr
    port = int(src.url.rsplit(":", 1)[1].split("/")[0])
    admin = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
    try:
        since = binlog_head(admin)
        ch = Channel.from_file(cfg)
        writers = rk.run_writers("mariadb", src.url, 2, 3)
        while any(w.is_alive() for w in writers):
            ch.run(once=True, spark=spark)
        for w in writers:
            w.join()
        ch.run(once=True, spark=spark)
        ok, why = rk.same(src, dst)
        assert ok, why
        assert ch.purge()["src"]["purged"] > 0
        logged = tables_logged(admin, src.name, since)
        assert logged.get("parent", 0) > 5  # the writers' transactions, read back
        ours = sorted(t for t in logged if t.startswith("repl_"))
        if binlog_admin:
            assert ours == []  # no drain, tick or purge of syncpoint's in the binary log
        else:
            assert "repl_items" in ours  # as before: queued and purged rows are logged
    finally:
        admin.close()
        if not binlog_admin:
            src.execute(f"DROP USER '{user}'@'%'")


HOSTILE = 'Ord`er ☃ "x"'
HOSTILE_DDL = (
    'CREATE TABLE `Ord``er ☃ "x"` (`i d` BIGINT PRIMARY KEY, `we"ird` TEXT, '
    "`ü``q` DECIMAL(12,2), ver VARCHAR(40) NOT NULL) ENGINE=InnoDB"
)
HOSTILE_Q = '`Ord``er ☃ "x"`'


def _hostile_rows(db: Any) -> list[tuple[Any, ...]]:
    return rk.rows(db, HOSTILE_Q, '`i d`, `we"ird`, `ü``q`, ver')


def test_snapshot_hand_over_hostile_names_and_a_purged_binlog(
    log_maria_db: Any, maria_db: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = log_maria_db, maria_db
    src.execute(HOSTILE_DDL)
    src.execute(
        f"INSERT INTO {HOSTILE_Q} SELECT seq, CONCAT('r', seq, ' \"q\" ✓'), seq / 4, "
        "CONCAT('v', seq) FROM seq_1_to_60"
    )
    cfg = log_config(tmp_path / "sp.yaml", src, dst, tables=[HOSTILE], snapshot="required")
    ch = Channel.from_file(cfg)
    ch.install()
    src.execute(
        f"UPDATE {HOSTILE_Q} SET ver = 'changed' WHERE `i d` <= 10",
        f"DELETE FROM {HOSTILE_Q} WHERE `i d` BETWEEN 11 AND 20",
    )
    ch.snapshot(spark=spark)
    src.execute(f"INSERT INTO {HOSTILE_Q} VALUES (1000, 'after', 1.25, 'new')")
    ch.run(once=True, spark=spark)
    assert _hostile_rows(dst) == _hostile_rows(src)
    # the binary log purged past capture's position: rounds stop, with snapshot as the way
    src.execute(f"INSERT INTO {HOSTILE_Q} VALUES (1001, 'lost', 0, 'x')")
    _purge_all_but_the_newest(src)
    src.execute(f"UPDATE {HOSTILE_Q} SET ver = 'later' WHERE `i d` = 1")
    with pytest.raises(TableStopped, match="syncpoint snapshot"):
        ch.run(once=True, spark=spark)
    with pytest.raises(StreamIdentityError):
        ch.run(once=True, spark=spark)  # never skipped: the old positions are refused
    ch.snapshot(restart=True, spark=spark)
    ch.run(once=True, spark=spark)
    assert _hostile_rows(dst) == _hostile_rows(src)


def _purge_all_but_the_newest(db: Any) -> None:
    conn = db.connect(autocommit=True)
    cur = conn.cursor()
    for _ in range(50):  # a file stays until InnoDB has checkpointed its transactions
        cur.execute("FLUSH BINARY LOGS")
        cur.execute("SHOW MASTER STATUS")
        current = cur.fetchone()[0]
        cur.execute(f"PURGE BINARY LOGS TO '{current}'")
        cur.execute("SHOW BINARY LOGS")
        if len(cur.fetchall()) == 1:
            break
        time.sleep(0.2)
    conn.close()


def test_two_sites_both_ways_never_echo(
    log_maria_db: Any, pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    x, y = log_maria_db, pg_db
    for db in (x, y):
        rk.setup_source(db)
    data = {
        "channel": "pair",
        "application": "sync",
        "locations": {
            "x": {"url": x.url, "capture": "log", "integrate": True},
            "y": {"url": y.url, "capture": True, "integrate": True},
        },
        "tables": [{"name": "parent", "snapshot": "none"}, {"name": "child", "snapshot": "none"}],
        "sync_groups": {"g": ["parent", "child"]},
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    (tmp_path / "pair.yaml").write_text(yaml.safe_dump(data))
    ch = Channel.from_file(tmp_path / "pair.yaml")
    ch.install()
    x.execute("INSERT INTO parent (id, ver) VALUES (1, 'x1')")
    y.execute("INSERT INTO parent (id, ver) VALUES (2, 'y2')")
    ch.run(once=True, spark=spark)
    y.execute("UPDATE parent SET ver = 'y1' WHERE id = 1")
    ch.run(once=True, spark=spark)
    ch.run(once=True, spark=spark)
    want = [(1, "y1"), (2, "y2")]
    for db in (x, y):
        got = [(int(i), str(v)) for i, v in db.query("SELECT id, ver FROM parent ORDER BY id")]
        assert got == want, db.vendor

    def marks() -> list[tuple[Any, ...]]:
        # x's queue: its own change, and y's two applied there, marked with y as origin
        return x.query("SELECT dbid, count(*) FROM repl_items WHERE tablename = 'parent' "
                       "GROUP BY dbid ORDER BY dbid")  # fmt: skip

    assert marks() == [("x", 1), ("y", 2)]
    report = ch.run(once=True, spark=spark)
    assert report.changes == 0 and not report.errors and not report.stopped
    assert marks() == [("x", 1), ("y", 2)]  # nothing came back
