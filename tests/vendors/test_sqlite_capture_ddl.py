"""SQLite capture: DDL found by polling, in order with the rows, and the triggers kept right."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest
from test_sqlite_capture_support import Sl, listing, tx

T = "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)"
OLD = {
    "columns": [
        {"name": "id", "type": "integer", "nullable": True, "pk": 1},
        {"name": "name", "type": "text", "nullable": True, "pk": None},
    ]
}


def setup(db: Any) -> Sl:
    db.execute(T)
    sl = Sl(db)
    sl.install("t")
    return sl


def ddl(recs: list[Any]) -> list[tuple[str, Any, Any, int]]:
    return [(r.db_action, r.row, r.old, r.version) for r in recs]


def test_add_column_never_refuses_a_write_and_the_poll_captures_the_rows_again(
    sqlite_db: Any,
) -> None:
    sl = setup(sqlite_db)
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'before')")
    tx(sqlite_db, "ALTER TABLE t ADD COLUMN qty INTEGER NOT NULL DEFAULT 0")
    # the old triggers keep capturing what they know: the application's write goes through
    tx(sqlite_db, "INSERT INTO t VALUES (2, 'between', 5)")
    tx(sqlite_db, "INSERT INTO t VALUES (3, 'gone', 6)", "DELETE FROM t WHERE id = 3")
    # ALTER record + rows 1 and 2 captured again (1 is unstamped too; 3 no longer exists)
    assert sl.poll() == 3
    assert sl.poll() == 0
    tx(sqlite_db, "INSERT INTO t VALUES (4, 'after', 7)")
    recs = sl.window("t", 0)[1]
    new = {
        "columns": OLD["columns"]
        # the rows already there read its default: marked, the rounds stop there
        + [{"name": "qty", "type": "integer", "nullable": False, "pk": None, "filled": True}]
    }
    assert ddl(recs) == [
        ("INSERT", {"id": 1, "name": "before"}, None, 1),
        ("INSERT", {"id": 2, "name": "between"}, None, 1),
        ("INSERT", {"id": 3, "name": "gone"}, None, 1),
        ("DELETE", None, {"id": 3, "name": "gone"}, 1),
        ("ALTER", new, OLD, 2),
        ("UPDATE", {"id": 1, "name": "before", "qty": 0}, {"id": 1, "name": "before", "qty": 0}, 2),
        (
            "UPDATE",
            {"id": 2, "name": "between", "qty": 5},
            {"id": 2, "name": "between", "qty": 5},
            2,
        ),
        ("INSERT", {"id": 4, "name": "after", "qty": 7}, None, 2),
    ]
    st = sl.status()
    assert [(e["db_action"], e["version"]) for e in st.ddl_events] == [("ALTER", 2)]
    assert sqlite_db.query("SELECT version FROM repl_tables") == [(2,)]


def test_a_tick_polls_first_so_no_stale_record_is_readable_alone(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    tx(sqlite_db, "ALTER TABLE t ADD COLUMN qty REAL")
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 1.5)")
    top = sl.tick()
    actions = [(r.db_action, r.row) for r in sl.window("t", 0)[1] if r.context <= top]
    assert actions[-1] == ("UPDATE", {"id": 1, "name": "a", "qty": 1.5})
    assert [a for a, _ in actions] == ["INSERT", "ALTER", "UPDATE"]


def test_rename_column_keeps_capturing_under_the_old_name_until_polled(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    tx(sqlite_db, "ALTER TABLE t RENAME COLUMN name TO label")
    # SQLite rewrote the trigger bodies: the row is captured, under the shape before the
    # ALTER record that follows it in the stream
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'x')")
    assert sl.poll() == 2  # the ALTER record, then row 1 again under the new names
    tx(sqlite_db, "UPDATE t SET label = 'y'")
    recs = sl.window("t", 0)[1]
    assert [(r.db_action, r.row, r.version) for r in recs][0] == (
        "INSERT",
        {"id": 1, "name": "x"},
        1,
    )
    assert recs[1].db_action == "ALTER"
    assert [c["name"] for c in recs[1].row["columns"]] == ["id", "label"]
    assert (recs[2].db_action, recs[2].row) == ("UPDATE", {"id": 1, "label": "x"})
    assert (recs[3].row, recs[3].old, recs[3].version) == (
        {"id": 1, "label": "y"},
        {"id": 1, "label": "x"},
        2,
    )


def test_drop_column_is_refused_by_sqlite_and_run_ddl_does_it(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    sqlite_db.execute("ALTER TABLE t ADD COLUMN extra TEXT")
    sl.poll()
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a', 'e')")
    with pytest.raises(sqlite3.OperationalError, match=r"repl_a.\$t"):
        tx(sqlite_db, "ALTER TABLE t DROP COLUMN extra")
    conn = sl.cap.connect()
    # the ALTER record, and row 1 (not stamped yet) captured again in the new shape
    assert sl.cap.run_ddl(conn, ["ALTER TABLE t DROP COLUMN extra"]) == 2
    conn.close()
    tx(sqlite_db, "UPDATE t SET name = 'b'")
    recs = sl.window("t", 0)[1]
    assert [r.db_action for r in recs] == ["ALTER", "INSERT", "ALTER", "UPDATE", "UPDATE"]
    assert recs[2].row == OLD and [c["name"] for c in recs[2].old["columns"]] == [
        "id",
        "name",
        "extra",
    ]
    assert recs[3].row == {"id": 1, "name": "a"}
    assert (recs[4].row, recs[4].old) == ({"id": 1, "name": "b"}, {"id": 1, "name": "a"})
    assert [t.status for t in sl.status().tables] == ["OK"]


def test_drop_and_create_again(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a')")
    tx(sqlite_db, "DROP TABLE t")
    assert sl.poll() == 1
    [t] = sl.status().tables
    assert t.status.startswith("DROPPED: the table no longer exists")
    tx(
        sqlite_db,
        "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, note TEXT)",
        "INSERT INTO t VALUES (5, 'early', NULL)",
    )  # before any trigger exists again
    assert sl.poll() == 2  # CREATE and the row already there
    tx(sqlite_db, "INSERT INTO t VALUES (6, 'late', 'n')")
    recs = sl.window("t", 0)[1]
    assert [(r.db_action, r.version) for r in recs] == [
        ("INSERT", 1),
        ("DROP", 2),
        ("CREATE", 3),
        ("INSERT", 3),
        ("INSERT", 3),
    ]
    assert recs[1].row is None and recs[1].old == OLD
    assert [c["name"] for c in recs[2].row["columns"]] == ["id", "name", "note"]
    assert [r.row["id"] for r in recs[3:]] == [5, 6]
    assert [t.status for t in sl.status().tables] == ["OK"]


def test_a_rebuilt_table_is_resynchronised(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    # the usual way to change a column type in SQLite: the triggers go with the old table
    tx(
        sqlite_db,
        "CREATE TABLE t_new (id INTEGER PRIMARY KEY, name BLOB)",
        "INSERT INTO t_new SELECT * FROM t",
        "DROP TABLE t",
        "ALTER TABLE t_new RENAME TO t",
    )
    tx(sqlite_db, "DELETE FROM t WHERE id = 1", "INSERT INTO t VALUES (3, 'c')")  # uncaptured
    assert sl.poll() == 4
    recs = sl.window("t", 0)[1]
    assert [r.db_action for r in recs] == [
        "INSERT",
        "INSERT",
        "ALTER",
        "TRUNCATE",
        "INSERT",
        "INSERT",
    ]
    assert [r.row for r in recs[4:]] == [{"id": 2, "name": "b"}, {"id": 3, "name": "c"}]
    tx(sqlite_db, "DELETE FROM t WHERE id = 2")
    assert [r.db_action for r in sl.window("t", recs[0].context)[1]] == ["DELETE"]


def test_a_trigger_dropped_by_hand_is_recreated_and_the_table_resent(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a')")
    p1 = sl.tick()
    tx(
        sqlite_db,
        'DROP TRIGGER "repl_ad$t"',
        "DELETE FROM t WHERE id = 1",
        "INSERT INTO t VALUES (2, 'b')",
    )
    assert sl.poll() == 2
    assert [(r.db_action, r.row) for r in sl.window("t", p1)[1]] == [
        ("INSERT", {"id": 2, "name": "b"}),
        ("TRUNCATE", OLD),
        ("INSERT", {"id": 2, "name": "b"}),
    ]
    assert ("trigger", "repl_ad$t") in {(t, n) for t, n, _, _ in listing(sqlite_db)}


def test_a_renamed_table_is_dropped_from_capture(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    tx(sqlite_db, "ALTER TABLE t RENAME TO t2")
    # the moved triggers still capture (under the old name, before the DROP record)
    tx(sqlite_db, "INSERT INTO t2 VALUES (1, 'a')")
    assert sl.poll() == 1
    tx(sqlite_db, "INSERT INTO t2 VALUES (2, 'b')")  # not captured any more
    assert [r.db_action for r in sl.window("t", 0)[1]] == ["INSERT", "DROP"]
    assert not [n for t, n, _, _ in listing(sqlite_db) if t == "trigger"]


def test_unrelated_ddl_changes_nothing_and_prefixes_do_not_fight(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    other = Sl(sqlite_db, "other_")
    other.install("t")
    tx(sqlite_db, "CREATE TABLE unrelated (x)", "CREATE INDEX t_name ON t (name)")
    before = listing(sqlite_db)
    for _ in range(2):
        assert sl.poll() == 0 and other.poll() == 0
    assert listing(sqlite_db) == before
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a')")
    assert [r.row for r in sl.window("t", 0)[1]] == [{"id": 1, "name": "a"}]
    sl.install("t")
    assert listing(sqlite_db) == before


def test_ddl_records_read_back_through_status_and_json(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    tx(sqlite_db, "ALTER TABLE t ADD COLUMN c REAL")
    sl.poll()
    raw = sqlite_db.query("SELECT content, oldcontent, fix FROM repl_items")
    assert json.loads(raw[0][1]) == OLD and raw[0][2] is None
