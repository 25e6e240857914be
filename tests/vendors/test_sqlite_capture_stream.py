"""SQLite capture: the change records, ticks, trans_key, origin, purge and changes_query."""

from __future__ import annotations

import sqlite3
import threading
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from test_sqlite_capture_support import Sl, app_conn, tx

from syncpoint.config import TableConfig, TableName
from syncpoint.errors import NotInstalled, UsageError

T = 'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, "Qty" INTEGER)'


def setup(db: Any, *entries: str | TableConfig) -> Sl:
    db.execute(T)
    sl = Sl(db)
    sl.install(*(entries or ("t",)))
    return sl


def test_insert_update_delete_exact_records(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    p0 = sl.tick()
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)")
    tx(sqlite_db, "UPDATE t SET name = 'a2' WHERE id = 1", "DELETE FROM t WHERE id = 2")
    p1, recs = sl.window("t", p0)
    assert p1 == p0 + 1
    assert [(r.db_action, r.row, r.old) for r in recs] == [
        ("INSERT", {"id": 1, "name": "a", "Qty": 10}, None),
        ("INSERT", {"id": 2, "name": "b", "Qty": 20}, None),
        ("UPDATE", {"id": 1, "name": "a2", "Qty": 10}, {"id": 1, "name": "a", "Qty": 10}),
        ("DELETE", None, {"id": 2, "name": "b", "Qty": 20}),
    ]
    r = recs[0]
    assert (r.dbid, r.tablename, r.db_schema, r.db_catalog, r.version, r.context) == (
        "dec01",
        "t",
        "main",
        sqlite_db.name,
        1,
        p1,
    )
    assert len({x.guid for x in recs}) == 4 and all(len(x.guid) == 32 for x in recs)
    assert [x.repl_key for x in recs] == sorted(x.repl_key for x in recs)
    assert r.captured_at is not None and r.captured_at.tzinfo == UTC
    assert abs((datetime.now(UTC) - r.captured_at).total_seconds()) < 60
    # the content is stored exactly as read back
    assert sqlite_db.query("SELECT content FROM repl_items ORDER BY repl_key LIMIT 1") == [
        ('{"id":1,"name":"a","Qty":10}',)
    ]


def test_trans_key_is_shared_within_a_transaction_and_changes_with_each_tick(
    sqlite_db: Any,
) -> None:
    sl = setup(sqlite_db)
    p0 = sl.tick()
    tx(
        sqlite_db,
        "INSERT INTO t VALUES (1, 'a', 1)",
        "INSERT INTO t VALUES (2, 'b', 2)",
        'UPDATE t SET "Qty" = 3',
    )
    tx(sqlite_db, "DELETE FROM t WHERE id = 1")
    p1, first = sl.window("t", p0)
    tx(sqlite_db, "DELETE FROM t WHERE id = 2")
    _, second = sl.window("t", p1)
    # one key for every record of a transaction; SQLite cannot tell two transactions
    # committed between the same ticks apart in SQL, so they share the tick's key
    assert {r.trans_key for r in first} == {str(p1)}
    assert [r.trans_key for r in second] == [str(p1 + 1)]


def test_rolled_back_work_is_not_captured(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    p0 = sl.tick()
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'gone', 1)", rollback=True)
    conn = app_conn(sqlite_db)
    conn.execute("BEGIN")
    conn.execute("INSERT INTO t VALUES (2, 'kept', 2)")
    conn.execute("SAVEPOINT s")
    conn.execute("INSERT INTO t VALUES (3, 'undone', 3)")
    conn.execute("UPDATE t SET name = 'undone too' WHERE id = 2")
    conn.execute("ROLLBACK TO s")
    conn.execute("RELEASE s")
    conn.execute('UPDATE t SET "Qty" = 20 WHERE id = 2')
    conn.execute("COMMIT")
    conn.close()
    assert sl.rows("t", p0) == [
        ("INSERT", {"id": 2, "name": "kept", "Qty": 2}, None),
        ("UPDATE", {"id": 2, "name": "kept", "Qty": 20}, {"id": 2, "name": "kept", "Qty": 2}),
    ]


