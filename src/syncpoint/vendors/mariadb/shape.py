"""MariaDB: a table's defaults, indexes and foreign keys (``vendors/shapebase.py``).
Index names are the table's own here: ``ops/created.py`` prefixes them with the table's."""

from __future__ import annotations

from typing import Any

from syncpoint.config import TableName
from syncpoint.core.extras import TableExtras
from syncpoint.vendors.mariadb import catalog
from syncpoint.vendors.shapebase import build, files


def extras(conn: Any, table: TableName) -> TableExtras:
    f = files("mariadb")
    cur = conn.cursor()
    schema = table.schema_ or catalog.database(cur)
    cur.execute(f.one("defaults"), (schema, table.name))
    defaults = [(str(a), None if b is None else str(b)) for a, b in cur.fetchall()]
    cur.execute(f.one("indexes"), (schema, table.name))
    by: dict[str, tuple[bool, list[str | None], bool, str]] = {}
    for name, unique, col, sub, kind in cur.fetchall():
        u, cols, part, _ = by.setdefault(str(name), (bool(unique), [], False, ""))
        cols.append(None if col is None else str(col))
        # InnoDB keeps a HASH index as a B-tree, and says BTREE
        how = str(kind or "BTREE").lower()
        by[str(name)] = (u, cols, part or sub is not None, "btree" if how == "hash" else how)
    cur.execute(f.one("foreign_keys"), (schema, table.name))
    fk: dict[str, tuple[list[str], TableName, list[str]]] = {}
    for name, col, ps, pt, pc in cur.fetchall():
        parent = TableName(schema=None if ps == schema else str(ps), name=str(pt))
        fk.setdefault(str(name), ([], parent, []))
        fk[str(name)][0].append(str(col))
        fk[str(name)][2].append(str(pc))
    return build(
        defaults,
        [(n, u, c, p, m) for n, (u, c, p, m) in by.items()],
        [(n, c, p, pc) for n, (c, p, pc) in fk.items()],
    )
