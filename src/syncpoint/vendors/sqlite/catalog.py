"""What SQLite's catalog says of the tables capture watches (``pragma_*`` functions), and the
``sqlite_master`` listing that install and uninstall are compared against."""

from __future__ import annotations

import os
from typing import Any

from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import Column, TableShape
from syncpoint.vendors.sqlfiles import SqlFiles

SCHEMA = "main"
# Names SQLite accepts for the rowid, in the order tried when a column shadows one.
ROWID_ALIASES = ("rowid", "_rowid_", "oid")
_QUERIES = SqlFiles("sqlite", "queries")


def query(conn: Any, name: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in conn.execute(_QUERIES.one(name), params)]


def scalar(conn: Any, name: str, params: tuple[Any, ...] = ()) -> Any:
    rows = query(conn, name, params)
    return rows[0][0] if rows else None


def schema_of(ref: TableName) -> str | None:
    """The schema a reference names, or None when SQLite cannot serve it (only ``main``)."""
    return SCHEMA if ref.schema_ in (None, SCHEMA) else None


def kind(conn: Any, table: str) -> tuple[str, bool] | None:
    """(type, without_rowid) of a table in main, None when there is no such object."""
    rows = query(conn, "catalog_table", (table,))
    return (str(rows[0][0]), bool(rows[0][1])) if rows else None


def columns(conn: Any, table: str) -> tuple[Column, ...]:
    return tuple(
        Column(name=n, type=str(t).lower(), nullable=not nn, pk=pk or None)
        for _, n, t, nn, pk in query(conn, "catalog_columns", (table,))
    )


def describe(conn: Any, ref: TableName) -> TableShape | None:
    if schema_of(ref) is None:
        return None
    k = kind(conn, ref.name)
    if k is None or k[0] != "table":
        return None
    return TableShape(TableName(schema=SCHEMA, name=ref.name), columns(conn, ref.name))


def uniques(
    conn: Any, table: str, cols: tuple[Column, ...], without_rowid: bool
) -> tuple[list[tuple[tuple[str, str], ...]], list[str]]:
    """The UNIQUE/PRIMARY KEY constraints a REPLACE can conflict on, as ((column, collation),
    ...), and the problems that keep syncpoint from seeing some of them."""
    out: list[tuple[tuple[str, str], ...]] = []
    problems: list[str] = []
    for name, unique, _origin, partial in query(conn, "catalog_indexes", (table,)):
        if not unique:
            continue
        key = query(conn, "catalog_index_columns", (name,))
        if any(cid == -2 for cid, _, _ in key):
            problems.append(
                f"unique index {name!r} is on an expression: rows that INSERT/UPDATE OR REPLACE "
                "deletes through it fire no trigger and cannot be found; index plain columns "
                "instead"
            )
            continue
        if partial and without_rowid:
            problems.append(
                f"unique index {name!r} is partial on a WITHOUT ROWID table: syncpoint cannot "
                "tell which rows INSERT/UPDATE OR REPLACE deletes through it"
            )
            continue
        out.append(tuple((str(n), str(coll)) for _, n, coll in key))
    has_pk_index = not without_rowid and any(
        origin == "pk" for _, _, origin, _ in query(conn, "catalog_indexes", (table,))
    )
    pk = [c.name for c in cols if c.pk]
    if pk and not without_rowid and not has_pk_index:
        out.append(((pk[0], "BINARY"),))  # INTEGER PRIMARY KEY: the rowid itself
    return out, problems


def rowid_alias(cols: tuple[Column, ...], without_rowid: bool) -> str | None:
    if without_rowid:
        return None
    taken = {c.name.lower() for c in cols}
    return next((a for a in ROWID_ALIASES if a not in taken), None)


def key_of(t: TableConfig, shape: TableShape) -> tuple[str, ...]:
    return tuple(t.key) if t.key else shape.primary_key


def catalog_name(url_path: str) -> str:
    """``db_catalog`` of the records: the database file's name without its extension."""
    return os.path.splitext(os.path.basename(url_path))[0] or SCHEMA


def listing(conn: Any, include_internal: bool = False) -> list[tuple[str, str, str, str]]:
    """``sqlite_master`` as (type, name, tbl_name, sql), for comparing catalogs.

    SQLite creates ``sqlite_sequence`` for the first AUTOINCREMENT table and never lets it be
    dropped; it and SQLite's automatic indexes are left out unless asked for.
    """
    rows = query(conn, "catalog_listing")
    return [
        (str(t), str(n), str(tn), str(s or ""))
        for t, n, tn, s in rows
        if include_internal or not str(n).startswith("sqlite_")
    ]
