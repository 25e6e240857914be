"""Install, uninstall and plan the capture objects of one prefix.

MariaDB has no transactional DDL, so ``install`` is made all-or-nothing by hand: it lists
the prefix's objects and triggers before it starts, and on any failure drops what it
created and removes the watched-table rows it added, then raises. Re-running it creates
nothing new: tables are ``IF NOT EXISTS``, the function and triggers are replaced only when
their body differs, and the service row (tick 0, stream identity) is kept.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from syncpoint.config import TableConfig
from syncpoint.vendors.mariadb import catalog, ddl, dialect, triggers
from syncpoint.vendors.mariadb.names import VENDOR, statements
from syncpoint.vendors.mariadb.state import Site, present, run, watched
from syncpoint.vendors.mariadb.watch import save_snapshot, settle
from syncpoint.vendors.sqlfiles import SqlFiles


def base_statements(site: Site) -> list[str]:
    """The statements creating the prefix's tables, function and view, in order."""
    out: list[str] = []
    for rel in SqlFiles(VENDOR).listing("install"):
        out += statements(
            rel,
            site.names,
            raw={"columns_select": catalog.columns_select(site.db)},
            literals={"schema": site.db},
        )
    return out


def _routine_body(create_sql: str) -> str:
    return create_sql[create_sql.index("\nBEGIN") :].strip()


def _create_base(cur: Any, site: Site, have: dict[str, tuple[str, str | None]]) -> None:
    fn = site.names.obj("trans_key")
    for stmt in base_statements(site):
        if f"FUNCTION {dialect.quote(fn)}" in stmt and fn in have:
            if (have[fn][1] or "").strip() == _routine_body(stmt):
                continue
        cur.execute(stmt)


def install(conn: Any, site: Site, tables: list[TableConfig], poll: Callable[[Any], int]) -> None:
    names = site.names
    cur = conn.cursor()
    before = present(cur, names)
    triggers_before = set(triggers.existing(cur, names))
    was_installed = names.obj("service_context") in before
    added: list[str] = []
    try:
        if was_installed and names.obj("tick_holes") not in before:
            from syncpoint.vendors.mariadb import stream

            stream.ensure_ranges(conn, site)  # an earlier version's queue: its ticks' ranges
            before = present(cur, names)  # theirs now: a failed install leaves them
        _create_base(cur, site, before)
        run(
            cur,
            "queries/service_row.sql",
            names,
            {"stream_id": uuid.uuid4().hex, "location": site.location},
        )
        conn.commit()
        if was_installed:
            ddl.adopt_reading(conn, site)  # column snapshots of an earlier version
            poll(conn)  # bring the snapshots of tables already watched up to date first
        wanted = {t.ref.name: t for t in tables}
        current = {w.table: w for w in watched(cur, names)}
        for name in current:
            if name not in wanted:
                triggers.drop(cur, names, name)
                run(cur, "queries/watch_remove.sql", names, {"schema": site.db, "table": name})
                conn.commit()
        for name, t in wanted.items():
            if name not in current:
                added.append(name)
            run(
                cur,
                "queries/watch_add.sql",
                names,
                {
                    "schema": site.db,
                    "table": name,
                    "actions": t.actions,
                    "debug": int(t.debug),
                    "keycols": _json(t.key),
                },
            )
            conn.commit()
        for w in watched(cur, names):
            cols = catalog.columns(cur, w.schema, w.table)
            if w.status == "CREATING":
                save_snapshot(cur, site, w, cols)
                conn.commit()
            settle(conn, site, w, cols)
    except Exception as exc:
        _undo(conn, site, before, triggers_before, added)
        raise dialect.translate(exc, site.location) from exc


def _json(v: Any) -> str | None:
    import json

    return json.dumps(v) if v else None


def _undo(
    conn: Any,
    site: Site,
    before: dict[str, tuple[str, str | None]],
    triggers_before: set[str],
    added: list[str],
) -> None:
    """Remove what a failed install created; keep what was there before it."""
    try:
        conn.rollback()
        cur = conn.cursor()
        for name in set(triggers.existing(cur, site.names)) - triggers_before:
            cur.execute(f"DROP TRIGGER IF EXISTS {dialect.quote(name)}")
        now = present(cur, site.names)
        if site.names.obj("tables") in before:
            for name in added:
                run(cur, "queries/watch_remove.sql", site.names, {"schema": site.db, "table": name})
            conn.commit()
        for name, (kind, _) in now.items():
            if name in before:
                continue
            what = {"VIEW": "VIEW", "FUNCTION": "FUNCTION"}.get(kind, "TABLE")
            cur.execute(f"DROP {what} IF EXISTS {dialect.quote(name)}")
        conn.commit()
    except Exception:  # noqa: BLE001 - the original error is the one to report
        pass


def uninstall_statements(cur: Any, site: Site) -> list[str]:
    """What ``uninstall`` runs, in order (also shown by ``plan --uninstall``)."""
    # Triggers first: an application statement must never find a trigger without its queue.
    out = [f"DROP TRIGGER IF EXISTS {dialect.quote(n)}" for n in triggers.existing(cur, site.names)]
    return out + statements("uninstall/010_objects.sql", site.names)


def uninstall(conn: Any, site: Site) -> None:
    cur = conn.cursor()
    for stmt in uninstall_statements(cur, site):
        cur.execute(stmt)
    conn.commit()


def plan(cur: Any, site: Site, tables: list[TableConfig]) -> list[str]:
    out = base_statements(site)
    versions = {}
    if site.names.obj("tables") in present(cur, site.names):
        versions = {w.table: w.version for w in watched(cur, site.names)}
    for t in tables:
        cols = catalog.columns(cur, site.db, t.ref.name)
        spec = triggers.Spec(
            site.db, t.ref.name, t.actions, versions.get(t.ref.name, 1), t.debug, site.location
        )
        out += list(triggers.render_all(site.names, spec, cols).values())
    return out
