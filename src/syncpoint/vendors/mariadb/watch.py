"""The watched tables' lifecycle: snapshots, DDL event records, and settling.

A table is *settled* when its triggers write its current shape version and nothing is owed:
``settle`` renders and swaps the triggers, then, when a shape change or a TRUNCATE left
rows captured wrongly or not at all, captures them again (``refresh_from``: -1 reloads the
whole table as INSERT records; a repl_key re-captures, as UPDATE records, the rows changed
after it; see ``rows.py``), and marks the table OK. Install and ``poll_ddl`` share it; a
failure (a lock wait on a busy table) leaves the table ERROR with the reason, retried at the
next poll.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from syncpoint.vendors.mariadb import catalog, dialect, rows, triggers
from syncpoint.vendors.mariadb.encode import ColumnInfo
from syncpoint.vendors.mariadb.names import render
from syncpoint.vendors.mariadb.state import Site, Watched, run

Shape = list[tuple[str, str, bool, int | None]]


def shape_of(cols: Sequence[ColumnInfo]) -> Shape:
    return [(c.name, c.type, c.nullable, c.pk) for c in cols]


def shape_json(shape: Shape, filled: frozenset[str] = frozenset()) -> str | None:
    """A DDL record's content: ``{"columns": [{name, type, nullable, pk}, ...]}``, with
    ``"filled": true`` on the columns of ``filled`` (an ALTER's added columns whose rows
    already hold a value)."""
    if not shape:
        return None
    cols = [
        {"name": n, "type": t, "nullable": nl, "pk": pk} | ({"filled": True} if n in filled else {})
        for n, t, nl, pk in shape
    ]
    return json.dumps({"columns": cols})


def filled_columns(cur: Any, site: Site, w: Watched, new: Shape, old: Shape) -> frozenset[str]:
    """The columns ``new`` has and ``old`` lacks whose rows MariaDB gave a value no row
    record carries (a default, an AUTO_INCREMENT, a generated column)."""
    before = {c[0] for c in old}
    added = {c[0] for c in new if c[0] not in before}
    if not added:
        return frozenset()
    run(cur, "queries/filled.sql", site.names, {"schema": w.schema, "table": w.table})
    return frozenset(str(n) for (n,) in cur.fetchall() if str(n) in added)


def write_event(
    cur: Any, site: Site, w: Watched, action: str, new: Shape, old: Shape, detail: str,
    filled: frozenset[str] = frozenset(),
) -> None:  # fmt: skip
    """One DDL record (and its line in ``{prefix}ddl_log``) at the table's current version."""
    run(
        cur,
        "queries/ddl_record.sql",
        site.names,
        {
            "schema": w.schema,
            "table": w.table,
            "dbid": site.location,
            "action": action,
            "content": shape_json(new, filled),
            "oldcontent": shape_json(old),
            "version": w.version,
            "detail": detail,
        },
    )


def save_snapshot(
    cur: Any, site: Site, w: Watched, cols: Sequence[ColumnInfo], identity: bool = True
) -> None:
    """Record the table's columns, InnoDB identity and a witness row key as of now (the
    columns alone with ``identity`` False)."""
    p = {"schema": w.schema, "table": w.table}
    run(cur, "queries/snapshot_save.sql", site.names, p)
    for i, c in enumerate(cols, start=1):
        cur.execute(
            render("queries/snapshot_column.sql", site.names),
            {
                **p,
                "ordinal": i,
                "colname": c.name,
                "coltype": c.type,
                "nullable": int(c.nullable),
                "pk": c.pk,
            },
        )
    if identity:
        save_identity(cur, site, w, cols)


def save_identity(cur: Any, site: Site, w: Watched, cols: Sequence[ColumnInfo]) -> None:
    """Record the table's InnoDB id, create time and witness row key, when they changed."""
    f = catalog.facts(cur, w.schema, w.table)
    now = {
        "inno_id": f.inno_id if f else None,
        "created": f.created if f else None,
        # A witness needs an index to be found cheaply at every poll: primary keys only.
        "witness": rows.witness(cur, site, w.table, rows.key_columns(cols, None)) if f else None,
    }
    if (now["inno_id"], now["created"], now["witness"]) == (w.inno_id, w.created, w.witness):
        return
    run(
        cur,
        "queries/watch_identity.sql",
        site.names,
        {"schema": w.schema, "table": w.table, **now},
    )


def settle(conn: Any, site: Site, w: Watched, cols: Sequence[ColumnInfo]) -> int:
    """Put the table's triggers in place for its version, write a pending TRUNCATE record
    and re-capture what is owed (one transaction), mark OK; returns the DDL records written.
    Raises on failure, after recording ERROR and the reason in ``{prefix}tables``."""
    cur = conn.cursor()
    p = {"schema": w.schema, "table": w.table}
    written = 0
    try:
        spec = triggers.Spec(
            w.schema, w.table, w.actions or "IUD", w.version, w.debug, site.location
        )
        names = triggers.apply(cur, site.names, spec, cols)
        conn.begin()
        if w.pending_event:
            detail = "emptied without triggers; the table is captured again"
            write_event(cur, site, w, w.pending_event, shape_of(cols), shape_of(cols), detail)
            written = 1
        if w.refresh_from is not None:
            rows.recapture(cur, site, w, cols)
        run(cur, "queries/watch_settled.sql", site.names, {**p, "triggers": ",".join(names)})
        conn.commit()
        return written
    except Exception as exc:
        conn.rollback()
        reason = str(dialect.translate(exc, site.location, w.table))
        run(
            cur,
            "queries/watch_error.sql",
            site.names,
            {**p, "status": "ERROR", "reason": reason[:2000]},
        )
        conn.commit()
        raise
