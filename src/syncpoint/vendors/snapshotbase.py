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


@dataclass
class SharedRead:
    """One state of a capture location that every read of a sync group's snapshot sees
    (``vendors/<vendor>/snapshot.py``'s ``shared_read``): the tables of the group are then
    copied as of one moment, so rows that refer to each other arrive together. ``conn``
    reads that state (bounds, chunk ends); Spark's reading sessions run ``session_init``
    first and read at ``jdbc`` when given (else the location's own URL); ``snapshot`` is
    the SQL a direct-path task runs to read it. ``close`` ends it."""

    conn: Any
    close: Callable[[], None]
    session_init: str = ""
    jdbc: tuple[str, dict[str, str]] | None = None
    snapshot: str = ""


def shared_read(vendor: str, capture: Any, reuse: Any = None) -> SharedRead | None:
    """The vendor's one source state for a group's snapshot, or None where it has none
    (MariaDB: a consistent snapshot cannot be shared between sessions). ``reuse``: a
    callable giving a connection its caller keeps open, where the vendor reads on one."""
    make = getattr(vendors.get(vendor).snapshot, "shared_read", None)
    return None if make is None else make(capture, reuse)  # type: ignore[no-any-return]


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
