"""DDL records of log capture, written where the statement is in the binary log.

When the drain meets a statement (DDL), it writes what MariaDB's poller (``ddl.py``) would
write for it, at that place in the queue, so rows before it keep the old shape and rows
after it the new one: TRUNCATE of a watched table is recognised from the statement; any
other statement makes the poller's comparison of ``{prefix}cols_view`` with
``{prefix}cols_snapshot`` (ALTER, DROP, CREATE). Nothing is captured again afterwards, as
the triggers' poller must: every row written is in the binary log. The comparison reads the
catalog as it is when the drain runs: two ALTERs of one table drained together give one
ALTER record with the newer shape, at the first (as one poll of the triggers' poller would).
"""

from __future__ import annotations

import re
from typing import Any

from syncpoint.core.cdr import bookkeeping_prefix
from syncpoint.vendors.mariadb import catalog
from syncpoint.vendors.mariadb.ddl import _event, shapes_now_and_seen
from syncpoint.vendors.mariadb.encode import ColumnInfo
from syncpoint.vendors.mariadb.state import Site, Watched, run, watched
from syncpoint.vendors.mariadb.watch import Shape, save_snapshot, shape_of, write_event

_NAME = r"(?:`((?:[^`]|``)+)`|([A-Za-z0-9_$\u0080-\uffff]+))"
_TRUNCATE = re.compile(
    rf"^\s*TRUNCATE\s+(?:TABLE\s+)?{_NAME}(?:\s*\.\s*{_NAME})?\s*(?:;\s*)?$",
    re.IGNORECASE | re.DOTALL,
)


def truncated(statement: str, default_schema: str | None) -> tuple[str | None, str] | None:
    """(schema, table) a TRUNCATE statement empties, or None for any other statement."""
    m = _TRUNCATE.match(statement)
    if m is None:
        return None
    first = (m.group(1) or "").replace("``", "`") or m.group(2)
    second = (m.group(3) or "").replace("``", "`") or m.group(4)
    if second:
        return first, second
    return default_schema, first


def statement(cur: Any, site: Site, text: str, schema: str | None) -> int:
    """Write the DDL records of one statement of the binary log; return how many."""
    target = truncated(text, schema)
    if target is not None:
        for w in watched(cur, site.names):
            if (w.schema, w.table) == (target[0], target[1]) and w.status != "DROPPED":
                shape = shape_of(catalog.columns(cur, w.schema, w.table))
                w.version += 1
                run(
                    cur,
                    "queries/watch_event.sql",
                    site.names,
                    {
                        "schema": w.schema,
                        "table": w.table,
                        "status": "OK",
                        "refresh_from": None,
                        "pending": None,
                    },
                )
                write_event(cur, site, w, "TRUNCATE", shape, shape, "read from the binary log")
                return 1
        return 0
    return compare(cur, site)


def compare(cur: Any, site: Site) -> int:
    """The poller's comparison of the catalog with the last shapes seen (``ddl._detect``),
    without the InnoDB identity: TRUNCATE comes from its statement."""
    view, snap = shapes_now_and_seen(cur, site)
    written = 0
    for w in watched(cur, site.names):
        if w.schema == site.db:
            written += _one(cur, site, w, view.get(w.table, []), snap.get(w.table, []))
    return written


def _one(cur: Any, site: Site, w: Watched, cols: list[ColumnInfo], old: Shape) -> int:
    if w.status == "DROPPED":
        if not cols:
            return 0
        _event(cur, site, w, "CREATE", shape_of(cols), [], "OK", None)
        save_snapshot(cur, site, w, cols)
        return 1
    if not cols:
        _event(cur, site, w, "DROP", [], old, "DROPPED", None)
        return 1
    mark = bookkeeping_prefix(site.names.prefix)
    new = shape_of(cols)
    if [c for c in new if not c[0].startswith(mark)] == [
        c for c in old if not c[0].startswith(mark)
    ]:
        return 0
    _event(cur, site, w, "ALTER", new, old, "OK", None)
    save_snapshot(cur, site, w, cols)
    return 1
