"""PostgreSQL: a table's defaults, indexes and foreign keys (``vendors/shapebase.py``)."""

from __future__ import annotations

from typing import Any

from syncpoint.config import TableName
from syncpoint.core.extras import TableExtras
from syncpoint.vendors.postgres.snapshot import qualified
from syncpoint.vendors.shapebase import build, files


def extras(conn: Any, table: TableName) -> TableExtras:
    f, name = files("postgres"), qualified(table)
    defaults = [(str(a), b) for a, b in conn.execute(f.one("defaults"), (name,)).fetchall()]
    indexes = [
        (str(n), bool(u), list(cols), bool(odd))
        for n, u, cols, odd in conn.execute(f.one("indexes"), (name,)).fetchall()
    ]
    fks = [
        (str(n), list(cols), TableName(schema=str(s), name=str(t)), list(pcols))
        for n, cols, s, t, pcols in conn.execute(f.one("foreign_keys"), (name,)).fetchall()
    ]
    return build(defaults, indexes, fks)
