"""The watched tables as ``{prefix}tables`` records them, and where capture runs (``Site``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from syncpoint.vendors.mariadb.names import Names, render, statements


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


def present(cur: Any, names: Names) -> dict[str, tuple[str, str | None]]:
    """The prefix's tables, views and routines that exist: name -> (kind, routine body)."""
    all_names = list(names.idents.values())
    marks = ", ".join(["CAST(%s AS BINARY)"] * len(all_names))
    cur.execute(render("queries/installed.sql", names, raw={"names": marks}), all_names * 2)
    return {str(n): (str(k), b) for n, k, b in cur.fetchall()}


@contextmanager
def named_lock(cur: Any, site: Site, what: str, wait: int) -> Iterator[bool]:
    """The prefix's named lock ``what`` (``GET_LOCK``, waiting at most ``wait`` seconds) for
    the block; yields whether it was taken (another process holds it: False), and releases
    it after the block only then. It is the session's, not a transaction's: commits and
    rollbacks in the block keep it."""
    lock = site.names.lock(site.db, what)
    cur.execute(render("queries/lock_get.sql", site.names), (lock, wait))
    held = cur.fetchone()[0] == 1
    try:
        yield held
    finally:
        if held:
            cur.execute(render("queries/lock_release.sql", site.names), (lock,))
            cur.fetchall()


def lock_used(cur: Any, site: Site, what: str) -> bool:
    """Whether some session holds the prefix's named lock ``what`` now."""
    cur.execute(render("queries/lock_used.sql", site.names), (site.names.lock(site.db, what),))
    return cur.fetchone()[0] is not None
