"""Receive stamps through real runs (docs/guarantees.md §4, issue "Receive stamps").

Three capture locations of three vendors feed one integrate location. The capture clocks
are injected (``SYNCPOINT_FAKE_CLOCK``) to replay the source text's situation: one location
integrated at 7:00 and again at 9:00 while a transaction there was still open (its read
raced with capture), one last integrated on an earlier day, one at 8:30. Then runs killed
around the stamp update show the stamp is never ahead of the data.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.config import TableConfig
from syncpoint.core.stamps import FAKE_CLOCK_ENV
from syncpoint.ops.channel import Channel
from syncpoint.vendors import of_url
from syncpoint.vendors.stampstore import StampStore
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system import roundkit as rk

DDL = {
    "postgres": "CREATE TABLE t (id bigint PRIMARY KEY, v text)",
    "mariadb": "CREATE TABLE t (id bigint PRIMARY KEY, v text) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)",
}
DAY = "2026-03-10"


def config(path: Path, sources: dict[str, Any], target: Any) -> Path:
    data = {
        "channel": "shop",
        "application": "wh",
        "locations": {
            **{n: {"url": db.url, "capture": True} for n, db in sources.items()},
            "cen": {"url": target.url, "integrate": True},
        },
        "tables": [{"name": "t", "snapshot": "none"}],
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def stin(target: Any) -> dict[str, Any]:
    """The leader/trailer row at cen, with each location's stamp for messages."""
    store = StampStore(target.vendor, "repl_", "shop", "cen")
    conn = target.connect(autocommit=False)
    try:
        row = store.row(conn)
        assert row is not None
        row["detail"] = {k: str(v[0]) for k, v in store.read(conn).items()}
        return row
    finally:
        conn.close()


def run_until_stamped(ch: Channel, spark: Any, loc: str, seconds: float = 120) -> None:
    """Run rounds until ``loc`` has a stamp. MariaDB's list of open transactions covers the
    whole server, not one database: while the suite's other test process has a writing
    transaction open there (its concurrency tests hold some for seconds), a MariaDB tick
    counts as raced and its stamp waits (the conservative reading). A location whose ticks
    never stamp still fails the test."""
    deadline = time.monotonic() + seconds
    while True:
        ch.run(once=True, spark=spark)
        stamped = ch.stamps_status()["cen"]["locations"][loc]["cap_begin"] is not None
        if stamped or time.monotonic() > deadline:
            return
        time.sleep(0.5)


def fake(monkeypatch: pytest.MonkeyPatch, **times: str) -> None:
    monkeypatch.setenv(FAKE_CLOCK_ENV, json.dumps({k: f"{v}+00:00" for k, v in times.items()}))


