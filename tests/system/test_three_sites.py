"""Three sites that all capture and integrate the same tables (a full mesh, one site per
vendor): a change keeps the location where it was first made as its origin at every hop,
reaches every other site exactly once, never comes back, and the queues stop growing once
the sites have exchanged everything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system import roundkit as rk

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def items(db: Any) -> list[tuple[Any, ...]]:
    return db.query("SELECT dbid, count(*) FROM repl_items GROUP BY dbid ORDER BY dbid")


def parents(db: Any) -> list[tuple[Any, ...]]:
    return [(int(i), str(v)) for i, v in db.query("SELECT id, ver FROM parent ORDER BY id")]


def test_three_site_mesh_carries_the_first_origin_and_never_echoes(
    tmp_path: Path, spark: Any
) -> None:
    gens = [make_pg(), make_mariadb(), make_sqlite(tmp_path)]
    x, y, z = (next(g) for g in gens)
    try:
        for db in (x, y, z):
            rk.setup_source(db)
        data = {
            "channel": "mesh",
            "application": "sync",
            "locations": {
                n: {"url": db.url, "capture": True, "integrate": True}
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
        y.execute("INSERT INTO parent (id, ver) VALUES (2, 'y2')")
        z.execute("INSERT INTO parent (id, ver) VALUES (3, 'z3')")
        ch.run(once=True, spark=spark)
        want = [(1, "x1"), (2, "y2"), (3, "z3")]
        for db in (x, y, z):
            assert parents(db) == want
        # every site holds one record per change, each marked with where it was made
        for db in (x, y, z):
            assert items(db) == [("x", 1), ("y", 1), ("z", 1)], db.vendor
        # a change made at y to a row that came from x travels on with y as its origin
        y.execute("UPDATE parent SET ver = 'y1' WHERE id = 1")
        z.execute("DELETE FROM parent WHERE id = 2")
        for _ in range(3):
            ch.run(once=True, spark=spark)
        want = [(1, "y1"), (3, "z3")]
        for db in (x, y, z):
            assert parents(db) == want, db.vendor
        # bounded: after the exchange further runs capture nothing new anywhere
        before = [items(db) for db in (x, y, z)]
        assert before[0] == [("x", 1), ("y", 2), ("z", 2)]
        ch.run(once=True, spark=spark)
        ch.run(once=True, spark=spark)
        assert [items(db) for db in (x, y, z)] == before
        report = ch.run(once=True, spark=spark)
        assert report.changes == 0 and not report.errors and not report.stopped
    finally:
        for g in gens:
            next(g, None)
