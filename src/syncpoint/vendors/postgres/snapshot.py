"""PostgreSQL rows for a snapshot: each row written as the capture trigger writes it.

``row_to_json`` of the row, with ``bytea`` as base64, ``money`` as a plain number, floats,
JSON, arrays and composites as their text (the projection of
``install/110_fn_make_capture.sql``), under the settings the trigger pins
for the values whose text depends on them (TimeZone, extra_float_digits, IntervalStyle,
DateStyle, bytea_output), set for Spark's reading sessions by ``SESSION_INIT``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from syncpoint.config import TableName
from syncpoint.vendors.postgres import dialect
from syncpoint.vendors.snapshotbase import RowSource, SharedRead
from syncpoint.vendors.sqlfiles import SqlFiles

AS_TEXT = ("real", "double precision", "json", "jsonb")
SESSION_INIT = (
    "SET TimeZone TO 'UTC'; SET extra_float_digits TO 1; SET IntervalStyle TO 'postgres'; "
    "SET DateStyle TO 'ISO, MDY'; SET bytea_output TO 'hex'"
)


def qualified(t: TableName) -> str:
    name = dialect.quote(t.name)
    return f"{dialect.quote(t.schema_)}.{name}" if t.schema_ else name


def row_source(conn: Any, table: TableName, prefix: str, *, end: bool = True) -> RowSource:
    """``end``: the read transaction is ended (False: inside the caller's transaction)."""
    cur = conn.cursor()
    cur.execute(SqlFiles("postgres", "snapshot").one("columns"), (qualified(table),))
    cols = cur.fetchall()
    if end:
        conn.rollback()
    parts, projected = [], False
    for name, base, typtype, category in cols:
        ref = f"sp_row.{dialect.quote(name)}"
        if base in AS_TEXT or typtype == "c" or category == "A":
            # as the trigger writes them: floats keep -0, json keeps its text and JSON null,
            # arrays and composites their own literal
            parts.append(f"{ref}::text AS {dialect.quote(name)}")
            projected = True
        elif base == "bytea":
            parts.append(f"translate(encode({ref}, 'base64'), E'\\n', '') AS {dialect.quote(name)}")
            projected = True
        elif base == "money":
            parts.append(f"({ref})::numeric AS {dialect.quote(name)}")
            projected = True
        else:
            parts.append(f"{ref} AS {dialect.quote(name)}")
    # the projection holds quoted identifiers only
    content = (
        f"(SELECT row_to_json(sp_p)::text FROM (SELECT {', '.join(parts)}) AS sp_p)"  # noqa: S608
        if projected
        else "row_to_json(sp_row)::text"
    )
    return RowSource(qualified(table), content, session_init=SESSION_INIT)


def verify_source(conn: Any, table: TableName, prefix: str) -> RowSource:
    """Rows as ``verify`` reads them: as capture writes them (``row_source``)."""
    return row_source(conn, table, prefix)


def shared_read(capture: Any, reuse: Callable[[], Any] | None = None) -> SharedRead:
    """One exported snapshot for a sync group's copy: a REPEATABLE READ transaction that
    stays open (reading nothing writers wait for) until ``close``; Spark's reading sessions
    and the direct path's tasks import it, so every table of the group is read as of the
    same moment. Started after the group's tick, so that moment is at or after t0.
    ``reuse``: gives the connection to run it on (kept open by its owner, ``close`` only
    ends the transaction), so a run of many groups connects once, not once a group."""
    import psycopg

    conn = reuse() if reuse is not None else capture.connect()
    conn.rollback()  # the isolation level is set between transactions
    conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
    conn.read_only = True
    files = SqlFiles("postgres", "snapshot", comments=False)
    (snap,) = conn.execute(files.one("export")).fetchone()
    imported = files.one("import", literals={"snapshot": str(snap)})

    def close() -> None:
        try:
            conn.rollback()
        finally:
            if reuse is None:
                conn.close()

    return SharedRead(conn, close, session_init=imported + "; ", snapshot=imported)
