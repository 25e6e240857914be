"""``capture: log`` on PostgreSQL end to end (a private server with wal_level = logical as
the source, the shared server as the target): rounds under concurrent writers (rolled back
and long transactions, related tables, foreign keys at the target) equal the source; a
follower SIGKILLed again and again then rerun converges with no row version applied twice;
a snapshot hands over to the log; hostile names; three sites (two capturing from their
log, one by triggers) never echo; a partitioned table written through the parent and
straight into partitions. The last two also with every round on the direct path."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

import syncpoint
from syncpoint.ops.channel import Channel
from syncpoint.vendors.postgres.log.pgoutput import lsn_int
from tests.conftest import make_pg
from tests.logpg import make_log_db
from tests.system import roundkit as rk
from tests.system import snapkit as sk

pytestmark = [pytest.mark.spark]
SCHEMA = Path(syncpoint.__file__).parent / "observe" / "status.schema.json"


@pytest.fixture
def pair(log_pg: str) -> Any:
    gens = [make_log_db(log_pg), make_pg()]
    src, dst = (next(g) for g in gens)
    yield src, dst
    for g in gens:
        next(g, None)


def as_log(cfg: Path, *names: str) -> Path:
    data = yaml.safe_load(cfg.read_text())
    for n in names or [k for k, v in data["locations"].items() if v.get("capture")]:
        data["locations"][n]["capture"] = "log"
    cfg.write_text(yaml.safe_dump(data))
    return cfg


def test_writers_while_run_follow_applies_from_the_log(pair: Any, tmp_path: Path) -> None:
    src, dst = pair
    rk.setup_source(src)
    rk.setup_target(dst)  # foreign keys at the target: an orphan could not commit
    cfg = as_log(rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst))
    r = rk.syncpoint(cfg, "install")
    assert r.returncode == 0, r.stderr
    assert src.query("SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal")[0][0] == 0
    follower = rk.start_syncpoint(
        cfg, "run", "--follow", "--interval", "0.5", log=tmp_path / "follow.log"
    )
    try:
        for w in rk.run_writers(src.vendor, src.url, 8, 5):
            w.join()
        rk.wait_until(lambda: rk.same(src, dst)[0], 120, step=2)
        ok, why = rk.same(src, dst)
        assert ok, why
    finally:
        follower.send_signal(signal.SIGTERM)
        rc = follower.wait(120)
    assert rc == 0, (tmp_path / "follow.log").read_text(errors="replace")[-3000:]
    assert rk.duplicates(dst) == []
    assert rk.orphans(dst) == 0
    # the writers did work: every change they committed left its record in the queue (not
    # purged here); the rows left in parent depend on how many the writers deleted again
    assert int(src.query("SELECT count(*) FROM repl_items")[0][0]) > 20
    st = rk.syncpoint(cfg, "status", "--json")
    assert st.returncode == 0, st.stderr
    doc = json.loads(st.stdout)
    jsonschema.validate(doc, json.loads((SCHEMA).read_text("utf-8")))
    assert "log" in doc["capture"]["src"], doc["capture"]
    log = doc["capture"]["src"]["log"]
    assert log["wal_status"] == "reserved" and not log["lost"] and log["retained_bytes"] >= 0
    r = rk.syncpoint(cfg, "uninstall")
    assert r.returncode == 0, r.stderr + r.stdout
    assert src.query("SELECT count(*) FROM pg_replication_slots")[0][0] == 0


def test_follower_killed_again_and_again_then_rerun_converges(pair: Any, tmp_path: Path) -> None:
    src, dst = pair
    rk.setup_source(src)
    rk.setup_target(dst)
    cfg = as_log(rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst))
    assert rk.syncpoint(cfg, "install").returncode == 0
    writers = rk.run_writers(src.vendor, src.url, 4, 8)
    for i in range(3):
        f = rk.start_syncpoint(
            cfg, "run", "--follow", "--interval", "0.2", log=tmp_path / f"f{i}.log"
        )
        time.sleep(2.5 + i)
        f.send_signal(signal.SIGKILL)
        f.wait(60)
    for w in writers:
        w.join()
    # killed between decoding the log into the queue and that transaction's commit
    src.execute("UPDATE parent SET ver = ver || 'k' WHERE id IN (SELECT id FROM parent LIMIT 5)")
    r = rk.syncpoint(cfg, "run", "--once", env={"SYNCPOINT_FAILPOINT": "log_before_commit"})
    assert r.returncode == -9, r.stderr
    r = rk.syncpoint(cfg, "run", "--once")
    assert r.returncode == 0, r.stderr + r.stdout
    ok, why = rk.same(src, dst)
    assert ok, why
    assert rk.duplicates(dst) == []


def test_follower_killed_between_queue_commit_and_feedback_then_rerun(
    pair: Any, tmp_path: Path
) -> None:
    # the follower streams the slot: killed after its queue transaction committed and
    # before the slot was told, the next follower's session gets those transactions again
    src, dst = pair
    rk.setup_source(src)
    rk.setup_target(dst)
    cfg = as_log(rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst))
    assert rk.syncpoint(cfg, "install").returncode == 0
    writers = rk.run_writers(src.vendor, src.url, 2, 4)
    f = rk.start_syncpoint(
        cfg, "run", "--follow", "--interval", "0.2", log=tmp_path / "f0.log",
        env={"SYNCPOINT_FAILPOINT": "log_before_feedback@2", "SYNCPOINT_PG_LOG_READER": "stream"},
    )  # fmt: skip
    assert f.wait(120) == -9, (tmp_path / "f0.log").read_text(errors="replace")[-3000:]
    for w in writers:
        w.join()
    stored, flushed = src.query(
        "SELECT decoded::text, confirmed_flush_lsn::text FROM repl_log_state, pg_replication_slots"
    )[0]
    assert lsn_int(flushed) < lsn_int(stored)  # stored, the slot not told
    f = rk.start_syncpoint(cfg, "run", "--follow", "--interval", "0.2", log=tmp_path / "f1.log")
    try:
        rk.wait_until(lambda: rk.same(src, dst)[0], 120, step=1)
    finally:
        f.send_signal(signal.SIGTERM)
        assert f.wait(120) == 0, (tmp_path / "f1.log").read_text(errors="replace")[-3000:]
    ok, why = rk.same(src, dst)
    assert ok, why
    assert rk.duplicates(dst) == []
    for t in ("parent", "child"):
        assert src.query(f"SELECT count(*) FROM {t}") == dst.query(f"SELECT count(*) FROM {t}")


def test_snapshot_hands_over_to_the_log(pair: Any, tmp_path: Path, spark: Any) -> None:
    src, dst = pair
    sk.seed(src, 2000)
    ch = Channel.from_file(as_log(sk.config(tmp_path / "sp.yaml", {"src": src}, dst)))
    ch.install()
    procs = sk.start_writers(src.vendor, src.url, 2, 2000, seconds=900)
    try:
        ch.snapshot(spark=spark)
    finally:
        sk.stop(procs)
    ch.run(once=True, spark=spark)
    ok, detail = sk.same(src, dst)
    assert ok, detail
    assert sk.keys_unique(dst)


# rounds netted by the driver (the default for rounds this small), or every round on the
# direct path (records copied from the queue the log is decoded into, netted at the target)
ROUND_MAX = {"driver": 20_000, "direct": 0}


@pytest.mark.parametrize("path", list(ROUND_MAX))
def test_hostile_names_and_a_partitioned_table(
    pair: Any, tmp_path: Path, spark: Any, path: str
) -> None:
    src, dst = pair
    ddl = [
        'CREATE SCHEMA "Odd ""s"""',
        'CREATE TABLE "Odd ""s"""."Tab; DROP TABLE x --" ("Id" integer PRIMARY KEY, '
        '"na me" text, "Ünï" numeric(8,2))',
        "CREATE TABLE ev (id integer, day date, v text, PRIMARY KEY (id, day)) "
        "PARTITION BY RANGE (day)",
        "CREATE TABLE ev_a PARTITION OF ev FOR VALUES FROM ('2024-01-01') TO ('2024-07-01')",
        "CREATE TABLE ev_b PARTITION OF ev FOR VALUES FROM ('2024-07-01') TO ('2025-01-01')",
    ]
    src.execute(*ddl)
    dst.execute(ddl[0])
    hostile = 'Odd "s".Tab; DROP TABLE x --'
    data = {
        "channel": "odd",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": "log"},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [
            {"name": hostile, "snapshot": "none"},
            {"name": "public.ev", "snapshot": "none"},
        ],
        "spark": {
            "master": "local[2]",
            "conf": {"spark.sql.shuffle.partitions": "2"},
            "driver_round_max": ROUND_MAX[path],
        },
    }
    cfg = tmp_path / "sp.yaml"
    cfg.write_text(yaml.safe_dump(data))
    ch = Channel.from_file(cfg)
    ch.install()
    src.execute(
        'INSERT INTO "Odd ""s"""."Tab; DROP TABLE x --" VALUES (1, \'a\', 1.5), (2, \'b\', 2)',
        "INSERT INTO ev VALUES (1, '2024-02-01', 'parent'), (2, '2024-08-01', 'parent')",
        "INSERT INTO ev_a VALUES (3, '2024-03-01', 'partition')",
        "INSERT INTO ev_b VALUES (4, '2024-09-01', 'partition')",
        "UPDATE ev SET day = '2024-10-01' WHERE id = 1",  # moves to another partition
        "UPDATE ev_b SET v = 'changed' WHERE id = 2",
    )
    report = ch.run(once=True, spark=spark)
    assert {r["engine"] for r in report.rounds} == {"spark" if path == "direct" else "driver"}
    want = [
        (1, "2024-10-01", "parent"),
        (2, "2024-08-01", "changed"),
        (3, "2024-03-01", "partition"),
        (4, "2024-09-01", "partition"),
    ]
    got = [(i, str(d), v) for i, d, v in dst.query("SELECT id, day, v FROM ev ORDER BY id")]
    assert got == want
    assert dst.query('SELECT "Id", "na me" FROM "Odd ""s"""."Tab; DROP TABLE x --" ORDER BY 1') == [
        (1, "a"),
        (2, "b"),
    ]
    # a partition's TRUNCATE is not sent through the root: its rows are deleted instead
    src.execute("TRUNCATE ev_b")
    ch.run(once=True, spark=spark)
    got = [(i, str(d), v) for i, d, v in dst.query("SELECT id, day, v FROM ev ORDER BY id")]
    assert got == [(3, "2024-03-01", "partition")]
    # a partition made later is covered too
    src.execute(
        "CREATE TABLE ev_c PARTITION OF ev FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')",
        "INSERT INTO ev_c VALUES (5, '2025-02-01', 'new')",
        "TRUNCATE ev_a",
    )
    ch.run(once=True, spark=spark)
    got = [(i, str(d), v) for i, d, v in dst.query("SELECT id, day, v FROM ev ORDER BY id")]
    assert got == [(5, "2025-02-01", "new")]