def test_a_failed_statement_captures_nothing(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    p0 = sl.tick()
    conn = app_conn(sqlite_db)
    conn.execute("INSERT INTO t VALUES (1, 'a', 1)")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO t VALUES (2, 'b', 2), (1, 'dup', 1)")  # aborts as a whole
    conn.close()
    assert [r for _, r, _ in sl.rows("t", p0)] == [{"id": 1, "name": "a", "Qty": 1}]


def test_multi_row_statements_and_delete_without_where(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    p0 = sl.tick()
    tx(sqlite_db, "INSERT INTO t SELECT value, 'n' || value, value FROM json_each('[1,2,3]')")
    tx(sqlite_db, 'UPDATE t SET "Qty" = "Qty" * 10')
    # DELETE without WHERE: SQLite's truncate optimisation is off when triggers exist
    tx(sqlite_db, "DELETE FROM t")
    got = [(a, (r or o)["id"]) for a, r, o in sl.rows("t", p0)]
    assert got == [
        ("INSERT", 1),
        ("INSERT", 2),
        ("INSERT", 3),
        ("UPDATE", 1),
        ("UPDATE", 2),
        ("UPDATE", 3),
        ("DELETE", 1),
        ("DELETE", 2),
        ("DELETE", 3),
    ]


def test_tick_waits_for_an_open_writer_and_orders_by_commit(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    p0 = sl.tick()
    writer = app_conn(sqlite_db)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO t VALUES (1, 'long', 1)")
    done: list[Any] = []
    ticker = threading.Thread(target=lambda: done.append(sl.call("tick")))
    ticker.start()
    time.sleep(0.3)
    assert done == []  # the tick needs the write lock the open transaction holds
    writer.execute("COMMIT")
    writer.close()
    ticker.join(30)
    [tick] = done
    assert tick.context == p0 + 1
    assert [
        r["id"]
        for _, r, _ in [(x.db_action, x.row, x.old) for x in sl.changes("t", p0, tick.context)]
    ] == [1]
    # guaranteed: the clock after the lock was taken, not before the writer committed
    [rec] = sl.changes("t", p0, tick.context)
    assert rec.captured_at is not None and rec.captured_at <= tick.guaranteed
    assert sqlite_db.query("SELECT context FROM repl_service_context") == [(tick.context,)]


def test_records_after_a_tick_wait_for_the_next(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    p0 = sl.tick()
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 1)")
    p1 = sl.tick()
    tx(sqlite_db, "INSERT INTO t VALUES (2, 'b', 2)")
    p2 = sl.tick()
    assert [r.row["id"] for r in sl.changes("t", p0, p1)] == [1]
    assert [r.row["id"] for r in sl.changes("t", p1, p2)] == [2]
    assert [r.row["id"] for r in sl.changes("t", p0, p2)] == [1, 2]
    assert sl.changes("t", p2, p2 + 5) == []


def test_changes_query_reads_the_same_records(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a''s', 1)", "DELETE FROM t")
    p1 = sl.tick()
    q = sl.cap.changes_query(TableName(name="t"), 0, p1)
    rows = sqlite_db.query(q)
    recs = sl.changes("t", 0, p1)
    assert [r[0] for r in rows] == [r.repl_key for r in recs]
    conn = sqlite3.connect(sqlite_db.url.removeprefix("sqlite:///"))
    cur = conn.execute(q)
    assert [d[0] for d in cur.description] == [
        "repl_key",
        "context",
        "trans_key",
        "dbid",
        "tablename",
        "db_schema",
        "db_action",
        "content",
        "oldcontent",
        "captured_at",
        "version",
    ]
    first = cur.fetchone()
    conn.close()
    assert first[2] == recs[0].trans_key and isinstance(first[2], str)
    assert first[7] == recs[0].content
    assert datetime.strptime(first[9], "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC) == (
        recs[0].captured_at
    )


def test_actions_subset(sqlite_db: Any) -> None:
    sl = setup(sqlite_db, TableConfig(name="t", actions="ID"))
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 1)", "UPDATE t SET name = 'b'", "DELETE FROM t")
    assert [a for a, _, _ in sl.rows("t", 0)] == ["INSERT", "DELETE"]


def test_debug_flag_writes_lines(sqlite_db: Any) -> None:
    sl = setup(sqlite_db, TableConfig(name="t", debug=True))
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 1)", "DELETE FROM t")
    keys = [r.repl_key for r in sl.window("t", 0)[1]]
    assert sqlite_db.query("SELECT repl_key, line FROM repl_debug_table ORDER BY repl_key") == [
        (keys[0], 'INSERT t {"id":1,"name":"a","Qty":1}'),
        (keys[1], 'DELETE t {"id":1,"name":"a","Qty":1}'),
    ]


def test_origin_marks_the_applying_transaction_only(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    conn = sl.cap.connect()
    with pytest.raises(UsageError, match="needs an open transaction"):
        sl.cap.set_origin(conn, "dec02")
    conn.execute("BEGIN IMMEDIATE")
    sl.cap.set_origin(conn, "dec02")
    conn.execute("INSERT INTO t VALUES (1, 'replicated', 1)")
    sl.cap.set_origin(conn, None)
    conn.execute("INSERT INTO t VALUES (2, 'local', 2)")
    conn.execute("COMMIT")
    conn.close()
    tx(sqlite_db, "INSERT INTO t VALUES (3, 'app', 3)")
    assert [(r.row["id"], r.dbid) for r in sl.window("t", 0)[1]] == [
        (1, "dec02"),
        (2, "dec01"),
        (3, "dec01"),
    ]
    assert sl.status().problems == []


def test_a_committed_origin_row_is_reported(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    conn = sl.cap.connect()
    conn.execute("BEGIN IMMEDIATE")
    sl.cap.set_origin(conn, "dec02")
    conn.execute("COMMIT")  # the applier forgot set_origin(conn, None)
    conn.close()
    [problem] = sl.status().problems
    assert "origin 'dec02'" in problem and "set_origin" in problem


def test_purge_and_keys_that_never_repeat(sqlite_db: Any) -> None:
    sl = setup(sqlite_db, TableConfig(name="t", debug=True))
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 1)")
    p1 = sl.tick()
    tx(sqlite_db, "INSERT INTO t VALUES (2, 'b', 2)")
    p2 = sl.tick()
    assert sl.call("purge", p1) == 1
    assert [r.row["id"] for r in sl.changes("t", 0, p2)] == [2]
    last = sl.changes("t", 0, p2)[-1].repl_key
    assert sl.call("purge", p2) == 1  # the newest record too
    assert sqlite_db.query("SELECT count(*) FROM repl_items") == [(0,)]
    assert sqlite_db.query("SELECT count(*) FROM repl_debug_table") == [(0,)]
    tx(sqlite_db, "INSERT INTO t VALUES (3, 'c', 3)")
    [rec] = sl.window("t", p2)[1]
    assert rec.repl_key == last + 1  # AUTOINCREMENT: never max(rowid) + 1 again


def test_not_installed(sqlite_db: Any) -> None:
    sqlite_db.execute(T)
    sl = Sl(sqlite_db)
    assert not sl.status().installed
    assert sl.poll() == 0
    for method, args in (("tick", ()), ("stream_id", ()), ("purge", (1,))):
        with pytest.raises(NotInstalled, match="prefix 'repl_' is not installed"):
            sl.call(method, *args)


def test_stream_id_changes_with_a_fresh_install(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    first = sl.call("stream_id")
    sl.install("t")
    assert sl.call("stream_id") == first
    sl.uninstall()
    sl.install("t")
    assert sl.call("stream_id") != first
