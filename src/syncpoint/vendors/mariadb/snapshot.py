"""MariaDB rows for a snapshot: each row written as the capture trigger writes it
(``encode.row_json`` over the row's alias; no session setting changes that text)."""

from __future__ import annotations

from typing import Any

from syncpoint.config import TableName
from syncpoint.vendors.mariadb import catalog, dialect
from syncpoint.vendors.mariadb.encode import row_json
from syncpoint.vendors.snapshotbase import RowSource


def qualified(t: TableName) -> str:
    name = dialect.quote(t.name)
    return f"{dialect.quote(t.schema_)}.{name}" if t.schema_ else name


def row_source(conn: Any, table: TableName, prefix: str) -> RowSource:
    cur = conn.cursor()
    schema = table.schema_ or catalog.database(cur)
    cols = catalog.columns(cur, schema, table.name)
    conn.rollback()
    return RowSource(qualified(table), row_json(cols, "sp_row"))


def verify_source(conn: Any, table: TableName, prefix: str) -> RowSource:
    """Rows as ``verify`` reads them: as capture writes them (``row_source``)."""
    return row_source(conn, table, prefix)