@pytest.mark.parametrize("path", list(ROUND_MAX))
def test_three_sites_two_from_their_log_never_echo(
    log_pg: str, tmp_path: Path, spark: Any, path: str
) -> None:
    gens = [make_log_db(log_pg), make_log_db(log_pg), make_pg()]
    x, y, z = (next(g) for g in gens)
    try:
        for db in (x, y, z):
            rk.setup_source(db)
        kinds = {"x": "log", "y": "log", "z": True}  # z captures with triggers
        data = {
            "channel": "mesh",
            "application": "sync",
            "locations": {
                n: {"url": db.url, "capture": kinds[n], "integrate": True}
                for n, db in (("x", x), ("y", y), ("z", z))
            },
            "tables": [{"name": "parent", "snapshot": "none"}],
            "spark": {
                "master": "local[2]",
                "conf": {"spark.sql.shuffle.partitions": "2"},
                "driver_round_max": ROUND_MAX[path],
            },
        }
        (tmp_path / "mesh.yaml").write_text(yaml.safe_dump(data))
        ch = Channel.from_file(tmp_path / "mesh.yaml")
        ch.install()
        x.execute("INSERT INTO parent (id, ver) VALUES (1, 'x1')")
        y.execute("INSERT INTO parent (id, ver) VALUES (2, 'y2')")
        z.execute("INSERT INTO parent (id, ver) VALUES (3, 'z3')")
        ch.run(once=True, spark=spark)
        y.execute("UPDATE parent SET ver = 'y1' WHERE id = 1")
        for _ in range(3):
            ch.run(once=True, spark=spark)
        for db in (x, y, z):
            assert db.query("SELECT id, ver FROM parent ORDER BY id") == [
                (1, "y1"),
                (2, "y2"),
                (3, "z3"),
            ]
            # each change once at every site, marked with where it was made: none came back
            assert db.query(
                "SELECT dbid, count(*) FROM repl_items GROUP BY dbid ORDER BY dbid"
            ) == [("x", 1), ("y", 2), ("z", 1)]
        report = ch.run(once=True, spark=spark)
        assert report.changes == 0 and not report.errors
    finally:
        for g in gens:
            next(g, None)
