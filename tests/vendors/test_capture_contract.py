"""The capture contract (vendors/base.py), written once and held by every vendor.

Each test runs on PostgreSQL, MariaDB and SQLite with the same expectations: what a user of
the change queue sees after inserts, updates, deletes, transactions, rollbacks, ticks,
origins, purges and a second prefix.
"""

from __future__ import annotations

from typing import Any

import pytest

from syncpoint.config import TableConfig, TableName
from syncpoint.vendors import of_url

DDL = {
    "postgres": 'CREATE TABLE public.t (id integer PRIMARY KEY, name text, "Qty" integer)',
    "mariadb": "CREATE TABLE t (id integer PRIMARY KEY, name text, `Qty` integer) ENGINE=InnoDB",
    "sqlite": 'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, "Qty" INTEGER)',
}
NAME = {"postgres": "public.t", "mariadb": "t", "sqlite": "t"}


def table_name(db: Any) -> TableName:
    return TableConfig(name=NAME[db.vendor]).ref


def setup(db: Any, prefix: str = "repl_", actions: str = "IUD") -> Any:
    db.execute(DDL[db.vendor])
    cap = of_url(db.url).Capture("dec01", db.url, prefix)
    conn = cap.connect()
    cap.install(conn, [TableConfig(name=NAME[db.vendor], actions=actions)])
    conn.close()
    return cap


def tx(db: Any, *statements: str, rollback: bool = False) -> None:
    """One transaction on a fresh connection, as an application would run it."""
    conn = db.connect(autocommit=db.vendor == "sqlite")
    cur = conn.cursor()
    if db.vendor == "sqlite":
        cur.execute("BEGIN")
    for s in statements:
        cur.execute(s)
    conn.rollback() if rollback else conn.commit()
    conn.close()


def window(cap: Any, db: Any, after: int) -> tuple[int, list[Any]]:
    conn = cap.connect()
    try:
        tick = cap.tick(conn)
        return tick.context, cap.changes(conn, table_name(db), after, tick.context)
    finally:
        conn.close()


def start(cap: Any) -> int:
    conn = cap.connect()
    try:
        return cap.tick(conn).context
    finally:
        conn.close()


def test_row_changes_are_recorded_exactly(any_db: Any) -> None:
    cap = setup(any_db)
    p0 = start(cap)
    tx(
        any_db,
        "INSERT INTO t (id, name, \"Qty\") VALUES (1, 'a', 10), (2, 'b', 20)"
        if any_db.vendor != "mariadb"
        else "INSERT INTO t (id, name, `Qty`) VALUES (1, 'a', 10), (2, 'b', 20)",
    )
    # SQLite's trans_key groups the transactions committed between two ticks (it exposes no
    # transaction id to triggers); a tick between the transactions keeps them apart everywhere.
    start(cap)
    tx(any_db, "UPDATE t SET name = 'a2' WHERE id = 1", "DELETE FROM t WHERE id = 2")
    tx(any_db, "INSERT INTO t (id, name) VALUES (3, 'gone')", rollback=True)
    p1, recs = window(cap, any_db, p0)
    assert p1 > p0
    got = [(r.db_action, r.row, r.old) for r in recs]
    assert got == [
        ("INSERT", {"id": 1, "name": "a", "Qty": 10}, None),
        ("INSERT", {"id": 2, "name": "b", "Qty": 20}, None),
        ("UPDATE", {"id": 1, "name": "a2", "Qty": 10}, {"id": 1, "name": "a", "Qty": 10}),
        ("DELETE", None, {"id": 2, "name": "b", "Qty": 20}),
    ]
    assert all(r.dbid == "dec01" and r.tablename == "t" for r in recs)
    assert [r.repl_key for r in recs] == sorted(r.repl_key for r in recs)
    assert recs[0].trans_key == recs[1].trans_key
    assert recs[2].trans_key == recs[3].trans_key != recs[0].trans_key
    assert len({r.guid for r in recs}) == 4
    # the next window is empty, and the first one reads the same again (repeatable)
    p2, later = window(cap, any_db, p1)
    assert later == []
    conn = cap.connect()
    assert [r.repl_key for r in cap.changes(conn, table_name(any_db), p0, p1)] == [
        r.repl_key for r in recs
    ]
    conn.close()


def test_actions_subset_and_status(any_db: Any) -> None:
    cap = setup(any_db, actions="IU")
    p0 = start(cap)
    tx(any_db, "INSERT INTO t (id, name) VALUES (1, 'a')")
    tx(any_db, "DELETE FROM t WHERE id = 1")
    _, recs = window(cap, any_db, p0)
    assert [r.db_action for r in recs] == ["INSERT"]
    conn = cap.connect()
    st = cap.status(conn)
    conn.close()
    assert st.installed and st.stream_id
    assert [(t.status, t.actions) for t in st.tables] == [("OK", "IU")]


