"""The conflicts part of ``status``: per site, how many conflicts were decided there, per
table, and the latest one; how many tombstones the site holds and the oldest one's age
(what ``purge`` has yet to take away). It only reads (a site without bookkeeping reports
nothing)."""

from __future__ import annotations

from typing import Any

from syncpoint.config import ChannelConfig
from syncpoint.errors import SyncpointError
from syncpoint.ops import cdr
from syncpoint.ops.location import close


def conflict_status(cfg: ChannelConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, integ, helper in cdr.sites(cfg):
        try:
            conn = integ.connect()
        except SyncpointError as exc:
            out[name] = {"error": exc.message}
            continue
        try:
            tables = helper.conflicts(conn)
            conn.rollback()
            tombstones = helper.tombstone_stats(conn)
            conn.rollback()
        finally:
            close(conn)
        out[name] = {
            "total": sum(t["count"] for t in tables.values()),
            "tables": tables,
            "tombstones": tombstones,
        }
    return out
