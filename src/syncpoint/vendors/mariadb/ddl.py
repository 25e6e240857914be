"""DDL detection by polling (MariaDB has no DDL triggers): ``poll_ddl``.

Each poll compares ``{prefix}cols_view`` with ``{prefix}cols_snapshot`` and each watched
table's InnoDB identity with the last one seen, writes one ALTER, TRUNCATE, DROP or CREATE
record per event, then settles the tables whose triggers are behind (``watch.settle``):
triggers rendered again, and what the old ones missed captured again. The rules:
docs/internals.md, "Capture on MariaDB".
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from syncpoint.core.cdr import bookkeeping_prefix
from syncpoint.vendors.mariadb import catalog, triggers
from syncpoint.vendors.mariadb.encode import ColumnInfo
from syncpoint.vendors.mariadb.names import render
from syncpoint.vendors.mariadb.rows import witness_present
from syncpoint.vendors.mariadb.state import Site, Watched, named_lock, run, watched
from syncpoint.vendors.mariadb.types import bare
from syncpoint.vendors.mariadb.watch import (
    Shape,
    filled_columns,
    save_identity,
    save_snapshot,
    settle,
    shape_of,
    write_event,
)

RELOAD = -1


def poll(conn: Any, site: Site) -> int:
    cur = conn.cursor()
    conn.commit()
    with named_lock(cur, site, "ddl", 0) as held:
        if not held:
            return 0  # another poll of this prefix is running
        written = _detect(conn, site)
        for w in watched(cur, site.names):
            if w.status == "DROPPED":
                continue
            if w.status != "OK" or w.trigger_version != w.version or w.refresh_from is not None:
                cols = catalog.columns(cur, w.schema, w.table)
                try:
                    written += settle(conn, site, w, cols)
                except Exception:  # noqa: BLE001 - recorded as ERROR, retried next poll
                    continue
        return written


def shapes_now_and_seen(
    cur: Any, site: Site
) -> tuple[dict[str, list[ColumnInfo]], dict[str, Shape]]:
    """Per table of the site's database: its columns in the catalog now, and the shape
    last seen (the poll's and the log reader's comparison both start from these)."""
    cur.execute(render("queries/cols_view_read.sql", site.names))
    view: dict[str, list[ColumnInfo]] = defaultdict(list)
    for row in cur.fetchall():
        view[row[1]].append(catalog.info(row))
    cur.execute(render("queries/snapshot_read.sql", site.names))
    snap: dict[str, Shape] = defaultdict(list)
    for _, table, _, colname, coltype, nullable, pk in cur.fetchall():
        snap[table].append((colname, coltype, bool(nullable), pk))
    return view, snap


def _detect(conn: Any, site: Site) -> int:
    names = site.names
    cur = conn.cursor()
    cur.execute("START TRANSACTION")
    cur.execute(render("queries/poll_start.sql", names))
    mark, previous = (int(v) for v in cur.fetchone())
    view, snap = shapes_now_and_seen(cur, site)
    written = 0
    for w in watched(cur, names):
        if w.schema != site.db:
            continue
        written += _one(cur, site, w, view.get(w.table, []), snap.get(w.table, []), previous)
    run(cur, "queries/poll_done.sql", names, {"mark": mark})
    conn.commit()
    for w in watched(cur, names):
        if w.status == "DROPPED" and w.trigger_name:
            # A RENAME carries the triggers along: drop them wherever they are now.
            triggers.drop(cur, names, w.table)
            run(cur, "queries/watch_dropped.sql", names, {"schema": w.schema, "table": w.table})
            conn.commit()
    return written


def _one(
    cur: Any,
    site: Site,
    w: Watched,
    cols: list[ColumnInfo],
    old: Shape,
    previous: int,
) -> int:
    if w.status == "DROPPED":
        if not cols:
            return 0
        _event(cur, site, w, "CREATE", shape_of(cols), [], "CREATING", RELOAD)
        save_snapshot(cur, site, w, cols)
        return 1
    if not cols:
        _event(cur, site, w, "DROP", [], old, "DROPPED", None)
        return 1
    written = 0
    # conflict bookkeeping columns (cdr add/remove) are syncpoint's, not a schema change
    mark = bookkeeping_prefix(site.names.prefix)
    altered = [c for c in shape_of(cols) if not c[0].startswith(mark)] != [
        c for c in old if not c[0].startswith(mark)
    ]
    if altered:
        _event(cur, site, w, "ALTER", shape_of(cols), old, "OK", previous)
        save_snapshot(cur, site, w, cols)
        written += 1
    facts = catalog.facts(cur, w.schema, w.table)
    # (no InnoDB id without the PROCESS privilege: TRUNCATE cannot be seen; check() says so)
    if facts and facts.inno_id is not None and w.inno_id is not None and facts.inno_id != w.inno_id:
        # A new InnoDB id: TRUNCATE or a rebuild. Without a column change, an unchanged
        # create time means TRUNCATE (or a rebuild within the same second: reloading then
        # is only wasted work). Otherwise the witness row decides: gone (or none was seen)
        # means the rows may have been emptied.
        same_ctime = facts.created == w.created and not altered
        if same_ctime or not witness_present(cur, site, w, cols):
            # the record is written by settle(), with the re-capture, in one transaction
            _event(cur, site, w, "TRUNCATE", [], [], "OK", RELOAD, record=False)
    save_identity(cur, site, w, cols)
    return written


def adopt_reading(conn: Any, site: Site) -> int:
    """At install over an earlier version's capture (before its first poll): the column
    snapshots that earlier versions wrote, in their reading of types (lower case, no
    character set or collation), rewritten in this version's where nothing else differs,
    so that the new reading is not taken for an ALTER. Returns the tables rewritten. (A
    change of only a label's case or a collation made since the last poll goes unrecorded.)"""
    names = site.names
    cur = conn.cursor()
    cur.execute(render("queries/snapshot_read.sql", names))
    snap: dict[str, Shape] = defaultdict(list)
    for _, table, _, colname, coltype, nullable, pk in cur.fetchall():
        snap[table].append((colname, coltype, bool(nullable), pk))
    done = 0
    for w in watched(cur, names):
        if w.schema != site.db or w.status == "DROPPED" or w.table not in snap:
            continue
        cols = catalog.columns(cur, w.schema, w.table)
        if _older_reading(shape_of(cols), snap[w.table]):
            save_snapshot(cur, site, w, cols, identity=False)
            done += 1
    conn.commit()
    return done


def _older_reading(new: Shape, old: Shape) -> bool:
    """Whether ``old`` is ``new`` as an earlier version read types: lower case, no character
    set or collation."""
    if len(new) != len(old):
        return False
    for (n1, t1, nl1, pk1), (n2, t2, nl2, pk2) in zip(new, old, strict=True):
        if (n1, nl1, pk1) != (n2, nl2, pk2):
            return False
        if t1 != t2 and (bare(t1).lower() != t2 or bare(t2) != t2 or t2 != t2.lower()):
            return False
    return new != old


def _event(
    cur: Any,
    site: Site,
    w: Watched,
    action: str,
    new: Shape,
    old: Shape,
    status: str,
    refresh_from: int | None,
    record: bool = True,
) -> None:
    w.version += 1
    run(
        cur,
        "queries/watch_event.sql",
        site.names,
        {
            "schema": w.schema,
            "table": w.table,
            "status": status,
            "refresh_from": refresh_from,
            "pending": None if record else action,
        },
    )
    if record:
        filled = filled_columns(cur, site, w, new, old) if action == "ALTER" else frozenset()
        write_event(cur, site, w, action, new, old, _detail(action, new, old), filled)


def _detail(action: str, new: Shape, old: Shape) -> str:
    if action != "ALTER":
        return {
            "DROP": "the table is gone; its triggers were dropped",
            "CREATE": "the table exists again; it is captured again",
        }[action]
    before, after = {c[0]: c for c in old}, {c[0]: c for c in new}
    parts = [f"added {n}" for n in after if n not in before]
    parts += [f"dropped {n}" for n in before if n not in after]
    parts += [
        f"changed {n}: {before[n][1]} -> {after[n][1]}"
        for n in after
        if n in before and before[n] != after[n]
    ]
    return "; ".join(parts) or "column order changed"
