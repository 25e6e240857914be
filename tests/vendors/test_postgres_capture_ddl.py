"""PostgreSQL capture of DDL: event triggers write CREATE/ALTER/DROP records of watched
tables (and statement triggers TRUNCATE), in the stream with the rows, per prefix."""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg
import pytest
from test_postgres_capture_support import Pg, rows, tx

from syncpoint.config import TableConfig

T = "CREATE TABLE public.t (id integer PRIMARY KEY, name text)"
ID = {"name": "id", "type": "integer", "nullable": False, "pk": 1}
NAME = {"name": "name", "type": "text", "nullable": True, "pk": None}


def shape(table: str, *cols: dict[str, Any], schema: str = "public") -> dict[str, Any]:
    return {"schema": schema, "table": table, "columns": list(cols)}


def _pg(db: Any, *tables: TableConfig | str) -> tuple[Pg, int]:
    db.execute(T)
    pg = Pg(db)
    pg.install(*(tables or ("public.t",)))
    return pg, pg.tick()


def test_add_column_is_an_alter_record_in_order_with_the_rows(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    tx(
        pg_db,
        "INSERT INTO t VALUES (1, 'before')",
        "ALTER TABLE t ADD COLUMN qty numeric(10,3)",
        "INSERT INTO t VALUES (2, 'after', 1.500)",
    )
    _, recs = pg.window("public.t", p0)
    qty = {"name": "qty", "type": "numeric(10,3)", "nullable": True, "pk": None}
    assert rows(recs) == [
        ("INSERT", {"id": 1, "name": "before"}, None),
        ("ALTER", shape("t", ID, NAME, qty), shape("t", ID, NAME)),
        ("INSERT", {"id": 2, "name": "after", "qty": 1.5}, None),
    ]
    assert json.loads(recs[2].content)["qty"] == 1.5 and '"qty":1.500' in recs[2].content
    assert [r.version for r in recs] == [1, 2, 2]
    assert len({r.trans_key for r in recs}) == 1
    assert pg_db.query("SELECT version FROM repl_tables") == [(2,)]


def test_shape_neutral_ddl_writes_nothing(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    pg_db.execute(
        "ALTER TABLE t ALTER COLUMN name SET DEFAULT 'x'",
        "CREATE INDEX t_name ON t (name)",
        "CREATE TABLE other (a integer)",
        "ALTER TABLE other ADD COLUMN b text",
        "DROP TABLE other",
    )
    _, recs = pg.window("public.t", p0)
    assert recs == []
    assert pg_db.query("SELECT count(*) FROM repl_items") == [(0,)]


def test_renamed_key_column_is_followed(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    tx(pg_db, "INSERT INTO t VALUES (1, 'a')")
    pg_db.execute("ALTER TABLE t RENAME COLUMN id TO ident")
    tx(pg_db, "UPDATE t SET name = 'b'")
    _, recs = pg.window("public.t", p0)
    ident = {**ID, "name": "ident"}
    assert rows(recs) == [
        ("INSERT", {"id": 1, "name": "a"}, None),
        ("ALTER", shape("t", ident, NAME), shape("t", ID, NAME)),
        ("UPDATE", {"ident": 1, "name": "b"}, {"ident": 1, "name": "a"}),
    ]


def test_renamed_table_is_followed(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    pg_db.execute("ALTER TABLE t RENAME TO t2")
    tx(pg_db, "INSERT INTO t2 VALUES (1, 'a')")
    p1, old = pg.window("public.t", p0)
    assert rows(old) == [("ALTER", shape("t2", ID, NAME), shape("t", ID, NAME))]
    assert rows(pg.changes("public.t2", p0, p1)) == [("INSERT", {"id": 1, "name": "a"}, None)]
    assert [t.table for t in pg.status().tables] == ["public.t2"]


def test_drop_and_create_again(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    pg_db.execute("DROP TABLE t")
    assert [(t.status, t.trigger_name) for t in pg.status().tables] == [
        ("DROPPED: the table was dropped", "repl_capture_1")
    ]
    pg_db.execute("CREATE TABLE t (id bigint PRIMARY KEY, name text, extra text)")
    tx(pg_db, "INSERT INTO t VALUES (1, 'new', 'e')")
    _, recs = pg.window("public.t", p0)
    bid = {**ID, "type": "bigint"}
    extra = {"name": "extra", "type": "text", "nullable": True, "pk": None}
    assert rows(recs) == [
        ("DROP", None, shape("t", ID, NAME)),
        ("CREATE", shape("t", bid, NAME, extra), None),
        ("INSERT", {"id": 1, "name": "new", "extra": "e"}, None),
    ]
    assert [r.version for r in recs] == [2, 3, 3]
    assert [t.status for t in pg.status().tables] == ["OK"]


def test_created_again_without_key_waits_for_one(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    pg_db.execute("DROP TABLE t", "CREATE TABLE t (id integer, name text)")
    (st,) = pg.status().tables
    assert st.status.startswith("ERROR: ") and "no primary key" in st.status
    pg_db.execute("ALTER TABLE t ADD PRIMARY KEY (id)")
    assert [t.status for t in pg.status().tables] == ["OK"]
    tx(pg_db, "INSERT INTO t VALUES (1, 'a')")
    _, recs = pg.window("public.t", p0)
    nokey = {**ID, "nullable": True, "pk": None}
    assert [r.db_action for r in recs] == ["DROP", "CREATE", "ALTER", "INSERT"]
    assert recs[2].row == shape("t", ID, NAME) and recs[2].old == shape("t", nokey, NAME)


def test_drop_schema_cascade_is_a_drop(pg_db: Any) -> None:
    pg_db.execute("CREATE SCHEMA s", "CREATE TABLE s.t (id integer PRIMARY KEY)")
    pg = Pg(pg_db)
    pg.install("s.t")
    p0 = pg.tick()
    pg_db.execute("DROP SCHEMA s CASCADE")
    _, recs = pg.window("s.t", p0)
    assert rows(recs) == [("DROP", None, shape("t", ID, schema="s"))]


def test_dropping_the_key_of_a_captured_table_is_refused(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    with pytest.raises(psycopg.Error) as err:
        pg_db.execute("ALTER TABLE t DROP COLUMN id")
    assert "key column of table public.t was dropped" in str(err.value)
    # dropping only the constraint keeps pairing on the former key columns
    pg_db.execute("ALTER TABLE t DROP CONSTRAINT t_pkey")
    tx(pg_db, "INSERT INTO t VALUES (1, 'a')", "UPDATE t SET name = 'b'")
    _, recs = pg.window("public.t", p0)
    assert [r.db_action for r in recs] == ["ALTER", "INSERT", "UPDATE"]
    assert recs[2].old == {"id": 1, "name": "a"}


def test_type_change_to_bytea_switches_the_encoding(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    pg_db.execute("ALTER TABLE t ALTER COLUMN name TYPE bytea USING convert_to(name, 'UTF8')")
    tx(pg_db, "INSERT INTO t VALUES (1, '\\x00ff')")
    _, recs = pg.window("public.t", p0)
    assert [r.db_action for r in recs] == ["ALTER", "INSERT"]
    assert recs[1].row == {"id": 1, "name": "AP8="}


def test_truncate_record_carries_the_shape(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    tx(pg_db, "INSERT INTO t VALUES (1, 'a')", "TRUNCATE t", "INSERT INTO t VALUES (2, 'b')")
    _, recs = pg.window("public.t", p0)
    assert rows(recs) == [
        ("INSERT", {"id": 1, "name": "a"}, None),
        ("TRUNCATE", shape("t", ID, NAME), None),
        ("INSERT", {"id": 2, "name": "b"}, None),
    ]
    assert [r.version for r in recs] == [1, 1, 1]
    assert [e["db_action"] for e in pg.status().ddl_events] == ["TRUNCATE"]


def test_status_lists_ddl_until_purged_and_an_older_install_keeps_its_list(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    tx(pg_db, "ALTER TABLE t ADD COLUMN qty integer", "TRUNCATE t")
    pg_db.execute("DROP TABLE t")
    assert [(e["db_action"], e["version"]) for e in pg.status().ddl_events] == [
        ("ALTER", 2),
        ("TRUNCATE", 2),
        ("DROP", 3),
    ]
    # an install made before the DDL log listed DDL by a partial index of the queue: a
    # reinstall moves its DDL records to the log and drops that index
    pg_db.execute(
        "DELETE FROM repl_ddl_log WHERE db_action <> 'DROP'",
        "CREATE INDEX repl_items_ddl ON repl_items (repl_key)"
        " WHERE db_action IN ('CREATE', 'ALTER', 'DROP', 'TRUNCATE')",
    )
    pg_db.execute(T)  # the table again: a CREATE record
    pg.install("public.t")
    listed = [e["db_action"] for e in pg.status().ddl_events]
    assert listed == ["ALTER", "TRUNCATE", "DROP", "CREATE"]
    assert pg_db.query("SELECT to_regclass('repl_items_ddl')") == [(None,)]
    # purged with the records it lists
    conn = pg.conn()
    try:
        pg.cap.purge(conn, pg.tick())
    finally:
        conn.close()
    assert pg.status().ddl_events == []


def test_event_triggers_of_two_prefixes_keep_to_their_tables(pg_db: Any) -> None:
    pg_db.execute(T, "CREATE TABLE public.u (id integer PRIMARY KEY)")
    a, b = Pg(pg_db, prefix="aa_"), Pg(pg_db, prefix="bb_")
    a.install("public.t")
    b.install("public.t", "public.u")
    pa, pb = a.tick(), b.tick()
    pg_db.execute("ALTER TABLE t ADD COLUMN c integer", "ALTER TABLE u ADD COLUMN c integer")
    tx(pg_db, "INSERT INTO t VALUES (1, 'x', 2)")
    _, ra = a.window("public.t", pa)
    qb, rb = b.window("public.t", pb)
    assert [(r.db_action, r.version) for r in ra] == [("ALTER", 2), ("INSERT", 2)]
    assert [(r.db_action, r.version) for r in rb] == [("ALTER", 2), ("INSERT", 2)]
    assert [r.db_action for r in b.changes("public.u", pb, qb)] == ["ALTER"]
    assert pg_db.query("SELECT count(*) FROM aa_items WHERE tablename = 'u'") == [(0,)]
    b.uninstall()
    pg_db.execute("ALTER TABLE t ADD COLUMN d integer")
    _, ra = a.window("public.t", pa)
    assert [r.db_action for r in ra] == ["ALTER", "INSERT", "ALTER"]


def test_non_superuser_ddl_and_dml_are_captured(pg_db: Any) -> None:
    role = f"sp_app_{uuid.uuid4().hex[:8]}"
    pg_db.execute(f"CREATE ROLE {role} LOGIN", f"GRANT CREATE, USAGE ON SCHEMA public TO {role}")
    try:
        app = type(pg_db)("postgres", pg_db.url.replace("postgres@", f"{role}@", 1), pg_db.name)
        app.execute(T)
        pg = Pg(pg_db)
        pg.install("public.t")
        p0 = pg.tick()
        tx(app, "INSERT INTO t VALUES (1, 'a')", "ALTER TABLE t ADD COLUMN c text")
        tx(app, "UPDATE t SET c = 'z'")
        _, recs = pg.window("public.t", p0)
        assert [r.db_action for r in recs] == ["INSERT", "ALTER", "UPDATE"]
        assert recs[2].row == {"id": 1, "name": "a", "c": "z"}
    finally:
        pg_db.execute(f"DROP OWNED BY {role} CASCADE", f"DROP ROLE {role}")


def test_the_applications_migrations_of_the_key_column_go_through(pg_db: Any) -> None:
    # capture's triggers depend on no column: retyping or renaming the key is the
    # application's business, and capture follows it
    pg, p0 = _pg(pg_db)
    tx(pg_db, "INSERT INTO t VALUES (1, 'a')")
    pg_db.execute("ALTER TABLE t ALTER COLUMN id TYPE bigint")
    pg_db.execute("ALTER TABLE t RENAME COLUMN id TO key")
    tx(pg_db, "UPDATE t SET name = 'b' WHERE key = 1", "UPDATE t SET key = 2")
    _, recs = pg.window("public.t", p0)
    assert [r for r in rows(recs) if r[0] in ("INSERT", "UPDATE", "DELETE")] == [
        ("INSERT", {"id": 1, "name": "a"}, None),
        ("UPDATE", {"key": 1, "name": "b"}, {"key": 1, "name": "a"}),
        ("DELETE", None, {"key": 1, "name": "b"}),
        ("INSERT", {"key": 2, "name": "b"}, None),
    ]
