"""Rows of a watched table found again by key: the witness row of TRUNCATE detection, and
capturing rows again after a shape change (by key) or a TRUNCATE or CREATE (all rows).

Keys come back from captured content (JSON) and are bound as parameters: base64 back to
bytes, ISO timestamps back to the session's zone (UTC), numbers as exact decimals.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from syncpoint.core.model import loads
from syncpoint.vendors.mariadb import dialect
from syncpoint.vendors.mariadb.encode import ColumnInfo, row_json
from syncpoint.vendors.mariadb.names import render
from syncpoint.vendors.mariadb.state import Site, Watched

CHUNK = 500


def key_columns(cols: Sequence[ColumnInfo], keycols: list[str] | None) -> list[ColumnInfo]:
    if keycols:
        by_name = {c.name: c for c in cols}
        return [by_name[k] for k in keycols if k in by_name]
    return sorted((c for c in cols if c.pk), key=lambda c: c.pk or 0)


def witness(cur: Any, site: Site, table: str, keys: list[ColumnInfo]) -> str | None:
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
    keys = key_columns(cols, None)
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


def _insert(cur: Any, site: Site, w: Watched, action: str, rows: list[tuple[Any, Any]]) -> None:
    if not rows:
        return
    lits = {"location": site.location, "tablename": w.table, "schema": w.schema}
    sql = render(
        "queries/recapture_insert.sql",
        site.names,
        raw={"action": action, "version": str(int(w.version))},
        literals=lits,
    )
    cur.executemany(sql, rows)


def _reload(cur: Any, site: Site, w: Watched, cols: Sequence[ColumnInfo]) -> None:
    """Every row as an INSERT record, a chunk at a time in key order."""
    keys = key_columns(cols, w.keycols) or list(cols)
    refs = [f"src.{dialect.quote(k.name)}" for k in keys]
    last: list[Any] | None = None
    while True:
        after = "1 = 1"
        if last is not None:
            after = f"({', '.join(refs)}) > ({', '.join(['%s'] * len(refs))})"
        sql = render(
            "queries/reload.sql",
            site.names,
            idents={"table": w.table},
            raw={
                # executed with parameters: the row's DATE_FORMAT patterns need their % doubled
                "row": row_json(cols, "src").replace("%", "%%"),
                "key": ", ".join(refs),
                "after": after,
                "order": ", ".join(refs),
                "limit": str(CHUNK),
            },
        )
        cur.execute(sql, tuple(last or ()))
        got = cur.fetchall()
        _insert(cur, site, w, "INSERT", [(r[0], None) for r in got])
        if len(got) < CHUNK:
            return
        last = list(got[-1][1:])


def recapture(cur: Any, site: Site, w: Watched, cols: Sequence[ColumnInfo]) -> None:
    if w.refresh_from is not None and w.refresh_from < 0:
        _reload(cur, site, w, cols)
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
            raw={"row": row_json(cols, "src").replace("%", "%%"), "where": where},
        )
        cur.execute(sql, params)
        _insert(cur, site, w, "UPDATE", [(r[0], r[0]) for r in cur.fetchall()])
