"""Purging tombstones (part of ``syncpoint purge``), never before every site is past them.

A tombstone is needed at a site S while a change of the deleted incarnation made elsewhere
may still arrive there. Such a change was made at some site X before X learnt of the
delete, that is before X wrote its own tombstone of that key and key version. So a
tombstone goes only when every site holds it, and at every site S, for every other site X,
S's receive stamp of X (every change captured at X before it is applied at S, in X's clock)
is later than the time X wrote its tombstone (X's clock too). It then goes at every site.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from syncpoint.config import ChannelConfig
from syncpoint.ops import cdr
from syncpoint.ops.location import close
from syncpoint.vendors.cdrbase import canonical_key
from syncpoint.vendors.stampstore import StampStore

Key = tuple[str, str, int]


def _utc(t: datetime | None) -> datetime | None:
    if t is None:
        return None
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t


def purge_tombstones(cfg: ChannelConfig) -> dict[str, int]:
    """Tombstones purged per site (sites without conflict bookkeeping are left out)."""
    sites: dict[str, tuple[Any, Any]] = {}
    try:
        for name, integ, helper in cdr.sites(cfg):
            conn = integ.connect()
            if not helper.has_tables(conn):
                close(conn)
                continue
            sites[name] = (helper, conn)
        if len(sites) < 2:
            return {}
        written: dict[str, dict[Key, datetime]] = {}
        local: dict[str, dict[Key, Key]] = {}  # the key as compared -> as the site wrote it
        stamps: dict[str, dict[str, datetime | None]] = {}
        for name, (helper, conn) in sites.items():
            found = helper.tombstones(conn)
            # vendors write a key's JSON text with their own spacing: compared in one form
            local[name] = {(t, canonical_key(k), int(kv)): (t, k, int(kv)) for t, k, kv, _ in found}
            written[name] = {(t, canonical_key(k), int(kv)): _utc(at) for t, k, kv, at in found}  # type: ignore[misc]
            store = StampStore(helper.vendor, cfg.prefix, cfg.channel, name)
            try:
                stamps[name] = {x: _utc(t) for x, (t, _c) in store.read(conn).items()}
            except Exception:  # noqa: BLE001 - no stamps yet: nothing is past anything
                stamps[name] = {}
            conn.rollback()
        common = set.intersection(*(set(w) for w in written.values()))
        gone = [
            key
            for key in common
            if all(
                (stamp := stamps[s].get(x)) is not None and written[x][key] < stamp
                for s in sites
                for x in sites
                if x != s
            )
        ]
        out = {}
        for name, (helper, conn) in sites.items():
            helper.purge_tombstones(conn, [local[name][key] for key in gone])
            conn.commit()
            out[name] = len(gone)
        return out
    finally:
        for _h, conn in sites.values():
            close(conn)
