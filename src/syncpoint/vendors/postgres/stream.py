"""The change stream of a PostgreSQL location: ticks, windows of records, purge.

A window ``(after, upto]`` holds the records of the transactions that tick ``upto``'s
snapshot sees committed and tick ``after``'s does not (``sql/queries/changes.sql``). Each
record's ``context`` is the first tick in the window that sees its transaction: ``upto``
itself when the window is one tick wide, else looked up in ``{p}ticks`` (one indexed probe
per record, only for wider windows).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from psycopg import pq

from syncpoint.config import TableName
from syncpoint.core.model import ChangeRecord, Tick
from syncpoint.errors import UsageError
from syncpoint.vendors.postgres import dialect
from syncpoint.vendors.postgres.catalog import schema_of
from syncpoint.vendors.postgres.names import Names

_TS = "%Y-%m-%d %H:%M:%S.%f"


def tick(conn: Any, objs: Names) -> Tick:
    if conn.info.transaction_status != pq.TransactionStatus.IDLE:
        raise UsageError("tick() needs a connection without an open transaction (it commits)")
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
        context, guaranteed = conn.execute(objs.one("queries/tick.sql")).fetchone()
        (made_at,) = conn.execute(objs.one("queries/tick_made_at.sql"), (context,)).fetchone()
    return Tick(
        context=int(context),
        guaranteed=guaranteed.astimezone(UTC),
        sampled_at=made_at.astimezone(UTC),
    )


def window_ticks(after: int, upto: int) -> tuple[int, int]:
    """The window's ticks, validated."""
    return _window(after, upto)


def _window(after: int, upto: int) -> tuple[int, int]:
    after, upto = int(after), int(upto)
    if after < 0 or upto < after:
        raise UsageError(f"invalid window ({after}, {upto}]: need 0 <= after <= upto")
    return after, upto


def query(objs: Names, table: TableName, after: int, upto: int, *, bound: bool) -> str:
    """The window's SELECT. ``bound``: table names as ``%(...)s`` parameters (for psycopg),
    else as literals (one self-contained text for Spark); ticks are validated integers."""
    if bound:
        return _query(objs, "%(table)s", "%(schema)s", after, upto, bound=True)
    return query_many(objs, [table], after, upto)


def query_many(objs: Names, tables: Sequence[TableName], after: int, upto: int) -> str:
    """The window's SELECT over several tables at once, names as literals."""
    names, schemas = literal_lists(tables)
    return _query(objs, names, schemas, after, upto, bound=False)


def literal_lists(tables: Sequence[TableName]) -> tuple[str, str]:
    """The tables' names and their distinct schemas, each as a list of SQL literals (a
    query's filter over both may match a table of one schema with the name of another,
    which the caller leaves out)."""
    names = dict.fromkeys(t.name for t in tables)
    schemas = dict.fromkeys(schema_of(t) for t in tables)
    return (
        ", ".join(dialect.literal(n) for n in names),
        ", ".join(dialect.literal(s) for s in schemas),
    )


def _query(objs: Names, table: str, schema: str, after: int, upto: int, *, bound: bool) -> str:
    after, upto = _window(after, upto)
    ticks = {"after": str(after), "upto": str(upto)}
    context = str(upto) if upto == after + 1 else objs.one("queries/context_of.sql", ticks)
    raw = {
        **ticks,
        "context": f"{context}::bigint" if upto == after + 1 else context,
        "table": table,
        "schema": schema,
        # unbound (a window's SELECT wrapped in others): the capture time as stored too, so
        # that the survey's oldest is one min(), not a to_char of every record
        "extra": ", i.db_catalog, i.guid" if bound else ", i.captured_at AS sp_captured_at",
        # the window readers that need an order (DDL, records) sort themselves
        "order": "ORDER BY i.repl_key" if bound else "",
    }
    # no comment lines: callers wrap the text in other SQL, possibly on one line
    return objs.sql.one("queries/changes.sql", raw=raw, comments=False)


def changes(conn: Any, objs: Names, table: TableName, after: int, upto: int) -> list[ChangeRecord]:
    if int(after) == int(upto):
        return []
    text = query(objs, table, after, upto, bound=True)
    params = {"table": table.name, "schema": schema_of(table)}
    rows = conn.execute(text, params).fetchall()
    return [
        ChangeRecord.from_row(r, datetime.strptime(r[9], _TS).replace(tzinfo=UTC)) for r in rows
    ]


def purge(conn: Any, objs: Names, upto: int) -> int:
    upto = int(upto)
    with conn.transaction():
        row = conn.execute(objs.one("queries/service_read.sql")).fetchone()
        if row is None:
            raise UsageError("capture is not installed")
        if upto > int(row[2]):
            raise UsageError(
                f"cannot purge up to tick {upto}: the last tick is {row[2]} (the horizon)"
            )
        items, ddl_log, ticks = objs.render("queries/purge.sql")
        n = conn.execute(items, {"upto": upto}).rowcount
        conn.execute(ddl_log, {"upto": upto})
        conn.execute(ticks, {"upto": upto})
    return int(n)
