"""A source table's defaults, indexes and foreign keys (``core/extras.py``), read from the
capture location's catalog by the vendor's ``shape.py`` with the SQL of ``sql/shape/``."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from syncpoint.config import TableName
from syncpoint.core.extras import Default, ForeignKey, Index, TableExtras, portable_default
from syncpoint.vendors.sqlfiles import SqlFiles


def extras(vendor: str, conn: Any, table: TableName) -> TableExtras:
    """Read in the caller's transaction (the caller ends it)."""
    mod = importlib.import_module(f"syncpoint.vendors.{vendor}.shape")
    return mod.extras(conn, table)  # type: ignore[no-any-return]


def files(vendor: str) -> SqlFiles:
    return SqlFiles(vendor, "shape", comments=False)


def build(
    defaults: Sequence[tuple[str, str | None]],
    indexes: Sequence[tuple[Any, ...]],
    fks: Sequence[tuple[str, Sequence[str], TableName, Sequence[str]]],
) -> TableExtras:
    """``defaults``: (column, catalog text); ``indexes``: (name, unique, columns (None: an
    expression), partial, and optionally the access method (lower case; B-tree when not
    given) and per column a non-default operator class ("" for the default));
    ``fks``: (name, columns, parent, parent columns)."""
    out = TableExtras()
    for col, text in defaults:
        d: Default | None = portable_default(text)
        if d is not None:
            out.defaults[col] = d
        elif text is not None and text.strip().upper() != "NULL":
            out.left_out.append(f"default of {col!r} ({text}): not portable")
    for name, unique, cols, partial, *how in indexes:
        if partial or any(c is None for c in cols):
            out.left_out.append(f"index {name!r}: on an expression or partial")
            continue
        method = str(how[0]) if how else "btree"
        ops = tuple(how[1]) if len(how) > 1 and any(how[1]) else ()
        out.indexes.append(Index(name, tuple(str(c) for c in cols), bool(unique), method, ops))
    for name, cols, parent, pcols in fks:
        out.foreign_keys.append(ForeignKey(name, tuple(cols), parent, tuple(pcols)))
    return out
