"""MariaDB capture: transaction keys, commit-ordered ticks, origins, purge, and the statements
whose effect differs from what they say (REPLACE, INSERT ... ON DUPLICATE KEY UPDATE)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from test_mariadb_capture_support import Cap, install, rows

from syncpoint.config import TableConfig, TableName
from syncpoint.errors import StreamIdentityError
from syncpoint.vendors.mariadb import stream

T = "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB"
U = "CREATE TABLE u (id INT PRIMARY KEY, v INT) ENGINE=InnoDB"


@pytest.fixture
def cap(maria_db: Any) -> Cap:
    maria_db.execute(T, U)
    return install(maria_db, "t", "u")


def test_one_key_per_autocommit_statement(cap: Cap) -> None:
    p0 = cap.tick()
    conn = cap.db.connect(autocommit=True)
    cur = conn.cursor()
    cur.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    cur.execute("INSERT INTO t VALUES (4, 'd')")
    cur.execute("UPDATE t SET name = 'x' WHERE id IN (1, 4)")
    conn.close()
    _, recs = cap.window(p0)
    keys = [r.trans_key for r in recs]
    assert keys[0] == keys[1] == keys[2]
    assert len({keys[0], keys[3], keys[4]}) == 3
    assert keys[4] == keys[5]


def test_one_key_per_explicit_transaction(cap: Cap) -> None:
    p0 = cap.tick()
    conn = cap.db.connect(autocommit=True)
    cur = conn.cursor()
    cur.execute("BEGIN")
    cur.execute("INSERT INTO t VALUES (1, 'a')")
    cur.execute("SELECT 1")
    cur.execute("INSERT INTO u VALUES (1, 10), (2, 20)")
    cur.execute("UPDATE t SET name = 'b' WHERE id = 1")
    cur.execute("COMMIT")
    cur.execute("START TRANSACTION")
    cur.execute("INSERT INTO t VALUES (2, 'c')")
    cur.execute("BEGIN")  # commits the open transaction implicitly
    cur.execute("INSERT INTO t VALUES (3, 'd')")
    cur.execute("COMMIT")
    conn.close()
    _, t_recs = cap.window(p0)
    upto = t_recs[-1].context
    conn = cap.conn()
    u_recs = cap.cap.changes(conn, TableName(name="u"), p0, upto or 0)
    conn.close()
    first = {r.trans_key for r in t_recs[:2]} | {r.trans_key for r in u_recs}
    assert len(first) == 1
    assert len({t_recs[0].trans_key, t_recs[2].trans_key, t_recs[3].trans_key}) == 3


def test_keys_change_at_each_commit_of_a_non_autocommit_session(cap: Cap) -> None:
    """PyMySQL's default: autocommit off, transactions begin implicitly."""
    p0 = cap.tick()
    conn = cap.db.connect(autocommit=False)
    cur = conn.cursor()
    cur.execute("INSERT INTO t VALUES (1, 'a')")
    cur.execute("INSERT INTO t VALUES (2, 'b')")
    conn.commit()
    cur.execute("INSERT INTO t VALUES (3, 'c')")
    conn.rollback()
    cur.execute("INSERT INTO t VALUES (4, 'd')")
    conn.commit()
    cur.execute("INSERT INTO t VALUES (5, 'e')")
    conn.commit()
    conn.close()
    _, recs = cap.window(p0)
    assert [r.row["id"] for r in recs] == [1, 2, 4, 5]
    k = [r.trans_key for r in recs]
    assert k[0] == k[1] and len({k[0], k[2], k[3]}) == 3


def test_statements_of_a_procedure_call(cap: Cap) -> None:
    """In autocommit mode each statement of a CALL is its own transaction; inside a
    transaction the CALL is part of it."""
    cap.db.execute(
        "CREATE PROCEDURE two(a INT) BEGIN INSERT INTO t VALUES (a, 'p'); "
        "INSERT INTO t VALUES (a + 1, 'q'); END"
    )
    p0 = cap.tick()
    conn = cap.db.connect(autocommit=True)
    cur = conn.cursor()
    cur.execute("CALL two(1)")
    cur.execute("BEGIN")
    cur.execute("CALL two(10)")
    cur.execute("INSERT INTO t VALUES (20, 'r')")
    cur.execute("COMMIT")
    conn.close()
    _, recs = cap.window(p0)
    k = [r.trans_key for r in recs]
    assert k[0] != k[1]
    assert k[2] == k[3] == k[4] and k[2] not in (k[0], k[1])


def test_multi_table_statement_shares_the_key(cap: Cap) -> None:
    cap.tx("INSERT INTO t VALUES (1, 'a')", "INSERT INTO u VALUES (1, 1)")
    p0 = cap.tick()
    conn = cap.db.connect(autocommit=True)
    conn.cursor().execute("UPDATE t JOIN u ON t.id = u.id SET t.name = 'b', u.v = 2")
    conn.close()
    upto, t_recs = cap.window(p0)
    conn = cap.conn()
    u_recs = cap.cap.changes(conn, TableName(name="u"), p0, upto)
    conn.close()
    assert [r.trans_key for r in t_recs] == [r.trans_key for r in u_recs]


