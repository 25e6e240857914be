"""A row read by ``snapshot`` is the same JSON as the change the capture trigger records for
it, on every vendor and for the types each writes in its own way (floats, -0, JSON and its
null, arrays, binary, money, timestamps, bits): the copy and the rounds then apply rows
through the same statements, so a snapshot is as exact as replication itself."""

from __future__ import annotations

import json
from typing import Any

from syncpoint.config import TableConfig
from syncpoint.vendors import of_url
from syncpoint.vendors.snapshotbase import row_source, sql

TABLE = {
    "postgres": (
        "CREATE TABLE snap_t (id bigint PRIMARY KEY, f8 double precision, f4 real, "
        "n numeric(10,3), t text, b bytea, j jsonb, js json, arr int[], ts timestamptz, "
        "tsn timestamp, d date, bo boolean, m money, iv interval)",
        "INSERT INTO snap_t VALUES (1, -0.0, 0.1, 12.500, 'ü ✓', '\\x00ff', "
        "'{\"a\": [1, 2.50]}', 'null', '{1,NULL,3}', '2024-05-01 10:00:00.123456+02', "
        "'2024-05-01 10:00:00', '2024-05-01', true, 12.34, '1 day 2 hours'), "
        "(2, 'NaN', '-Infinity', NULL, NULL, NULL, 'null', NULL, '{}', NULL, NULL, NULL, "
        "NULL, NULL, NULL)",
    ),
    "mariadb": (
        "CREATE TABLE snap_t (id bigint PRIMARY KEY, f double, fl float, n decimal(10,3), "
        "t text, b blob, j json, ts timestamp(6) NULL, dt datetime(6), d date, bo tinyint(1), "
        "bt bit(8)) ENGINE=InnoDB",
        "INSERT INTO snap_t VALUES (1, 0.1, 0.1, 12.500, 'ü ✓', x'00ff', '{\"a\": [1, 2.50]}', "
        "'2024-05-01 10:00:00.123456', '2024-05-01 10:00:00', '2024-05-01', 1, b'101'), "
        "(2, NULL, NULL, NULL, NULL, NULL, 'null', NULL, NULL, NULL, NULL, NULL)",
    ),
    "sqlite": (
        "CREATE TABLE snap_t (id INTEGER PRIMARY KEY, r REAL, n NUMERIC, t TEXT, b BLOB, j JSON)",
        "INSERT INTO snap_t VALUES (1, 0.1, 12.5, 'ü ✓', x'00ff', '{\"a\": [1, 2.50]}'), "
        "(2, 1e300, 7, NULL, NULL, 'null'), (3, NULL, NULL, NULL, NULL, NULL)",
    ),
}


def test_snapshot_rows_are_the_captured_content(any_db: Any) -> None:
    create, insert = TABLE[any_db.vendor]
    any_db.execute(create, insert)
    name = "public.snap_t" if any_db.vendor == "postgres" else "snap_t"
    cap = of_url(any_db.url).Capture("src", any_db.url, "repl_")
    conn = cap.connect()
    cap.install(conn, [TableConfig(name=name)])
    conn.rollback()
    any_db.execute("UPDATE snap_t SET id = id")  # each row captured as it is
    tick = cap.tick(conn)
    conn.rollback()
    ref = TableConfig(name=name).ref
    captured = {
        json.loads(r.content)["id"]: json.loads(r.content)
        for r in cap.changes(conn, ref, 0, tick.context)
        if r.db_action in ("UPDATE", "INSERT") and r.content
    }
    rows = row_source(any_db.vendor, conn, ref, "repl_")
    cur = conn.cursor()
    if rows.session_init:
        for stmt in rows.session_init.split(";"):
            cur.execute(stmt)
    extra = f", {rows.letters} AS sp_fix" if rows.letters else ""
    cur.execute(
        sql(
            any_db.vendor,
            "select",
            part="0",
            content=rows.content,
            extra=extra,
            table=rows.table,
            range="1 = 1",
        )
    )
    copied = {}
    for r in cur.fetchall():
        text = rows.finish(r[1], r[2]) if rows.finish else r[1]
        doc = json.loads(text)
        copied[doc["id"]] = doc
    conn.rollback()
    conn.close()
    assert copied and copied == captured