def test_leader_and_trailer_of_the_source_text(
    tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    gens = [make_pg(), make_mariadb(), make_sqlite(tmp_path), make_pg()]
    a, b, c, cen = (next(g) for g in gens)
    try:
        for db in (a, b, c):
            db.execute(DDL[db.vendor])
        ch = Channel.from_file(config(tmp_path / "sp.yaml", {"a": a, "b": b, "c": c}, cen))
        ch.install()
        a.execute("INSERT INTO t VALUES (1, 'a1')")
        b.execute("INSERT INTO t VALUES (2, 'b2')")
        c.execute("INSERT INTO t VALUES (3, 'c3')")

        fake(monkeypatch, a=f"{DAY} 07:00:00", b="2026-03-09 18:00:00", c=f"{DAY} 08:30:00")
        run_until_stamped(ch, spark, "b")  # b is MariaDB
        row = stin(cen)
        assert (row["leader_cap_loc"], str(row["leader_cap_begin"])) == (
            "c",
            f"{DAY} 08:30:00+00:00",
        )
        assert (row["trailer_cap_loc"], str(row["trailer_cap_begin"])) == (
            "b",
            "2026-03-09 18:00:00+00:00",
        )
        assert row["trailer_cap_begin_int"] == 1773079200

        # 9:00 at a, while a transaction there is still open: the read races with capture
        a.execute("INSERT INTO t VALUES (4, 'a4 committed before the run')")
        racing = a.connect(autocommit=False)
        racing.execute("INSERT INTO t VALUES (5, 'a5 open during the run')")
        fake(monkeypatch, a=f"{DAY} 09:00:00", b="2026-03-09 18:00:00", c=f"{DAY} 08:30:00")
        ch.run(once=True, spark=spark)
        row = stin(cen)
        assert row["leader_cap_loc"] == "c", "the racing location must not lead"
        assert row["trailer_cap_loc"] == "b"
        stamps = ch.stamps_status()["cen"]["locations"]
        assert str(stamps["a"]["cap_begin"]) == f"{DAY} 07:00:00+00:00"  # kept, not moved
        assert cen.query("SELECT id FROM t ORDER BY id") == [(1,), (2,), (3,), (4,)]

        # the transaction commits; the next run catches its bus and a leads at 9:00
        racing.commit()
        racing.close()
        ch.run(once=True, spark=spark)
        row = stin(cen)
        assert (row["leader_cap_loc"], str(row["leader_cap_begin"])) == (
            "a",
            f"{DAY} 09:00:00+00:00",
        )
        assert row["leader_cap_begin_int"] == 1773133200
        assert row["trailer_cap_loc"] == "b"
        assert cen.query("SELECT id FROM t ORDER BY id") == [(1,), (2,), (3,), (4,), (5,)]
    finally:
        for g in gens:
            next(g, None)


def missing_before_stamp(src: Any, loc: str, cen: Any) -> list[int]:
    """Ids of rows captured at ``src`` before its stamp at cen that cen does not have."""
    conn = cen.connect(autocommit=False)
    have = StampStore(cen.vendor, "repl_", "shop", "cen").read(conn)
    conn.close()
    stamp = have.get(loc, (None, None))[0]
    if stamp is None:
        return []
    cap = of_url(src.url).Capture(loc, src.url, "repl_")
    conn = cap.connect()
    upto = cap.tick(conn).context
    recs = cap.changes(conn, TableConfig(name="public.t").ref, 0, upto)
    conn.close()
    applied = {r[0] for r in cen.query("SELECT id FROM t")}
    return [r.row["id"] for r in recs if r.captured_at < stamp and r.row["id"] not in applied]


@pytest.mark.parametrize("step", ["before_commit", "after_commit", "after_stamps"])
def test_killed_around_the_stamp_update(tmp_path: Path, step: str, spark: Any) -> None:
    gens = [make_pg(), make_pg()]
    src, cen = (next(g) for g in gens)
    try:
        src.execute(DDL["postgres"])
        cfg = config(tmp_path / "sp.yaml", {"a": src}, cen)
        ch = Channel.from_file(cfg)
        ch.install()  # only the killed run needs a process of its own
        src.execute("INSERT INTO t SELECT g, 'first' FROM generate_series(1, 50) g")
        ch.run(once=True, spark=spark)
        first = stin(cen)["leader_cap_begin"]
        src.execute("INSERT INTO t SELECT g, 'second' FROM generate_series(51, 120) g")

        killed = rk.syncpoint(cfg, "run", "--once", env={"SYNCPOINT_FAILPOINT": step})
        assert killed.returncode == -9, killed.stderr[-2000:]
        after_kill = stin(cen)["leader_cap_begin"]
        applied = cen.query("SELECT count(*) FROM t")[0][0]
        assert missing_before_stamp(src, "a", cen) == []
        if step == "before_commit":
            assert (applied, after_kill) == (50, first)
        elif step == "after_commit":
            assert (applied, after_kill) == (120, first)  # data first, stamp not yet
        else:
            assert applied == 120 and after_kill > first

        ch.run(once=True, spark=spark)
        assert cen.query("SELECT count(*) FROM t") == [(120,)]
        assert stin(cen)["leader_cap_begin"] >= after_kill
        assert missing_before_stamp(src, "a", cen) == []
    finally:
        for g in gens:
            next(g, None)
