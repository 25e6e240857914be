"""DDL detection for SQLite (no event triggers): ``{prefix}cols_view`` (the catalog now) is
compared with ``{prefix}cols_snapshot`` (what capture last saw) inside one ``BEGIN
IMMEDIATE`` transaction, so the DDL records sit in the stream exactly between the row
changes made before and after the change. DROP, CREATE, ALTER (rows touched meanwhile are
captured again after it) and missing triggers (a TRUNCATE record and the current rows):
docs/internals.md, "Capture on SQLite".
"""

from __future__ import annotations

import json
from typing import Any

from syncpoint.core.cdr import bookkeeping_prefix
from syncpoint.vendors.sqlite import catalog, encode, triggers
from syncpoint.vendors.sqlite.objects import Ctx, sync_triggers, watch_of, watched, write_snapshot

ColRow = tuple[Any, ...]  # (cid, name, type, notnull, pk)
CHUNK = 500  # keys per recapture statement


def _shape(cols: list[ColRow] | None, filled: frozenset[str] = frozenset()) -> str | None:
    """A DDL record's shape; ``filled``: the columns marked as added with values in the
    rows already there (an ALTER's new shape)."""
    if not cols:
        return None
    return json.dumps(
        {
            "columns": [
                {"name": n, "type": str(t).lower(), "nullable": not nn, "pk": pk or None}
                | ({"filled": True} if n in filled else {})
                for _, n, t, nn, pk in cols
            ]
        }
    )


def _filled(
    conn: Any, ctx: Ctx, table: str, cur: list[ColRow], old: list[ColRow]
) -> frozenset[str]:
    """The columns of ``cur`` that ``old`` lacks whose rows SQLite gives a value: an added
    column's default, which the rows already there read without a change record."""
    before = {c[1] for c in old}
    found = {str(n) for (n,) in ctx.run(conn, "queries/filled.sql", (table,))}
    return frozenset(c[1] for c in cur if c[1] not in before and c[1] in found)


def _by_table(rows: list[tuple[Any, ...]], ignore: str | None = None) -> dict[str, list[ColRow]]:
    """Columns per table; ``ignore``: a name prefix of columns left out (conflict
    bookkeeping, which cdr add and remove put and take away: no schema change)."""
    out: dict[str, list[ColRow]] = {}
    for r in rows:
        if ignore is None or not str(r[2]).startswith(ignore):
            out.setdefault(r[0], []).append(tuple(r[1:]))
    return out


def _compared(conn: Any, ctx: Ctx) -> tuple[dict[str, list[ColRow]], dict[str, list[ColRow]]]:
    """The watched tables' columns now and as last seen, as the DDL poll compares them."""
    mark = bookkeeping_prefix(ctx.names.prefix)
    now = _by_table(ctx.run(conn, "queries/cols_now.sql"), mark)
    return now, _by_table(ctx.run(conn, "queries/cols_snapshot.sql"), mark)


def pending(conn: Any, ctx: Ctx) -> bool:
    """Whether a poll would find something: a watched table's columns differ from the
    snapshot, or it is gone or back."""
    now, snap = _compared(conn, ctx)
    for row in watched(conn, ctx):
        t = row["tablename"]
        gone = catalog.kind(conn, t) is None
        if gone != (row["status"] == "DROPPED") or (not gone and now.get(t) != snap.get(t)):
            return True
    return False


def poll(conn: Any, ctx: Ctx, triggers_expected_missing: bool = False) -> int:
    """Write the DDL records of every difference and regenerate triggers; return how many
    records were written. Runs in the caller's transaction."""
    now, snap = _compared(conn, ctx)
    ours = {n: tbl for t, n, tbl, _ in catalog.listing(conn) if t == "trigger"}
    written = 0
    for row in watched(conn, ctx):
        t = row["tablename"]
        cur, old = now.get(t), snap.get(t)
        w = watch_of(conn, ctx.names, row)
        if w is None:
            if row["status"] != "DROPPED":
                written += _record(conn, ctx, row, "DROP", None, _shape(old))
                ctx.run(conn, "queries/snapshot_clear.sql", (t,))
                reason = "the table no longer exists (dropped or renamed)"
                ctx.run(conn, "queries/table_status.sql", ("DROPPED", reason, None, t))
            continue
        expected = [ctx.names.trigger(k, t) for k in triggers.kinds(w)]
        missing = any(ours.get(n) != t for n in expected) and not triggers_expected_missing
        if row["status"] == "DROPPED":
            written += _record(conn, ctx, row, "CREATE", _shape(cur), None)
            written += _resync(conn, ctx, row, truncate=False)
            ctx.run(conn, "queries/table_status.sql", ("CREATING", None, None, t))
        elif cur != old:
            filled = _filled(conn, ctx, t, cur or [], old or [])
            written += _record(conn, ctx, row, "ALTER", _shape(cur, filled), _shape(old))
            if missing:
                written += _resync(conn, ctx, row, truncate=True)
            else:
                written += _recapture(conn, ctx, row)
        elif missing:
            written += _resync(conn, ctx, row, truncate=True)
        else:
            continue
        write_snapshot(conn, ctx, t)
    sync_triggers(conn, ctx)
    return written


def _record(
    conn: Any,
    ctx: Ctx,
    row: dict[str, Any],
    action: str,
    content: str | None,
    oldcontent: str | None,
) -> int:
    """A DDL record under the table's next version (bumped in place in ``row``)."""
    row["version"] = int(row["version"]) + 1
    ctx.run(conn, "queries/table_version.sql", (row["version"], row["tablename"]))
    ctx.run(
        conn,
        "queries/ddl_record.sql",
        (row["tablename"], row["catalogname"], action, content, oldcontent, row["version"]),
    )
    return 1


def _recapture(conn: Any, ctx: Ctx, row: dict[str, Any]) -> int:
    """UPDATE records of the current rows that unstamped records of the table touched (they
    were captured by triggers of the old shape); keys are compared as the triggers write them."""
    w = watch_of(conn, ctx.names, row)
    assert w is not None
    keys = json.loads(row["key_columns"]) if row["key_columns"] else list(w.primary_key)
    if not keys or any(k not in {c.name for c in w.columns} for k in keys):
        return 0
    texts: dict[str, None] = {}
    for content, old in ctx.run(conn, "queries/window_rows.sql", (row["tablename"],)):
        text = content if content is not None else old
        if text is None:
            continue
        pairs = {json.loads(k): (k, v) for k, v in encode.split_object(text)}
        if all(k in pairs for k in keys):
            texts["{" + ",".join(":".join(pairs[k]) for k in keys) + "}"] = None
    n = 0
    found = triggers.key_object(w, keys, ctx.names)
    todo = list(texts)
    for i in range(0, len(todo), CHUNK):
        part = todo[i : i + CHUNK]
        where = f"{found} IN ({', '.join('?' * len(part))})"
        n += int(conn.execute(triggers.recapture_insert(w, ctx.names, where), part).rowcount)
    return n


def _resync(conn: Any, ctx: Ctx, row: dict[str, Any], truncate: bool) -> int:
    """Optionally a TRUNCATE record, then an INSERT record per current row."""
    n = 0
    if truncate:
        cols = _by_table(
            [
                (row["tablename"], *c)
                for c in catalog.query(conn, "catalog_columns", (row["tablename"],))
            ]
        )
        n += _record(conn, ctx, row, "TRUNCATE", _shape(cols.get(row["tablename"])), None)
    w = watch_of(conn, ctx.names, row)
    assert w is not None
    cur = conn.execute(triggers.resync_insert(w, ctx.names))
    return n + int(cur.rowcount)
