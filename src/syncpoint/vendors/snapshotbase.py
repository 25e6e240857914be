"""What a snapshot reads at a capture location (``vendors/<vendor>/snapshot.py``).

A ``RowSource`` is SQL text for one table: the table's quoted name and the expression that
writes a row (alias ``sp_row``) as the capture writes ``content``, so a copied row and a
captured change are the same text and the rounds' apply reads both the same way. Vendor
SQL (bounds, chunk select, rows by key) is in ``sql/snapshot/``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from syncpoint import vendors
from syncpoint.config import TableName
from syncpoint.vendors.sqlfiles import SqlFiles


@dataclass(frozen=True)
class RowSource:
    table: str  # quoted, schema-qualified where the vendor has schemas
    content: str  # SQL: the row of alias sp_row as capture content (JSON text)
    letters: str | None = None  # SQL: what ``finish`` needs besides the content
    finish: Callable[[str | None, str], str | None] | None = None
    session_init: str | None = None  # SQL run by each of Spark's reading sessions


def row_source(vendor: str, conn: Any, table: TableName, prefix: str) -> RowSource:
    """Rows as capture writes them, at a capture location (``snapshot``)."""
    return vendors.get(vendor).snapshot.row_source(conn, table, prefix)  # type: ignore[no-any-return]


def sql(vendor: str, name: str, **raw: str) -> str:
    """``sql/snapshot/<name>.sql`` with its ``$raw{}`` fragments (already quoted text)."""
    return SqlFiles(vendor, "snapshot", comments=False).one(name, raw=raw)


def verify_source(vendor: str, conn: Any, table: TableName, prefix: str) -> RowSource:
    """Rows as ``verify`` reads them: as capture writes them, at any location (SQLite has
    a variant that needs no capture objects)."""
    return vendors.get(vendor).snapshot.verify_source(conn, table, prefix)  # type: ignore[no-any-return]


def direct_path(source_vendor: str, target_vendor: str) -> Any:
    """The vendor's direct path of a snapshot (``vendors/<v>/snapshot_direct.py``: rows
    streamed from source to target database without passing through Spark's JVM), where
    source and target are of that one vendor and it has one; else None."""
    import importlib.util

    if source_vendor != target_vendor:
        return None
    name = f"syncpoint.vendors.{source_vendor}.snapshot_direct"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)
