"""SQLite rows for a snapshot: each row written as the capture trigger writes it.

The trigger's JSON object and storage-class letters (``triggers.row_exprs``); REAL and BLOB
values are finished afterwards, as the tick finishes captured records (``encode.finish``):
``RowSource.finish`` runs on Spark's executors, never on the driver.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from typing import Any

from syncpoint.config import TableName
from syncpoint.vendors.snapshotbase import RowSource, SharedRead
from syncpoint.vendors.sqlite import catalog, dialect, encode
from syncpoint.vendors.sqlite.names import Names
from syncpoint.vendors.sqlite.triggers import Watch, row_exprs


def qualified(t: TableName) -> str:
    return dialect.quote(t.name)


def row_source(conn: Any, table: TableName, prefix: str) -> RowSource:
    cols = catalog.columns(conn, table.name)
    w = Watch(table.name, cols, "IUD", False, 0, "", None, (), ())
    content, letters = row_exprs(w, Names(prefix), "sp_row", in_trigger=False)
    return RowSource(dialect.quote(table.name), content, letters=letters, finish=encode.finish)


def verify_source(conn: Any, table: TableName, prefix: str) -> RowSource:
    """Rows for ``verify``, also where capture is not installed (a target): REAL values as
    17 significant digits (the same double; ``verify`` compares numbers that long as
    doubles), BLOBs as hex turned into base64 by ``finish``."""
    cols = catalog.columns(conn, table.name)
    pairs, values = [], []
    for c in cols:
        v = f"sp_row.{dialect.quote(c.name)}"
        pairs.append(
            (
                c.name,
                f"CASE typeof({v}) WHEN 'real' THEN printf('%!.17g', {v}) "
                f"WHEN 'blob' THEN hex({v}) ELSE {v} END",
            )
        )
        values.append(v)
    return RowSource(
        dialect.quote(table.name),
        encode.object_expr(pairs, dialect.literal),
        letters=encode.letters_expr(values),
        finish=encode.finish,
    )


def shared_read(capture: Any, reuse: Any = None) -> SharedRead:
    """One read transaction for a sync group's copy: the database is copied page by page
    in a single step of SQLite's backup (one read transaction: writers go on in WAL mode)
    into a file beside it, and every read of the group's snapshot reads that copy, so all
    its tables are read as of one moment (after the group's tick). ``close`` deletes it.
    (``reuse``, a connection to run on, has no use here: the copy has its own.)"""
    path = dialect.path_of(capture.url)
    folder, name = os.path.split(os.path.abspath(path))
    copy = os.path.join(folder, f".{name}.sp-snapshot-{uuid.uuid4().hex[:12]}")
    src = capture.connect()
    try:
        dst = sqlite3.connect(copy, isolation_level=None, check_same_thread=False)
        with dialect.translated(capture.location):
            src.backup(dst, pages=-1)
    finally:
        src.close()

    def close() -> None:
        dst.close()
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.remove(copy + suffix)
            except FileNotFoundError:
                pass

    return SharedRead(dst, close, jdbc=dialect.spark_jdbc(copy))
