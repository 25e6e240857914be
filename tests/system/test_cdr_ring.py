"""Three sites in a ring (``from:``: a reads c, b reads a, c reads b), one per vendor: a
change made at one site reaches the two others, the second one through the first, each
exactly once, never back where it was made; conflicting changes made around the ring end
identical everywhere by the table's rule."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.ops.cdr import setup
from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system.test_cdr_pairs import DDL, GROUPS, ins, norm, rows, upd

pytestmark = [pytest.mark.spark, pytest.mark.slow]

NOTE = {
    "postgres": "CREATE TABLE note (id bigint PRIMARY KEY, txt text)",
    "mariadb": "CREATE TABLE note (id bigint PRIMARY KEY, txt varchar(20)) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE note (id INTEGER PRIMARY KEY, txt TEXT)",
}
RING = {"a": "c", "b": "a", "c": "b"}  # each site reads the one before it


def quiet(ch: Channel, spark: Any) -> None:
    """Exchange until a run applies nothing (a change goes round in at most two hops)."""
    for _ in range(4):
        report = ch.run(once=True, spark=spark)
        assert not report.stopped and not report.errors
        if report.changes == 0:
            return
    raise AssertionError("the ring did not go quiet")


def test_ring_forwards_each_change_once_and_never_back(tmp_path: Path, spark: Any) -> None:
    gens = [make_pg(), make_mariadb(), make_sqlite(tmp_path)]
    sites = dict(zip("abc", (next(g) for g in gens), strict=True))
    try:
        for db in sites.values():
            db.execute(DDL[db.vendor].format(t="item"), NOTE[db.vendor])
        data = {
            "channel": "ring",
            "application": "sync",
            "locations": {
                n: {"url": db.url, "capture": True, "integrate": True, "from": [RING[n]]}
                for n, db in sites.items()
            },
            "tables": [{"name": "item", "snapshot": "none"}, {"name": "note", "snapshot": "none"}],
            "sync_groups": {"all": ["item", "note"]},
            "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
        }
        (tmp_path / "ring.yaml").write_text(yaml.safe_dump(data))
        ch = Channel.from_file(tmp_path / "ring.yaml")
        assert ch.cfg.origins_via("c", "b") == ["a", "b"]  # c hears of a's changes from b
        ch.install()
        setup.add(ch.cfg, "item", "latest", GROUPS)
        for i, (n, db) in enumerate(sites.items(), start=1):
            db.execute(f"INSERT INTO note (id, txt) VALUES ({i}, 'from {n}')")
        sites["a"].execute(ins("item", 1, "one"), ins("item", 2, "two"))
        quiet(ch, spark)
        # concurrent changes around the ring: the later wins by group, the later delete too
        sites["a"].execute(upd("item", 1, "name = 'a1'"))
        time.sleep(0.002)
        sites["c"].execute(upd("item", 1, "name = 'c1'"))
        sites["b"].execute(upd("item", 1, "price = 7.50"))
        sites["b"].execute(upd("item", 2, "qty = 20"))
        time.sleep(0.002)
        sites["c"].execute("DELETE FROM item WHERE id = 2")
        quiet(ch, spark)
        want = tuple(norm(v) for v in (1, "c1", 1, "7.5", "EUR"))
        for n, db in sites.items():
            assert rows(db, "item", 1) == want, n
            assert rows(db, "item", 2) is None, n
            assert db.query("SELECT id, txt FROM note ORDER BY id") == [
                (1, "from a"),
                (2, "from b"),
                (3, "from c"),
            ], n
            # each note captured once at every site, marked with where it was made: a change
            # that came back to its site would be captured there a second time
            notes = db.query(
                "SELECT dbid, count(*) FROM repl_items WHERE tablename = 'note' "
                "GROUP BY dbid ORDER BY dbid"
            )
            assert notes == [("a", 1), ("b", 1), ("c", 1)], n
    finally:
        for g in gens:
            next(g, None)
