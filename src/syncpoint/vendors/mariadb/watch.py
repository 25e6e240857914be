"""The watched tables (``{prefix}tables``): adding one, its snapshot, and settling it.

A table is *settled* when its triggers write its current shape version and nothing is owed:
``settle`` renders and swaps the triggers, then, when a shape change or a TRUNCATE left
rows captured wrongly or not at all, captures them again (``refresh_from``: -1 reloads the
whole table as INSERT records; a repl_key re-captures, as UPDATE records, the rows changed
after it), and marks the table OK. Install and ``poll_ddl`` share it; a failure (a lock
wait on a busy table) leaves the table ERROR with the reason, retried at the next poll.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from syncpoint.core.model import loads
from syncpoint.vendors.mariadb import catalog, dialect, triggers
from syncpoint.vendors.mariadb.encode import ColumnInfo, row_json
from syncpoint.vendors.mariadb.names import Names, render, statements

CHUNK = 500


@dataclass(frozen=True)
class Site:
    """Where capture runs: the prefix's names, the location's name and its database."""

    names: Names
    location: str
    db: str


@dataclass
class Watched:
    schema: str
    table: str
    actions: str | None
    status: str
    reason: str | None
    repl_key: int
    trigger_name: str | None
    debug: bool
    version: int
    trigger_version: int | None
    inno_id: int | None
    created: datetime | None
    witness: str | None
    keycols: list[str] | None
    refresh_from: int | None
    pending_event: str | None = None


def watched(cur: Any, names: Names) -> list[Watched]:
    cur.execute(render("queries/watched.sql", names))
    out = []
    for r in cur.fetchall():
        out.append(
            Watched(
                schema=r[0],
                table=r[1],
                actions=r[2],
                status=r[3],
                reason=r[4],
                repl_key=int(r[5]),
                trigger_name=r[6],
                debug=bool(r[7]),
                version=int(r[8]),
                trigger_version=r[9],
                inno_id=r[10],
                created=r[11],
                witness=r[12],
                keycols=json.loads(r[13]) if r[13] else None,
                refresh_from=r[14],
                pending_event=r[15],
            )
        )
    return out


def run(cur: Any, relpath: str, names: Names, params: Any = None, **kw: Any) -> None:
    """Execute each statement of ``sql/<relpath>`` with the same parameters."""
    for stmt in statements(relpath, names, **kw):
        cur.execute(stmt, params)


Shape = list[tuple[str, str, bool, int | None]]


def shape_of(cols: Sequence[ColumnInfo]) -> Shape:
    return [(c.name, c.type, c.nullable, c.pk) for c in cols]


def shape_json(shape: Shape) -> str | None:
    """A DDL record's content: ``{"columns": [{name, type, nullable, pk}, ...]}``."""
    if not shape:
        return None
    cols = [{"name": n, "type": t, "nullable": nl, "pk": pk} for n, t, nl, pk in shape]
    return json.dumps({"columns": cols})


def write_event(
    cur: Any, site: Site, w: Watched, action: str, new: Shape, old: Shape, detail: str
) -> None:
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
            "content": shape_json(new),
            "oldcontent": shape_json(old),
            "version": w.version,
            "detail": detail,
        },
    )


def key_columns(cols: Sequence[ColumnInfo], keycols: list[str] | None) -> list[ColumnInfo]:
    if keycols:
        by_name = {c.name: c for c in cols}
        return [by_name[k] for k in keycols if k in by_name]
    return sorted((c for c in cols if c.pk), key=lambda c: c.pk or 0)


def save_snapshot(cur: Any, site: Site, w: Watched, cols: Sequence[ColumnInfo]) -> None:
    """Record the table's columns, InnoDB identity and a witness row key as of now."""
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
    save_identity(cur, site, w, cols)


