"""SQLite capture: statements that change rows without the usual triggers firing, and names
that must only ever reach SQL quoted."""

from __future__ import annotations

from typing import Any

import pytest
from test_sqlite_capture_support import Sl, app_conn, tx

from syncpoint.config import TableConfig

T = "CREATE TABLE t (id INTEGER PRIMARY KEY, email TEXT UNIQUE COLLATE NOCASE, n INTEGER)"


def setup(db: Any, ddl: str = T, *entries: str | TableConfig) -> Sl:
    db.execute(*ddl.split("; "))
    sl = Sl(db)
    sl.install(*(entries or ("t",)))
    return sl


def apply(rows: list[tuple[str, Any, Any]]) -> dict[Any, Any]:
    """Replay records on a dict keyed by id: what a target would end up with."""
    state: dict[Any, Any] = {}
    for action, row, old in rows:
        if action in ("DELETE", "UPDATE"):
            assert old["id"] in state, f"{action} of a row the target does not have: {old}"
            del state[old["id"]]
        if action in ("INSERT", "UPDATE"):
            assert row["id"] not in state, f"{action} onto an existing row: {row}"
            state[row["id"]] = row
    return state


def table(db: Any) -> dict[Any, Any]:
    return {r[0]: {"id": r[0], "email": r[1], "n": r[2]} for r in db.query("SELECT * FROM t")}


@pytest.mark.parametrize("recursive", [False, True])
def test_insert_or_replace_records_the_rows_it_deletes(sqlite_db: Any, recursive: bool) -> None:
    sl = setup(sqlite_db)
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a@x', 1), (2, 'b@x', 2)")
    p0 = sl.tick()
    conn = app_conn(sqlite_db)
    conn.execute(f"PRAGMA recursive_triggers = {int(recursive)}")
    conn.execute("BEGIN")
    # conflicts with row 1 on the key and with row 2 on the unique email (NOCASE)
    conn.execute("INSERT OR REPLACE INTO t VALUES (1, 'B@X', 3)")
    conn.execute("REPLACE INTO t VALUES (5, 'new@x', 5)")  # no conflict: a plain insert
    conn.execute("COMMIT")
    conn.close()
    rows = sl.rows("t", p0)
    assert rows == [
        ("DELETE", None, {"id": 1, "email": "a@x", "n": 1}),
        ("DELETE", None, {"id": 2, "email": "b@x", "n": 2}),
        ("INSERT", {"id": 1, "email": "B@X", "n": 3}, None),
        ("INSERT", {"id": 5, "email": "new@x", "n": 5}, None),
    ]
    start = {1: {"id": 1, "email": "a@x", "n": 1}, 2: {"id": 2, "email": "b@x", "n": 2}}
    assert {**start, **{}} and apply([("INSERT", v, None) for v in start.values()] + rows) == table(
        sqlite_db
    )


