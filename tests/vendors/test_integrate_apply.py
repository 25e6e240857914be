"""The apply transaction of a round, written once for PostgreSQL, MariaDB and SQLite.

Staged rows are made by hand here (what Spark writes, see tests/spark for that side); each
test checks what a user sees at the target: rows, stored positions, and that a round that
cannot apply leaves both untouched.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from syncpoint.config import TableName
from syncpoint.core.positions import SyncPoint
from syncpoint.core.rounds import RoundPlan, TableWindow
from syncpoint.errors import PositionConflict, WorkFailed
from syncpoint.vendors import of_url
from syncpoint.vendors.integratebase import Integrate, apply_table

TABLE = {
    "postgres": "CREATE TABLE t (id integer PRIMARY KEY, name text, amount numeric(12,2))",
    "mariadb": "CREATE TABLE t (id integer PRIMARY KEY, name text, amount decimal(12,2))",
    "sqlite": "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, amount NUMERIC)",
}


def ph(db: Any) -> str:
    return "?" if db.vendor == "sqlite" else "%s"


def stage(db: Any, round_id: str, tbl: int, rows: list[tuple[str, dict[str, Any], int]]) -> None:
    conn = db.connect()
    cur = conn.cursor()
    p = ph(db)
    for action, content, rk in rows:
        cur.execute(
            f"INSERT INTO repl_staging (application_name, sync_name, round_id, tbl, action, "
            f"content, repl_key) VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p})",
            ("app", "g", round_id, tbl, action, json.dumps(content), rk),
        )
    conn.close()


def window(db: Any, after: int, upto: int, stored: bool, target: str = "t") -> TableWindow:
    ref = TableName(schema="public" if db.vendor == "postgres" else None, name=target)
    return TableWindow(
        tbl=0,
        location="src",
        table=target,
        source=ref,
        target=ref,
        key=("id",),
        after=after,
        upto=upto,
        stored=stored,
        stream_id="s1",
    )


def make_plan(db: Any, *windows: TableWindow) -> RoundPlan:
    return RoundPlan("app", "tgt", "g", list(windows), {"src": SyncPoint("src", "g", 5, "s1")})


def apply(db: Any, integ: Integrate, plan: RoundPlan, staged: dict[int, int]) -> None:
    conn = integ.connect()
    try:
        tables = {}
        for w in plan.windows:
            shape = integ.describe(conn, w.target)
            assert shape is not None
            tables[w.tbl] = apply_table(shape, w.key, None)
        integ.apply(conn, plan, staged, tables, [str(w.target) for w in plan.windows], None)
    finally:
        conn.close()


@pytest.fixture
def integ(any_db: Any) -> Integrate:
    any_db.execute(TABLE[any_db.vendor])
    it = of_url(any_db.url).Integrate("tgt", any_db.url, "repl_")
    conn = it.connect()
    it.ensure(conn)
    it.ensure(conn)  # idempotent
    conn.close()
    return it


def positions(integ: Integrate) -> list[tuple[str, str, int, str]]:
    conn = integ.connect()
    try:
        return sorted(
            (p.location, p.table, p.context, p.stream_id) for _, p in integ.positions(conn)
        )
    finally:
        conn.close()


def test_a_round_upserts_deletes_and_stores_its_position(any_db: Any, integ: Integrate) -> None:
    any_db.execute("INSERT INTO t (id, name, amount) VALUES (1, 'old', 1.00), (2, 'gone', 2.00)")
    plan = make_plan(any_db, window(any_db, 0, 5, stored=False))
    stage(
        any_db,
        plan.round_id,
        0,
        [
            ("U", {"id": 1, "name": "new ✓ 😀", "amount": 12.50}, 3),
            ("U", {"id": 3, "name": None, "amount": 9999999999.99}, 4),
            ("D", {"id": 2, "name": "gone", "amount": 2.00}, 5),
        ],
    )
    apply(any_db, integ, plan, {0: 3})
    rows = any_db.query("SELECT id, name, amount FROM t ORDER BY id")
    assert [(r[0], r[1], str(r[2])) for r in rows] == [
        (1, "new ✓ 😀", "12.5" if any_db.vendor == "sqlite" else "12.50"),
        (3, None, "9999999999.99"),
    ]
    assert positions(integ) == [("src", "t", 5, "s1")]
    assert any_db.query("SELECT count(*) FROM repl_staging") == [(0,)]


def test_a_second_consumer_from_the_same_position_applies_nothing(
    any_db: Any, integ: Integrate
) -> None:
    first = make_plan(any_db, window(any_db, 0, 5, stored=False))
    stage(any_db, first.round_id, 0, [("U", {"id": 1, "name": "a", "amount": 1}, 1)])
    second = make_plan(any_db, window(any_db, 0, 5, stored=False))
    stage(any_db, second.round_id, 0, [("U", {"id": 1, "name": "twice", "amount": 1}, 1)])
    apply(any_db, integ, first, {0: 1})
    with pytest.raises(PositionConflict, match="another consumer"):
        apply(any_db, integ, second, {0: 1})
    # a later round that started from an outdated position is refused too
    third = make_plan(any_db, window(any_db, 0, 9, stored=True))
    stage(any_db, third.round_id, 0, [("U", {"id": 1, "name": "thrice", "amount": 1}, 1)])
    with pytest.raises(PositionConflict):
        apply(any_db, integ, third, {0: 1})
    assert any_db.query("SELECT name FROM t") == [("a",)]
    assert positions(integ) == [("src", "t", 5, "s1")]


def test_staging_that_differs_from_what_was_written_aborts(any_db: Any, integ: Integrate) -> None:
    plan = make_plan(any_db, window(any_db, 0, 5, stored=False))
    stage(any_db, plan.round_id, 0, [("U", {"id": 1, "name": "a", "amount": 1}, 1)])
    with pytest.raises(PositionConflict, match="staged rows"):
        apply(any_db, integ, plan, {0: 2})
    assert any_db.query("SELECT count(*) FROM t") == [(0,)]
    assert positions(integ) == []


def test_a_value_that_does_not_fit_stops_the_round_whole(any_db: Any, integ: Integrate) -> None:
    any_db.execute("INSERT INTO t (id, name, amount) VALUES (1, 'kept', 1.00)")
    plan = make_plan(any_db, window(any_db, 0, 5, stored=False))
    bad: Any = 1.005 if any_db.vendor != "sqlite" else "NaN"
    if any_db.vendor == "sqlite":
        any_db.execute("CREATE TABLE f (id INTEGER PRIMARY KEY, name TEXT, amount REAL)")
        plan = make_plan(any_db, window(any_db, 0, 5, stored=False, target="f"))
    stage(
        any_db,
        plan.round_id,
        0,
        [
            ("U", {"id": 1, "name": "changed", "amount": 2}, 1),
            ("U", {"id": 2, "name": "bad", "amount": bad}, 2),
        ],
    )
    with pytest.raises(WorkFailed) as err:
        apply(any_db, integ, plan, {0: 2})
    assert err.value.table is not None
    assert any_db.query("SELECT id, name FROM t") == [(1, "kept")]
    if any_db.vendor == "sqlite":
        assert any_db.query("SELECT count(*) FROM f") == [(0,)]
    assert positions(integ) == []


def test_parents_are_upserted_first_and_deleted_last(any_db: Any, integ: Integrate) -> None:
    any_db.execute(
        "CREATE TABLE parent (id integer PRIMARY KEY, name text)",
        "CREATE TABLE child (id integer PRIMARY KEY, parent_id integer NOT NULL "
        "REFERENCES parent (id))",
        "INSERT INTO parent VALUES (1, 'p1')",
        "INSERT INTO child VALUES (10, 1)",
    )
    wc = window(any_db, 0, 5, stored=False, target="child")
    wp = window(any_db, 0, 5, stored=False, target="parent")
    wp.tbl = 1
    plan = make_plan(any_db, wc, wp)
    # source: new parent 2, child 10 moved to it, parent 1 deleted, child 11 of parent 2
    stage(any_db, plan.round_id, 1, [("U", {"id": 2, "name": "p2"}, 1), ("D", {"id": 1}, 4)])
    stage(
        any_db,
        plan.round_id,
        0,
        [("U", {"id": 10, "parent_id": 2}, 2), ("U", {"id": 11, "parent_id": 2}, 3)],
    )
    conn = integ.connect()
    order = [str(t) for t in [wp.target, wc.target]]
    fks = integ.foreign_keys(conn, [wc.target, wp.target])
    assert [(str(c), str(p)) for c, p in fks] == [(str(wc.target), str(wp.target))]
    tables = {
        w.tbl: apply_table(integ.describe(conn, w.target), w.key, None)  # type: ignore[arg-type]
        for w in plan.windows
    }
    integ.apply(conn, plan, {0: 2, 1: 2}, tables, order, None)
    conn.close()
    assert any_db.query("SELECT id, name FROM parent") == [(2, "p2")]
    assert any_db.query("SELECT id, parent_id FROM child ORDER BY id") == [(10, 2), (11, 2)]


def test_the_round_cleans_leftovers_of_its_group_only(any_db: Any, integ: Integrate) -> None:
    plan = make_plan(any_db, window(any_db, 0, 5, stored=False))
    stage(any_db, plan.round_id, 0, [("U", {"id": 1, "name": "a", "amount": 1}, 1)])
    stage(any_db, "crashed-attempt", 0, [("U", {"id": 9, "name": "old", "amount": 9}, 1)])
    conn = any_db.connect()
    cur = conn.cursor()
    p = ph(any_db)
    cur.execute(
        f"INSERT INTO repl_staging (application_name, sync_name, round_id, tbl, action, "
        f"content, repl_key) VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p})",
        ("app", "other group", "in-flight", 0, "U", "{}", 1),
    )
    conn.close()
    apply(any_db, integ, plan, {0: 1})
    assert any_db.query("SELECT id FROM t") == [(1,)]
    assert any_db.query("SELECT round_id FROM repl_staging") == [("in-flight",)]


def test_describe_gives_every_key_column_in_key_order(any_db: Any, integ: Integrate) -> None:
    """The key of a target is its primary key's columns in the key's own order (not the
    table's), the first one included."""
    any_db.execute("CREATE TABLE k2 (a integer, b integer NOT NULL, c text, PRIMARY KEY (b, a))")
    conn = integ.connect()
    try:
        ref = TableName(schema="public" if any_db.vendor == "postgres" else None, name="k2")
        shape = integ.describe(conn, ref)
    finally:
        conn.close()
    assert shape is not None
    assert shape.primary_key == ("b", "a")
    assert shape.unique_on(["a", "b"]) and not shape.unique_on(["b"])