def test_rollback_and_savepoint_rollback(cap: Cap) -> None:
    p0 = cap.tick()
    cap.tx("INSERT INTO t VALUES (1, 'gone')", "DELETE FROM t", rollback=True)
    cap.tx(
        "INSERT INTO t VALUES (1, 'kept')",
        "SAVEPOINT s1",
        "INSERT INTO t VALUES (2, 'undone')",
        "UPDATE t SET name = 'undone too' WHERE id = 1",
        "ROLLBACK TO SAVEPOINT s1",
        "INSERT INTO t VALUES (3, 'kept too')",
    )
    _, recs = cap.window(p0)
    assert rows(recs) == [
        ("INSERT", {"id": 1, "name": "kept"}, None),
        ("INSERT", {"id": 3, "name": "kept too"}, None),
    ]
    assert recs[0].trans_key == recs[1].trans_key


def test_long_transaction_lands_in_a_later_tick(cap: Cap) -> None:
    p0 = cap.tick()
    long = cap.db.connect(autocommit=False)
    conn = cap.conn()
    try:
        long.cursor().execute("INSERT INTO t VALUES (1, 'long')")  # takes the lower repl_key
        cap.tx("INSERT INTO t VALUES (2, 'short')")
        tick1 = cap.cap.tick(conn)
        first = cap.cap.changes(conn, cap.ref, p0, tick1.context)
        # uncommitted: invisible to other sessions, and not counted in tick 1
        counted = cap.db.query(f"SELECT records FROM repl_ticks WHERE tick_id = {tick1.context}")
        long.commit()
    finally:
        long.rollback()
        long.close()
    tick2 = cap.cap.tick(conn)
    second = cap.cap.changes(conn, cap.ref, tick1.context, tick2.context)
    both = cap.cap.changes(conn, cap.ref, p0, tick2.context)
    conn.close()
    assert [r.row["id"] for r in first] == [2]
    assert counted == [(1,)]
    assert [r.row["id"] for r in second] == [1]
    assert second[0].repl_key < first[0].repl_key
    assert [r.row["id"] for r in both] == [1, 2]  # repl_key order
    # The open transaction's record is not in tick 1, so tick 1 guarantees nothing after its
    # capture time: either the open transaction held the guarantee back (raced), or it was
    # not yet in InnoDB's list (cached up to 0.1 s) and captured after sampled_at.
    captured = second[0].captured_at
    assert captured is not None and tick1.guaranteed <= captured
    assert tick1.raced or captured >= (tick1.sampled_at or tick1.guaranteed)
    assert tick2.guaranteed >= tick1.guaranteed


def test_tick_and_purge_never_wait_on_open_transactions(cap: Cap, monkeypatch: Any) -> None:
    """A small queue tempts the optimizer into scanning it; a locking scan would wait on the
    open transaction's record (a wait would fail within the 1 s lock timeout set here)."""
    monkeypatch.setattr(stream, "LOCK_WAIT", 1)
    long = cap.db.connect(autocommit=False)
    try:
        long.cursor().execute("INSERT INTO t VALUES (1, 'long')")  # the lowest repl_key
        for i in range(2, 40):
            cap.tx(f"INSERT INTO t VALUES ({i}, 'short')")
        p1 = cap.tick()
        conn = cap.conn()
        assert cap.cap.purge(conn, p1) == 38
        conn.close()
        long.commit()
    finally:
        long.rollback()
        long.close()
    _, recs = cap.window(p1)
    assert [r.row["id"] for r in recs] == [1]


