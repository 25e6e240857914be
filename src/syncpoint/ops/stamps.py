"""Receive stamps after a run: each capture location whose tables all stand at their
group's sync point at an integrate location gets the guaranteed time of those sync points
there (``{p}stin_*``), written after the positions they rely on, never ahead of the data.
The rules are ``core/stamps.py``; the table ``vendors/stampstore.py``.
"""

from __future__ import annotations

from datetime import UTC, datetime

from syncpoint import failpoints
from syncpoint.config import ChannelConfig, TableConfig
from syncpoint.core.model import Tick
from syncpoint.ops.location import Location


def record_stamps(cfg: ChannelConfig, integ: str) -> None:
    """Move the receive stamps of ``integ`` for every capture location whose tables all
    stand at their group's sync point."""
    from syncpoint.core import stamps as stamprules
    from syncpoint.ops import cdr
    from syncpoint.vendors.stampstore import StampStore

    place = Location.of(cfg, integ)
    # a server that ends the session mid-way (a restart, an outage) is a transient error the
    # follower retries at its next poll, never a crash of the follower
    with place.integrate() as (target, conn), target.dialect.translated(integ):
        site = cdr.support(target)
        if site is not None and not site.has_tables(conn):
            site = None
        if site is not None:
            site.ensure_hops(conn)
            cdr.ensure(target, site, conn)
        app = cfg.application
        stored = {(p.location, p.table): p.context for a, p in target.positions(conn) if a == app}
        sps = target.sync_points(conn, app)
        group_of = {str(t.ref): g for g, ts in cfg.groups().items() for t in ts}
        candidates: dict[str, tuple[datetime | None, int]] = {}
        for loc in cfg.sources_of(integ):
            times, ctx, ok = [], 0, True
            by_group: dict[str, list[TableConfig]] = {}
            for t in cfg.tables_at(loc):
                by_group.setdefault(group_of[str(t.ref)], []).append(t)
            for g, here in by_group.items():
                sp = sps.get((loc, g))
                if sp is None or any(stored.get((loc, str(t.ref))) != sp.context for t in here):
                    ok = False
                    break
                made = sp.sampled_at or sp.guaranteed_at or datetime.min.replace(tzinfo=UTC)
                tick = Tick(sp.context, sp.guaranteed_at or made, made)
                times.append(stamprules.candidate(loc, tick))
                ctx = max(ctx, sp.context)
            if ok and times:
                known = [t for t in times if t is not None]
                candidates[loc] = (min(known) if len(known) == len(times) else None, ctx)
        if not candidates:
            return
        store = StampStore(place.vendor, cfg.prefix, cfg.channel, integ)
        store.ensure(conn)
        target.begin(conn)
        moved = store.record(conn, sorted(candidates), candidates)
        if site is not None:  # purge's bound on when forwarded changes were captured here
            site.record_hops(conn, {k: s.cap_begin for k, s in moved.locations.items()})
        target.commit(conn)
        failpoints.hit("after_stamps")