def test_origin_is_carried(any_db: Any) -> None:
    cap = setup(any_db)
    p0 = start(cap)
    conn = cap.connect()
    cur = conn.cursor()
    if any_db.vendor == "sqlite":
        cur.execute("BEGIN IMMEDIATE")
    cap.set_origin(conn, "dec02")
    cur.execute("INSERT INTO t (id, name) VALUES (7, 'from dec02')")
    cap.set_origin(conn, None)
    cur.execute("INSERT INTO t (id, name) VALUES (8, 'local')")
    conn.commit()
    conn.close()
    _, recs = window(cap, any_db, p0)
    assert [(r.row["id"], r.dbid) for r in recs] == [(7, "dec02"), (8, "dec01")]


def test_two_prefixes_do_not_touch_each_other(any_db: Any) -> None:
    a = setup(any_db, prefix="repl_")
    b = of_url(any_db.url).Capture("dec01", any_db.url, "other_")
    conn = b.connect()
    b.install(conn, [TableConfig(name=NAME[any_db.vendor])])
    conn.close()
    pa, pb = start(a), start(b)
    tx(any_db, "INSERT INTO t (id, name) VALUES (1, 'x')")
    _, ra = window(a, any_db, pa)
    _, rb = window(b, any_db, pb)
    assert [r.row for r in ra] == [r.row for r in rb] == [{"id": 1, "name": "x", "Qty": None}]
    conn = b.connect()
    b.uninstall(conn)
    assert not b.status(conn).installed
    conn.close()
    tx(any_db, "INSERT INTO t (id, name) VALUES (2, 'y')")
    _, ra = window(a, any_db, pa)
    assert [r.row["id"] for r in ra] == [1, 2]


def test_purge_removes_only_what_is_at_or_before(any_db: Any) -> None:
    cap = setup(any_db)
    start(cap)
    tx(any_db, "INSERT INTO t (id, name) VALUES (1, 'a')")
    p1 = start(cap)
    tx(any_db, "INSERT INTO t (id, name) VALUES (2, 'b')")
    p2 = start(cap)
    conn = cap.connect()
    assert cap.purge(conn, p1) == 1
    assert [r.row["id"] for r in cap.changes(conn, table_name(any_db), p1, p2)] == [2]
    conn.close()
    # keys never repeat after the newest records are purged
    last = max(r.repl_key for r in window(cap, any_db, p1)[1])
    conn = cap.connect()
    cap.purge(conn, start(cap))
    conn.close()
    p3 = start(cap)
    tx(any_db, "INSERT INTO t (id, name) VALUES (3, 'c')")
    _, recs = window(cap, any_db, p3)
    assert recs and recs[0].repl_key > last


@pytest.mark.parametrize("twice", [False, True])
def test_uninstall_removes_everything(any_db: Any, twice: bool) -> None:
    cap = setup(any_db)
    conn = cap.connect()
    if twice:
        cap.install(conn, [TableConfig(name=NAME[any_db.vendor])])
    cap.uninstall(conn)
    cap.uninstall(conn)
    assert not cap.status(conn).installed
    conn.close()
    tx(any_db, "INSERT INTO t (id, name) VALUES (1, 'after')")
    assert any_db.query("SELECT count(*) FROM t") == [(1,)]


IDLE_DDL = {
    "postgres": "CREATE TABLE public.idle (id integer PRIMARY KEY)",
    "mariadb": "CREATE TABLE idle (id integer PRIMARY KEY) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE idle (id INTEGER PRIMARY KEY)",
}
IDLE_NAME = {"postgres": "public.idle", "mariadb": "idle", "sqlite": "idle"}


def test_survey_names_only_the_tables_with_records(any_db: Any) -> None:
    """One query over many tables says which have records in a window (and how many),
    and the committed backlog of each without a tick; an idle table is not in the answer."""
    any_db.execute(DDL[any_db.vendor])
    any_db.execute(IDLE_DDL[any_db.vendor])
    cap = of_url(any_db.url).Capture("dec01", any_db.url, "repl_")
    tables = [TableConfig(name=n[any_db.vendor]) for n in (NAME, IDLE_NAME)]
    conn = cap.connect()
    cap.install(conn, tables)
    conn.close()
    refs = [t.ref for t in tables]
    p0 = start(cap)
    tx(any_db, "INSERT INTO t (id, name) VALUES (1, 'a'), (2, 'b')")
    tx(any_db, "UPDATE t SET name = 'c' WHERE id = 1")
    conn = cap.connect()
    try:
        backlog = cap.backlog_survey(conn, refs, p0)
        assert backlog is not None
        assert {k: v.records for k, v in backlog.items()} == {str(refs[0]): 3}
        p1 = cap.tick(conn).context
        found = cap.survey(conn, refs, p0, p1)
        assert list(found) == [str(refs[0])]
        stats = found[str(refs[0])]
        keys = [r.repl_key for r in cap.changes(conn, refs[0], p0, p1)]
        assert (stats.records, stats.lo, stats.hi, stats.ddl) == (3, min(keys), max(keys), 0)
        assert stats.oldest is not None
        p2 = cap.tick(conn).context
        assert cap.survey(conn, refs, p1, p2) == {}  # nothing since: every table idle
        assert cap.backlog_survey(conn, refs, p1) == {}
    finally:
        conn.close()