def save_identity(cur: Any, site: Site, w: Watched, cols: Sequence[ColumnInfo]) -> None:
    """Record the table's InnoDB id, create time and witness row key, when they changed."""
    f = catalog.facts(cur, w.schema, w.table)
    now = {
        "inno_id": f.inno_id if f else None,
        "created": f.created if f else None,
        "witness": _witness(cur, site, w.table, key_columns(cols, w.keycols)) if f else None,
    }
    if (now["inno_id"], now["created"], now["witness"]) == (w.inno_id, w.created, w.witness):
        return
    run(
        cur,
        "queries/watch_identity.sql",
        site.names,
        {"schema": w.schema, "table": w.table, **now},
    )


def _witness(cur: Any, site: Site, table: str, keys: list[ColumnInfo]) -> str | None:
    if not keys:
        return None
    order = ", ".join(f"src.{dialect.quote(k.name)}" for k in keys)
    sql = render(
        "queries/witness.sql",
        site.names,
        idents={"table": table},
        raw={"row": row_json(keys, "src"), "order": order},
    )
    cur.execute(sql)
    row = cur.fetchone()
    return str(row[0]) if row else None


def witness_present(cur: Any, site: Site, w: Watched, cols: Sequence[ColumnInfo]) -> bool:
    """Whether the row whose key was the witness at the last poll still exists."""
    keys = key_columns(cols, w.keycols)
    if w.witness is None or not keys:
        return False
    where, params = _where(keys, [loads(w.witness)])
    if where is None:
        return False
    sql = render(
        "queries/witness_exists.sql", site.names, idents={"table": w.table}, raw={"where": where}
    )
    cur.execute(sql, params)
    return bool(cur.fetchone()[0])


def bind(col: ColumnInfo, v: Any) -> Any:
    """A key value as captured (JSON) back into a value MariaDB compares with the column."""
    if v is None:
        return None
    if col.binary:
        return base64.b64decode(v)
    if col.data_type in ("datetime", "timestamp") and isinstance(v, str):
        # Captured as ISO text (TIMESTAMP in UTC, which is this session's zone).
        return v.replace("T", " ").removesuffix("+00:00")
    if isinstance(v, Decimal | int | float | str):
        return v
    return json.dumps(v)


def _where(keys: list[ColumnInfo], rows: list[Any]) -> tuple[str | None, list[Any]]:
    tuples, params = [], []
    for row in rows:
        if not isinstance(row, dict) or any(k.name not in row for k in keys):
            continue
        tuples.append("(" + ", ".join(["%s"] * len(keys)) + ")")
        params += [bind(k, row[k.name]) for k in keys]
    if not tuples:
        return None, []
    cols = "(" + ", ".join(f"src.{dialect.quote(k.name)}" for k in keys) + ")"
    return f"{cols} IN ({', '.join(tuples)})", params


def _recapture(cur: Any, site: Site, w: Watched, cols: Sequence[ColumnInfo]) -> None:
    lits = {"location": site.location, "tablename": w.table, "schema": w.schema}
    version = str(int(w.version))
    if w.refresh_from is not None and w.refresh_from < 0:
        sql = render(
            "queries/reload.sql",
            site.names,
            idents={"table": w.table},
            raw={"row": row_json(cols, "src"), "version": version},
            literals=lits,
        )
        cur.execute(sql)
        return
    keys = key_columns(cols, w.keycols)
    cur.execute(
        render("queries/window_keys.sql", site.names), {"table": w.table, "after": w.refresh_from}
    )
    seen: dict[str, Any] = {}
    for content, oldcontent in cur.fetchall():
        row = loads(content if content is not None else oldcontent)
        if isinstance(row, dict):
            seen[json.dumps([str(row.get(k.name)) for k in keys])] = row
    rows = list(seen.values())
    for i in range(0, len(rows), CHUNK):
        where, params = _where(keys, rows[i : i + CHUNK])
        if where is None:
            continue
        sql = render(
            "queries/refresh.sql",
            site.names,
            idents={"table": w.table},
            # executed with parameters: the row's DATE_FORMAT patterns need their % doubled
            raw={
                "row": row_json(cols, "src").replace("%", "%%"),
                "where": where,
                "version": version,
            },
            literals=lits,
        )
        cur.execute(sql, params)


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
            _recapture(cur, site, w, cols)
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
