"""``purge``: per capture location, delete the change records at or before the lowest
position every consumer (each application at each integrate location that reads it,
including this channel's own before its first round) has applied for every table. Never
more. Tombstones of conflict resolution go too where every site has them past its stamps.
"""

from __future__ import annotations

from typing import Any

from syncpoint.config import ChannelConfig
from syncpoint.core import positions
from syncpoint.ops.location import Location


def purge(cfg: ChannelConfig) -> dict[str, Any]:
    stored: list[tuple[str, positions.Position]] = []
    for integ in cfg.integrate_locations():
        with Location.of(cfg, integ).integrate() as (target, conn):
            target.ensure(conn)
            stored += [(f"{integ}/{a}", p) for a, p in target.positions(conn)]
    out: dict[str, Any] = {}
    for name in cfg.capture_locations():
        with Location.of(cfg, name).capture() as (cap, conn):
            stream = cap.stream_id(conn)
            conn.rollback()  # purge commits on its own: no transaction may be open
            required = [
                f"{i}/{cfg.application}"
                for i in cfg.integrate_locations()
                if name in cfg.sources_of(i)
            ]
            tables = [str(t.ref) for t in cfg.tables_at(name)]
            bound = positions.purge_bound(name, stream, tables, stored, required)
            purged = cap.purge(conn, bound) if bound is not None else 0
            out[name] = {"upto": bound, "purged": purged}
    if any(loc.capture and loc.integrate for loc in cfg.locations.values()):
        from syncpoint.ops.cdr.purge import purge_tombstones

        for name, n in purge_tombstones(cfg).items():
            out.setdefault(name, {"upto": None, "purged": 0})["tombstones"] = n
    return out
