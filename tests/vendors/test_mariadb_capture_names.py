"""MariaDB capture: tables and columns with hostile names are captured exactly, and names
that try to inject SQL reach the database only as quoted identifiers."""

from __future__ import annotations

from typing import Any

import pytest
from test_mariadb_capture_support import install, rows

from syncpoint.config import TableConfig, TableName

HOSTILE = "Order `x` 'q\" ;-- DROP TABLE canary"
BACKSLASH = "back\\slash ta'ble"
COLUMNS = ["id", "user", "order", "a`b", "c'd", 'e"f', "g\\h", "spa ce", "Mixed", "ÿñ ✓"]


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _create(db: Any, table: str) -> None:
    cols = ", ".join(
        f"{_q(c)} INT PRIMARY KEY" if c == "id" else f"{_q(c)} VARCHAR(20)" for c in COLUMNS
    )
    db.execute(f"CREATE TABLE {_q(table)} ({cols}) ENGINE=InnoDB")


@pytest.mark.parametrize("table", [HOSTILE, BACKSLASH, "select", "ÜNï tåble"])
def test_hostile_names_are_captured_exactly(maria_db: Any, table: str) -> None:
    maria_db.execute("CREATE TABLE canary (id INT PRIMARY KEY)")
    _create(maria_db, table)
    cap = install(maria_db, TableConfig(name=table, debug=True))
    p0 = cap.tick()
    values = {c: (1 if c == "id" else f"v{i}'\\`\"") for i, c in enumerate(COLUMNS)}
    names = ", ".join(_q(c) for c in COLUMNS)
    marks = ", ".join(["%s"] * len(COLUMNS))
    cap.tx(f"INSERT INTO {_q(table)} ({names}) VALUES ({marks})", params=list(values.values()))
    gh = _q("g\\h")
    cap.tx(f"UPDATE {_q(table)} SET {gh} = 'new' WHERE {_q('user')} IS NOT NULL")
    cap.tx(f"DELETE FROM {_q(table)}")
    upto, recs = cap.window(p0)
    updated = {**values, "g\\h": "new"}
    assert rows(recs) == [
        ("INSERT", values, None),
        ("UPDATE", updated, values),
        ("DELETE", None, updated),
    ]
    assert all(r.tablename == table for r in recs)
    assert list(recs[0].row) == COLUMNS
    got = maria_db.query(cap.cap.changes_query(TableName(name=table), p0, upto))
    assert [g[0] for g in got] == [r.repl_key for r in recs]
    assert maria_db.query("SELECT COUNT(*) FROM canary") == [(0,)]
    # DDL on the hostile table is seen and its triggers rendered again
    maria_db.execute(f"ALTER TABLE {_q(table)} ADD COLUMN {_q('new`col')} INT")
    assert cap.poll() == 1
    cap.tx(f"INSERT INTO {_q(table)} ({_q('id')}, {_q('new`col')}) VALUES (2, 3)")
    _, later = cap.window(upto)
    assert later[-1].row["new`col"] == 3 and later[-1].row["user"] is None
    conn = cap.conn()
    cap.cap.uninstall(conn)
    conn.close()
    assert maria_db.query(
        "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = %s",
        (maria_db.name,),
    ) == [(0,)]


def test_table_names_differing_only_in_case_are_kept_apart(maria_db: Any) -> None:
    maria_db.execute(
        "CREATE TABLE `MixedCase` (id INT PRIMARY KEY, v INT)",
        "CREATE TABLE `mixedcase` (id INT PRIMARY KEY, w VARCHAR(5))",
    )
    cap = install(maria_db, "MixedCase", "mixedcase")
    p0 = cap.tick()
    cap.tx("INSERT INTO `MixedCase` VALUES (1, 10)", "INSERT INTO `mixedcase` VALUES (1, 'x')")
    upto, upper = cap.window(p0, table="MixedCase")
    conn = cap.conn()
    lower = cap.cap.changes(conn, TableName(name="mixedcase"), p0, upto)
    shape = cap.cap.describe(conn, TableName(name="mixedcase"))
    conn.close()
    assert rows(upper) == [("INSERT", {"id": 1, "v": 10}, None)]
    assert rows(lower) == [("INSERT", {"id": 1, "w": "x"}, None)]
    assert shape is not None and [c.name for c in shape.columns] == ["id", "w"]
    assert cap.poll() == 0


def test_reserved_words_as_names(maria_db: Any) -> None:
    maria_db.execute(
        "CREATE TABLE `order` (`select` INT PRIMARY KEY, `from` TEXT, `where` DATE, `user` INT)"
    )
    cap = install(maria_db, "order")
    p0 = cap.tick()
    cap.tx("INSERT INTO `order` VALUES (1, 'x', '2024-02-29', NULL)")
    _, recs = cap.window(p0, table="order")
    assert recs[0].content == '{"select": 1, "from": "x", "where": "2024-02-29", "user": null}'
