"""PostgreSQL: a table's defaults, indexes and foreign keys (``vendors/shapebase.py``)."""

from __future__ import annotations

from typing import Any

from syncpoint.config import TableName
from syncpoint.core.extras import TableExtras
from syncpoint.vendors.postgres.snapshot import qualified
from syncpoint.vendors.shapebase import build, files


def extras(conn: Any, table: TableName) -> TableExtras:
    f, name = files("postgres"), qualified(table)
    # three independent reads, sent together: one round trip instead of three
    with conn.pipeline():
        reads = [conn.execute(f.one(q), (name,)) for q in ("defaults", "indexes", "foreign_keys")]
    found_defaults, found_indexes, found_fks = (c.fetchall() for c in reads)
    defaults = [(str(a), b) for a, b in found_defaults]
    indexes = [
        (str(n), bool(u), list(cols), bool(odd), str(am), tuple(c or "" for c in ops))
        for n, u, cols, odd, am, ops in found_indexes
    ]
    fks = [
        (str(n), list(cols), TableName(schema=str(s), name=str(t)), list(pcols))
        for n, cols, s, t, pcols in found_fks
    ]
    return build(defaults, indexes, fks)
