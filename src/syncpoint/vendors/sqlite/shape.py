"""SQLite: a table's defaults, indexes and foreign keys (``vendors/shapebase.py``)."""

from __future__ import annotations

from typing import Any

from syncpoint.config import TableName
from syncpoint.core.extras import TableExtras
from syncpoint.vendors.shapebase import build, files
from syncpoint.vendors.sqlite import catalog


def extras(conn: Any, table: TableName) -> TableExtras:
    f, t = files("sqlite"), table.name
    defaults: list[tuple[str, str | None]] = [
        (str(a), str(b)) for a, b in conn.execute(f.one("defaults"), (t,)).fetchall()
    ]
    by: dict[str, tuple[bool, list[str | None], bool]] = {}
    for name, unique, partial, col in conn.execute(f.one("indexes"), (t,)).fetchall():
        u, cols, _ = by.setdefault(str(name), (bool(unique), [], bool(partial)))
        cols.append(None if col is None else str(col))
    fk: dict[int, tuple[list[str], TableName, list[str | None]]] = {}
    for fid, parent, col, to in conn.execute(f.one("foreign_keys"), (t,)).fetchall():
        fk.setdefault(int(fid), ([], TableName(name=str(parent)), []))
        fk[int(fid)][0].append(str(col))
        fk[int(fid)][2].append(None if to is None else str(to))
    fks: list[tuple[str, list[str], TableName, list[str]]] = []
    for fid, (child, parent, to) in fk.items():
        pcols = [str(c) for c in to] if None not in to else _key(conn, parent.name)
        fks.append((f"{t}_fk{fid}", child, parent, pcols))
    return build(defaults, [(n, u, c, p) for n, (u, c, p) in by.items()], fks)


def _key(conn: Any, table: str) -> list[str]:
    """The primary key a foreign key without referenced columns refers to."""
    shape = catalog.describe(conn, TableName(name=table))
    return list(shape.primary_key) if shape is not None else []
