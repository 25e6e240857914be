"""``run --once`` end to end: capture at real databases, rounds through the shared Spark
session, and what a user checks afterwards: the target equals the source row for row,
positions and sync points stored, ``status`` shows no backlog, ``purge`` removes exactly
what was applied."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system import roundkit as rk

pytestmark = pytest.mark.spark

PAIRS = [
    ("postgres", "postgres"),
    ("mariadb", "postgres"),
    ("postgres", "mariadb"),
    ("sqlite", "sqlite"),
    ("mariadb", "sqlite"),
    ("sqlite", "postgres"),
]


def make(vendor: str, tmp: Path) -> Any:
    return {"postgres": make_pg, "mariadb": make_mariadb}.get(vendor, lambda: make_sqlite(tmp))()


@pytest.fixture
def dbs(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    src_v, dst_v = request.param
    gens = [make(src_v, tmp_path), make(dst_v, tmp_path)]
    src, dst = next(gens[0]), next(gens[1])
    yield src, dst
    for g in gens:
        next(g, None)


def channel(src: Any, dst: Any, tmp: Path, **extra: Any) -> Channel:
    path = rk.write_config(tmp / "syncpoint.yaml", {"src": src}, dst, extra=extra or None)
    return Channel.from_file(path)


def items(db: Any) -> int:
    return int(db.query("SELECT count(*) FROM repl_items")[0][0])


def sql(db: Any, *statements: str) -> None:
    conn = db.connect(autocommit=db.vendor == "sqlite")
    cur = conn.cursor()
    if db.vendor == "sqlite":
        cur.execute("BEGIN IMMEDIATE")
    for s in statements:
        cur.execute(s)
    conn.commit()
    conn.close()


@pytest.mark.parametrize("dbs", PAIRS, indirect=True, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_run_once_converges_and_purge_removes_what_was_applied(
    dbs: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = dbs
    rk.setup_source(src)
    ch = channel(src, dst, tmp_path)
    ch.install()
    sql(
        src,
        "INSERT INTO parent (id, name, amount, ver) VALUES (1, 'a', 1.50, 'v1'), (2, 'b', 2, 'v2')",
        "INSERT INTO child (id, parent_id, qty, ver) VALUES (10, 1, 5, 'c1'), (11, 2, 6, 'c2')",
    )
    # S04 in one transaction: many changes of one key, a key move, a delete, a re-insert
    sql(
        src,
        "UPDATE parent SET name = 'a2', ver = 'v3' WHERE id = 1",
        "UPDATE parent SET name = 'a3', ver = 'v4' WHERE id = 1",
        "INSERT INTO parent (id, name, amount, ver) VALUES (3, 'c', 3, 'v5')",
        "UPDATE child SET parent_id = 3, ver = 'c3' WHERE id = 11",
        "DELETE FROM parent WHERE id = 2",
        "UPDATE child SET id = 12, ver = 'c4' WHERE id = 10",
        "DELETE FROM child WHERE id = 12",
        "INSERT INTO child (id, parent_id, qty, ver, note) VALUES (10, 1, 7, 'c5', 'again')",
    )
    before = {r["table"].split(".")[-1]: r for r in ch.integrate_status()["cen"]["tables"]}
    assert before["parent"]["position"] is None and before["parent"]["backlog"] == 6
    report = ch.run(once=True, spark=spark)
    ok, why = rk.same(src, dst)
    assert ok, why
    # the receive stamp of the only capture location moved with the run
    assert dst.query("SELECT leader_cap_loc, trailer_cap_loc FROM repl_stin_shop_cen") == [
        ("src", "src")
    ]
    assert report.changes >= 12
    # nothing new: a second run applies nothing and changes no row
    again = ch.run(once=True, spark=spark)
    assert again.changes == 0
    assert rk.same(src, dst)[0]
    st = ch.integrate_status()["cen"]["tables"]
    assert {
        (r["table"].split(".")[-1], r["backlog"], r["position"] == r["sync_point"]) for r in st
    } == {
        ("parent", 0, True),
        ("child", 0, True),
    }
    # purge removes exactly the applied records; later ones stay until applied
    sql(src, "UPDATE parent SET amount = 9.99, ver = 'v6' WHERE id = 1")
    before = items(src)
    done = ch.purge()
    assert done["src"]["purged"] == before - 1 and items(src) == 1
    ch.run(once=True, spark=spark)
    assert rk.same(src, dst)[0]
    assert ch.purge()["src"]["purged"] == 1 and items(src) == 0
