"""What the PostgreSQL catalog says of a table, and the traps that make capture unsafe.

``check_location`` and ``check_tables`` add to ``Capture.check`` what only PostgreSQL has:
event triggers (DDL capture as it happens) need a superuser, else DDL is polled; a
``SQL_ASCII`` database holds bytes that are not valid UTF-8 and so cannot become JSON text;
only plain and partitioned tables are captured, because statement triggers see the rows of
the statement's target only (rows written through an inheritance parent, or directly to a
child, would bypass them; a partitioned table gets the same triggers on every partition, and
a partition listed on its own is refused with the name of the table to list); a key named in
the channel file must have an equality the planner can hash or merge (the UPDATE pairing is
a FULL JOIN on it); and once installed, the queue sequence must keep CACHE 1 and NO CYCLE
(docs/internals.md, "Capture on PostgreSQL").
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import Column, TableShape
from syncpoint.vendors.postgres import dialect
from syncpoint.vendors.postgres.names import Names

RELKINDS = {
    "r": "table",
    "p": "partitioned table",
    "v": "view",
    "m": "materialized view",
    "f": "foreign table",
    "S": "sequence",
    "i": "index",
    "c": "composite type",
}


def _text(value: Any) -> Any:
    """psycopg returns text as bytes on a SQL_ASCII database."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def schema_of(table: TableName) -> str:
    return table.schema_ or dialect.DEFAULT_SCHEMA


def describe(conn: Any, objs: Names, table: TableName) -> tuple[str, TableShape] | None:
    """(relkind, shape) of the relation, or None when it does not exist."""
    rows = [
        tuple(_text(v) for v in r)
        for r in conn.execute(
            objs.one("queries/describe.sql"), {"schema": schema_of(table), "table": table.name}
        ).fetchall()
    ]
    if not rows:
        return None
    cols = tuple(
        Column(name=r[1], type=r[2], nullable=bool(r[3]), pk=r[4]) for r in rows if r[1] is not None
    )
    return rows[0][0], TableShape(TableName(schema=schema_of(table), name=table.name), cols)


def describe_many(
    conn: Any, objs: Names, tables: list[TableName]
) -> dict[str, TableShape | None]:
    """``describe``'s shapes of many relations in one query (keyed by ``str(table)``)."""
    refs = {(schema_of(t), t.name): t for t in tables}
    params = {"schemas": [s for s, _ in refs], "tables": [n for _, n in refs]}
    found: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for r in conn.execute(objs.one("queries/describe_many.sql"), params).fetchall():
        row = tuple(_text(v) for v in r)
        found.setdefault((str(row[0]), str(row[1])), []).append(row[2:])
    out: dict[str, TableShape | None] = {}
    for (schema, name), t in refs.items():
        rows = found.get((schema, name))
        cols = tuple(
            Column(name=r[1], type=r[2], nullable=bool(r[3]), pk=r[4])
            for r in rows or ()
            if r[1] is not None
        )
        out[str(t)] = TableShape(TableName(schema=schema, name=name), cols) if rows else None
    return out


def check_location(conn: Any, objs: Names, location: str) -> list[str]:
    problems: list[str] = []
    row = conn.execute(objs.one("queries/session.sql")).fetchone()
    _superuser, _user, encoding, _db = (_text(v) for v in row)
    # no superuser: no event triggers, DDL found by polling instead (``notes`` says so)
    if encoding == "SQL_ASCII":
        problems.append(
            "the database encoding is SQL_ASCII: text may hold bytes that are not UTF-8 and "
            "cannot be captured as JSON; use a UTF8 database"
        )
    problems += check_sequence(conn, objs)
    return problems


def user(conn: Any) -> tuple[str, bool]:
    """(the connection's user, whether it is a superuser)."""
    superuser, name, *_ = conn.execute(Names("x").one("queries/session.sql")).fetchone()
    return str(_text(name)), bool(superuser)


def superuser(conn: Any) -> bool:
    return user(conn)[1]


def check_sequence(conn: Any, objs: Names) -> list[str]:
    """Problems of the installed queue sequence (nothing when capture is not installed)."""
    if not installed(conn, objs):
        return []
    row = conn.execute(objs.one("queries/sequence.sql"), {"seq": objs.qualified("seq")}).fetchone()
    if row is None:
        return [f"the queue sequence {objs.name('seq')} is missing; reinstall capture"]
    cache, cycle, last, top = row
    problems = []
    seq = objs.qualified("seq")
    if cache > 1:
        problems.append(
            f"sequence {seq} has CACHE {cache}: each session then takes its own block of "
            "keys and repl_key is no longer in allocation order across sessions; run "
            f"ALTER SEQUENCE {seq} CACHE 1"
        )
    if cycle:
        problems.append(
            f"sequence {seq} is CYCLE: repl_key could repeat; run ALTER SEQUENCE {seq} NO CYCLE"
        )
    if top is not None and last < top:
        problems.append(
            f"sequence {seq} stands at {last}, below the highest repl_key {top} in the queue: "
            "it was reset; keys would repeat"
        )
    return problems


def installed(conn: Any, objs: Names) -> bool:
    return bool(
        conn.execute(
            objs.one("queries/installed.sql"),
            {"service": objs.qualified("service"), "items": objs.qualified("items")},
        ).fetchone()[0]
    )


def check_tables(conn: Any, objs: Names, tables: list[TableConfig], location: str) -> list[str]:
    problems: list[str] = []
    for t in tables:
        found = describe(conn, objs, t.ref)
        if found is None:
            continue  # reported by Capture.check
        kind, shape = found
        root = partition_root(conn, objs, t.ref)
        if root:
            problems.append(
                f"table {t.name}: is a partition of {root} at {location}; list the "
                f"partitioned table {root} instead (its rows are captured through it, "
                "whatever partition holds them)"
            )
            continue
        if kind[0] not in ("r", "p"):
            problems.append(
                f"table {t.name}: is a {RELKINDS.get(kind[0], kind)} at {location}; only "
                "tables and partitioned tables can be captured"
            )
            continue
        if kind[0] == "r" and kind.endswith("i"):
            problems.append(
                f"table {t.name}: takes part in inheritance at {location}; statement triggers "
                "do not see rows written to a child table through its parent or directly to "
                "a child, so it cannot be captured"
            )
            continue
        if t.key and all(shape.column(c) for c in t.key) and not _key_joinable(conn, t):
            problems.append(
                f"table {t.name}: key {t.key} has a type without an equality that can be "
                "hashed or sorted; capture pairs old and new rows of an UPDATE on it; name "
                "other key columns"
            )
    return problems


def partition_root(conn: Any, objs: Names, table: TableName) -> str | None:
    """The partitioned table at the top of the tree a partition belongs to, or None."""
    row = conn.execute(
        objs.one("queries/partition_root.sql"), {"schema": schema_of(table), "table": table.name}
    ).fetchone()
    return None if row is None else str(_text(row[0]))


def _key_joinable(conn: Any, t: TableConfig) -> bool:
    """Whether the planner accepts the FULL JOIN on the key the UPDATE trigger runs."""
    rel = sql.Identifier(schema_of(t.ref), t.ref.name)
    cond = sql.SQL(" AND ").join(
        sql.SQL("o.{c} = n.{c}").format(c=sql.Identifier(c)) for c in t.key or []
    )
    query = sql.SQL("EXPLAIN (COSTS OFF) SELECT 1 FROM {r} o FULL JOIN {r} n ON {cond}").format(
        r=rel, cond=cond
    )
    try:
        with conn.transaction():
            conn.execute(query)
        return True
    except psycopg.Error:
        return False