def test_concurrent_tickers_are_serialized(cap: Cap) -> None:
    cap.tx("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    got: list[int] = []

    def ticker() -> None:
        for _ in range(5):
            got.append(cap.tick())

    threads = [threading.Thread(target=ticker) for _ in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(got) == list(range(1, 16))
    stamped = cap.db.query("SELECT DISTINCT context FROM repl_items")
    assert len(stamped) == 1


def test_origin_is_a_session_variable_of_the_prefix(cap: Cap) -> None:
    p0 = cap.tick()
    conn = cap.conn()
    cur = conn.cursor()
    cap.cap.set_origin(conn, "dec02")
    cur.execute("INSERT INTO t VALUES (1, 'from dec02')")
    cur.execute("SELECT @repl_origin")
    assert cur.fetchone()[0] == "dec02"
    cap.cap.set_origin(conn, None)
    cur.execute("INSERT INTO t VALUES (2, 'local')")
    conn.commit()
    conn.close()
    _, recs = cap.window(p0)
    assert [(r.row["id"], r.dbid) for r in recs] == [(1, "dec02"), (2, "dec01")]


def test_purge_and_keys_never_repeat(cap: Cap) -> None:
    cap.tx("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    p1 = cap.tick()
    cap.tx("INSERT INTO t VALUES (3, 'c')")
    p2 = cap.tick()
    last = cap.db.query("SELECT MAX(repl_key) FROM repl_items")[0][0]
    conn = cap.conn()
    assert cap.cap.purge(conn, p1) == 2
    assert [r.row["id"] for r in cap.cap.changes(conn, cap.ref, 0, p2)] == [3]
    assert cap.cap.purge(conn, p2) == 1
    conn.close()
    assert cap.db.query("SELECT COUNT(*) FROM repl_items") == [(0,)]
    assert cap.db.query("SELECT tick_id FROM repl_ticks") == [(p2,)]
    cap.tx("INSERT INTO t VALUES (4, 'd')")
    _, recs = cap.window(p2)
    assert [r.row["id"] for r in recs] == [4] and recs[0].repl_key > last


def test_a_reset_counter_is_detected(cap: Cap) -> None:
    cap.tx("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    p1 = cap.tick()
    conn = cap.conn()
    cap.cap.purge(conn, p1)
    conn.close()
    cap.db.execute("ALTER TABLE repl_items AUTO_INCREMENT = 1")  # what a TRUNCATE would do
    cap.tx("INSERT INTO t VALUES (3, 'c')")
    conn = cap.conn()
    with pytest.raises(StreamIdentityError, match="counter was reset"):
        cap.cap.tick(conn)
    conn.close()


def test_replace_is_captured_as_the_delete_and_insert_it_does(cap: Cap) -> None:
    cap.tx("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    p0 = cap.tick()
    cap.tx("REPLACE INTO t VALUES (1, 'a2'), (3, 'new')")
    _, recs = cap.window(p0)
    assert rows(recs) == [
        ("DELETE", None, {"id": 1, "name": "a"}),
        ("INSERT", {"id": 1, "name": "a2"}, None),
        ("INSERT", {"id": 3, "name": "new"}, None),
    ]
    assert len({r.trans_key for r in recs}) == 1


def test_replace_without_delete_capture(maria_db: Any) -> None:
    """With actions IU there is no DELETE trigger; REPLACE then overwrites the row in place
    and MariaDB fires the INSERT trigger only: the new row arrives as an INSERT."""
    maria_db.execute(T)
    cap = install(maria_db, TableConfig(name="t", actions="IU"))
    cap.tx("INSERT INTO t VALUES (1, 'a')")
    p0 = cap.tick()
    cap.tx("REPLACE INTO t VALUES (1, 'a2')")
    _, recs = cap.window(p0)
    assert rows(recs) == [("INSERT", {"id": 1, "name": "a2"}, None)]


def test_insert_on_duplicate_key_update(cap: Cap) -> None:
    cap.tx("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    p0 = cap.tick()
    cap.tx(
        "INSERT INTO t VALUES (1, 'a2'), (3, 'c'), (2, 'b')"
        " ON DUPLICATE KEY UPDATE name = VALUES(name)",
        "INSERT IGNORE INTO t VALUES (1, 'ignored')",
    )
    _, recs = cap.window(p0)
    assert rows(recs) == [
        ("UPDATE", {"id": 1, "name": "a2"}, {"id": 1, "name": "a"}),
        ("INSERT", {"id": 3, "name": "c"}, None),
        ("UPDATE", {"id": 2, "name": "b"}, {"id": 2, "name": "b"}),
    ]


def test_key_update_and_order_within_a_statement(cap: Cap) -> None:
    cap.tx("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    p0 = cap.tick()
    cap.tx("UPDATE t SET id = id + 10 ORDER BY id DESC", "DELETE FROM t WHERE id = 11")
    _, recs = cap.window(p0)
    assert rows(recs) == [
        ("UPDATE", {"id": 12, "name": "b"}, {"id": 2, "name": "b"}),
        ("UPDATE", {"id": 11, "name": "a"}, {"id": 1, "name": "a"}),
        ("DELETE", None, {"id": 11, "name": "a"}),
    ]


def test_changes_query_reads_what_changes_reads(cap: Cap) -> None:
    p0 = cap.tick()
    cap.tx("INSERT INTO t VALUES (1, 'a')", "UPDATE t SET name = 'b'")
    upto, recs = cap.window(p0)
    sql = cap.cap.changes_query(cap.ref, p0, upto)
    got = sorted(cap.db.query(sql))
    assert [g[:9] + (g[10],) for g in got] == [
        (
            r.repl_key,
            r.context,
            r.trans_key,
            r.dbid,
            r.tablename,
            r.db_schema,
            r.db_action,
            r.content,
            r.oldcontent,
            r.version,
        )
        for r in recs
    ]
    assert [g[9] for g in got] == [
        r.captured_at.strftime("%Y-%m-%d %H:%M:%S.%f") for r in recs if r.captured_at
    ]
    assert cap.cap.changes_query(cap.ref, p0, p0) != sql
    assert cap.db.query(cap.cap.changes_query(TableName(name="u"), p0, upto)) == []