def test_update_or_replace_records_the_rows_it_deletes(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a@x', 1), (2, 'b@x', 2), (3, 'c@x', 3)")
    p0 = sl.tick()
    tx(
        sqlite_db,
        "UPDATE OR REPLACE t SET email = 'c@x' WHERE id = 1",
        "UPDATE OR REPLACE t SET id = 2 WHERE id = 1",
    )
    rows = sl.rows("t", p0)
    assert rows == [
        ("DELETE", None, {"id": 3, "email": "c@x", "n": 3}),
        ("UPDATE", {"id": 1, "email": "c@x", "n": 1}, {"id": 1, "email": "a@x", "n": 1}),
        ("DELETE", None, {"id": 2, "email": "b@x", "n": 2}),
        ("UPDATE", {"id": 2, "email": "c@x", "n": 1}, {"id": 1, "email": "c@x", "n": 1}),
    ]
    assert table(sqlite_db) == {2: {"id": 2, "email": "c@x", "n": 1}}


def test_ignore_and_upsert_record_only_what_happened(sqlite_db: Any) -> None:
    sl = setup(sqlite_db)
    tx(sqlite_db, "INSERT INTO t VALUES (1, 'a@x', 1)")
    p0 = sl.tick()
    tx(
        sqlite_db,
        "INSERT OR IGNORE INTO t VALUES (1, 'other@x', 9)",  # ignored: nothing happened
        "INSERT INTO t VALUES (2, 'A@X', 2) ON CONFLICT (email) DO UPDATE SET n = 10",
        "INSERT INTO t VALUES (3, 'c@x', 3) ON CONFLICT DO NOTHING",
        "INSERT INTO t VALUES (4, 'c@x', 4) ON CONFLICT DO NOTHING",
        "INSERT INTO t VALUES (5, 'e@x', 5)",
        "DELETE FROM t WHERE id = 3",
        "UPDATE OR IGNORE t SET email = 'E@x' WHERE id = 1",  # conflicts with 5: ignored
        "UPDATE t SET n = 11 WHERE id = 1",
    )
    assert sl.rows("t", p0) == [
        ("UPDATE", {"id": 1, "email": "a@x", "n": 10}, {"id": 1, "email": "a@x", "n": 1}),
        ("INSERT", {"id": 3, "email": "c@x", "n": 3}, None),
        ("INSERT", {"id": 5, "email": "e@x", "n": 5}, None),
        ("DELETE", None, {"id": 3, "email": "c@x", "n": 3}),
        ("UPDATE", {"id": 1, "email": "a@x", "n": 11}, {"id": 1, "email": "a@x", "n": 10}),
    ]


def test_replace_on_a_without_rowid_table(sqlite_db: Any) -> None:
    ddl = "CREATE TABLE w (k TEXT PRIMARY KEY, u INTEGER UNIQUE, v TEXT) WITHOUT ROWID"
    sl = setup(sqlite_db, ddl, "w")
    tx(sqlite_db, "INSERT INTO w VALUES ('a', 1, 'x'), ('b', 2, 'y')")
    p0 = sl.tick()
    tx(
        sqlite_db,
        "INSERT OR IGNORE INTO w VALUES ('c', 1, 'ignored')",
        "INSERT INTO w VALUES ('d', 4, 'plain')",
        "REPLACE INTO w VALUES ('a', 2, 'z')",
    )
    assert [(a, (r or o)["k"]) for a, r, o in sl.rows("w", p0)] == [
        ("INSERT", "d"),
        ("DELETE", "a"),
        ("DELETE", "b"),
        ("INSERT", "a"),
    ]


def test_foreign_key_cascades_are_captured(sqlite_db: Any) -> None:
    ddl = (
        "CREATE TABLE p (id INTEGER PRIMARY KEY); "
        "CREATE TABLE c (id INTEGER PRIMARY KEY, "
        "pid INTEGER REFERENCES p (id) ON DELETE CASCADE ON UPDATE SET NULL)"
    )
    sl = setup(sqlite_db, ddl, "p", "c")
    tx(sqlite_db, "INSERT INTO p VALUES (1), (2)", "INSERT INTO c VALUES (10, 1), (20, 2)")
    p0 = sl.tick()
    tx(sqlite_db, "DELETE FROM p WHERE id = 1", "UPDATE p SET id = 3 WHERE id = 2")
    p1, recs = sl.window("c", p0)
    assert [(r.db_action, r.row, r.old) for r in recs] == [
        ("DELETE", None, {"id": 10, "pid": 1}),
        ("UPDATE", {"id": 20, "pid": None}, {"id": 20, "pid": 2}),
    ]
    assert [r.db_action for r in sl.changes("p", p0, p1)] == ["DELETE", "UPDATE"]


HOSTILE = [
    'Mixed Case "T"; DROP TABLE x; --',
    "select",
    "order`s",
    "user",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_identifiers(sqlite_db: Any, name: str) -> None:
    q = '"' + name.replace('"', '""') + '"'
    cols = ['"Id"', '"we""ird col"', '"select"', '"a;b"', '"é ü 😀"']
    sqlite_db.execute(
        f"CREATE TABLE {q} ({cols[0]} INTEGER PRIMARY KEY, {cols[1]} TEXT UNIQUE, "
        f"{cols[2]} INTEGER, {cols[3]} TEXT, {cols[4]} BLOB)"
    )
    sl = Sl(sqlite_db)
    entry = TableConfig(
        name='"' + name.replace('"', '""') + '"' if "." in name or '"' in name else name
    )
    assert entry.ref.name == name
    assert sl.call("check", [entry]) == []
    sl.install(entry)
    tx(
        sqlite_db,
        f"INSERT INTO {q} VALUES (1, 'x', 2, 'y', x'01')",
        f"INSERT OR REPLACE INTO {q} VALUES (2, 'x', 3, 'z', NULL)",
        f"UPDATE {q} SET {cols[2]} = 4",
        f"DELETE FROM {q}",
    )
    keys = ["Id", 'we"ird col', "select", "a;b", "é ü 😀"]
    one = dict(zip(keys, [1, "x", 2, "y", "AQ=="], strict=True))
    two = dict(zip(keys, [2, "x", 3, "z", None], strict=True))
    assert sl.rows(name, 0) == [
        ("INSERT", one, None),
        ("DELETE", None, one),
        ("INSERT", two, None),
        ("UPDATE", {**two, "select": 4}, two),
        ("DELETE", None, {**two, "select": 4}),
    ]
    assert [t.status for t in sl.status().tables] == ["OK"]
    sl.uninstall()
    assert [
        n for (n,) in sqlite_db.query("SELECT name FROM sqlite_master") if n.startswith("repl_")
    ] == []


def test_a_wide_table(sqlite_db: Any) -> None:
    # json_object takes at most 127 arguments here: 150 columns are spliced from 3 calls
    cols = ", ".join(f"c{i} INTEGER" for i in range(150))
    sl = setup(sqlite_db, f"CREATE TABLE t (id INTEGER PRIMARY KEY, {cols})")
    values = ", ".join(str(i) for i in range(150))
    tx(sqlite_db, f"INSERT INTO t VALUES (1, {values})", "UPDATE t SET c149 = -1")
    rows = sl.rows("t", 0)
    assert rows[0][1] == {"id": 1, **{f"c{i}": i for i in range(150)}}
    assert list(rows[0][1]) == ["id"] + [f"c{i}" for i in range(150)]  # column order kept
    assert rows[1][1]["c149"] == -1 and rows[1][2]["c149"] == 149
