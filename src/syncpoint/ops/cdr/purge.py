"""Purging tombstones (part of ``syncpoint purge``), never before every site is past them.

A tombstone is needed at a site S while a change of the deleted incarnation may still
arrive there. Such a change was captured at some site X before X wrote its own tombstone
of that key and key version, at time T (X's clock): a local change before the delete, or
one applied there before the delete came. It travels to S along the route the channel
gives X's changes to S: directly, or through sites that apply and capture it again
(a ring). So a tombstone goes only when every site holds it, or never gets its delete (see
below), and, for every site X that holds it and every other site S, S is known to hold
everything X captured before T:

- directly: S's receive stamp of X is later than T;
- through X -> H1 -> ... -> S: H1 held everything X captured before T at the time H1's
  stamp of X first moved past T (H1's clock, recorded with each move in ``{p}cdr_hops``);
  what H1 applied by then it captured by then, so the next hop needs its stamp of H1 past
  that time, and so on up to S's receive stamp of the last hop.

Moves of a stamp not recorded (pruned, or made before ``cdr add``) only make these times
later: the rule waits longer, never less. The tombstone then goes at every site.

A site that holds a newer incarnation of the key (a row or a tombstone of a greater key
version) ignores every change of the older one, its delete too: it is not waited for
either (an insert and a delete netted in one round there leave it no tombstone at all).

A site that applies a delete and does not pass it on (its row wins against the delete, or it
holds a newer incarnation) marks its tombstone so (``ended_here``): the sites after it on
the delete's way never get that delete, and hold no tombstone of it. A site that holds none
is not waited for when the way to it from every site that holds one passes such a site:
what it needs instead, the winning row, is what that site captured before its tombstone,
and the rule above already waits for it to arrive. A site whose tombstone is not marked
so is waited for by every site after it, as a delete on its way there may not have
arrived yet; deletes passed on are the safe reading of an unmarked tombstone.

A tombstone at a site that holds a row of its incarnation or a newer one goes at once: the
site decides nothing by it. A delete of that row writes it anew (its version, the row it
deleted, its time as ``deleted_at``: T is the last delete's), so purge reads the rows again
after its deletes, in their transaction, and keeps a tombstone whose row went meanwhile.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from syncpoint.config import ChannelConfig, parse_table_name
from syncpoint.ops import cdr
from syncpoint.ops.location import close
from syncpoint.vendors.cdrbase import Purged, canonical_key
from syncpoint.vendors.stampstore import StampStore

Key = tuple[str, str, int]
Moves = dict[str, list[tuple[datetime, datetime]]]  # capture location -> (stamp, moved at)


def _utc(t: datetime | None) -> datetime | None:
    if t is None:
        return None
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t


def held_since(moves: Moves, source: str, t: datetime) -> datetime | None:
    """The earliest recorded time at which a site's stamp of ``source`` was past ``t``:
    from then on the site held (and had captured) everything ``source`` captured before
    ``t``. None when no recorded move is past ``t``."""
    past = [at for stamp, at in moves.get(source, []) if stamp > t]
    return min(past) if past else None


def past(
    path: list[str],
    written: datetime,
    stamps: dict[str, dict[str, datetime | None]],
    moves: dict[str, Moves],
) -> bool:
    """Whether the last site of ``path`` holds everything its first site captured before
    ``written`` (the first site's clock)."""
    t: datetime | None = written
    for prev, here in zip(path, path[1:-1], strict=False):
        t = held_since(moves[here], prev, t)  # type: ignore[arg-type]
        if t is None:
            return False
    stamp = stamps[path[-1]].get(path[-2])
    return stamp is not None and t is not None and t < stamp


Tables = dict[str, tuple[Any, list[str]]]  # table -> (its name here, its key columns)


def _tables(helper: Any, conn: Any) -> Tables:
    """A site's tables under conflict resolution, read in a transaction of their own (on
    MariaDB the catalog read ends the one it is in; and a read there would fix the snapshot
    of the next statements)."""
    integ = helper.integ
    out = {
        table: (integ.resolve(parse_table_name(table), False, integ.vendor), cdr_table.key)
        for table, cdr_table in helper.settings(conn).items()
    }
    conn.rollback()
    return out


def _rows(
    helper: Any, conn: Any, tables: Tables, wanted: dict[str, set[str]]
) -> dict[tuple[str, str], int]:
    """The key version of a site's row of each of some keys (per table) that has one."""
    rows: dict[tuple[str, str], int] = {}
    for table, keys in wanted.items():
        if table in tables:
            ref, key = tables[table]
            found = helper.row_key_versions(conn, ref, key, sorted(keys))
            rows.update({(table, k): kv for k, kv in found.items()})
    return rows


def _incarnations(
    sites: dict[str, tuple[Any, Any]], written: dict[str, dict[Key, datetime]]
) -> dict[str, dict[tuple[str, str], tuple[int, int]]]:
    """Per site, for each key tombstoned anywhere: the key version of its row here (0:
    none) and the greatest key version of its tombstones here (0: none)."""
    tombstoned = set().union(*written.values())
    wanted: dict[str, set[str]] = {}
    for t, k, _kv in tombstoned:
        wanted.setdefault(t, set()).add(k)
    out: dict[str, dict[tuple[str, str], tuple[int, int]]] = {}
    for name, (helper, conn) in sites.items():
        tombs: dict[tuple[str, str], int] = {}
        for t, k, kv in written[name]:
            tombs[t, k] = max(kv, tombs.get((t, k), 0))
        rows = _rows(helper, conn, _tables(helper, conn), wanted)
        conn.rollback()
        out[name] = {
            (t, k): (rows.get((t, k), 0), tombs.get((t, k), 0)) for t, k, _kv in tombstoned
        }
    return out


def _check(
    helper: Any,
    tables: Tables,
    name: str,
    held: list[Key],
    here: dict[str, dict[tuple[str, str], tuple[int, int]]],
    local: dict[str, dict[Key, Key]],
) -> Purged:
    """Purge's check, after its deletes at site ``name``, of the tombstones ``held`` taken
    for a row here: those whose key has no row of that incarnation or a newer one any more
    (and no newer tombstone), as the site wrote them."""

    def check(conn: Any) -> set[Key]:
        if not held:
            return set()
        wanted: dict[str, set[str]] = {}
        for t, k, _kv in held:
            wanted.setdefault(t, set()).add(k)
        rows = _rows(helper, conn, tables, wanted)
        return {
            local[name][key]
            for key in held
            if rows.get((key[0], key[1]), 0) < key[2] and here[name][key[0], key[1]][1] <= key[2]
        }

    return check


def purge_tombstones(cfg: ChannelConfig) -> dict[str, int]:
    """Tombstones purged per site (sites without conflict bookkeeping are left out)."""
    sites: dict[str, tuple[Any, Any]] = {}
    try:
        for name, integ, helper in cdr.sites(cfg):
            conn = integ.connect()
            if not helper.has_tables(conn):
                close(conn)
                continue
            helper.ensure_hops(conn)
            cdr.ensure(integ, helper, conn)
            sites[name] = (helper, conn)
        if len(sites) < 2:
            return {}
        written: dict[str, dict[Key, datetime]] = {}
        ended: dict[Key, set[str]] = {}  # the sites where the delete ended, not passed on
        local: dict[str, dict[Key, Key]] = {}  # the key as compared -> as the site wrote it
        stamps: dict[str, dict[str, datetime | None]] = {}
        moves: dict[str, Moves] = {}
        for name, (helper, conn) in sites.items():
            found = helper.tombstones(conn)
            # vendors write a key's JSON text with their own spacing: compared in one form
            local[name] = {(t, canonical_key(k), kv): (t, k, kv) for t, k, kv, _a, _e in found}
            written[name] = {(t, canonical_key(k), kv): _utc(at) for t, k, kv, at, _e in found}  # type: ignore[misc]
            for t, k, kv, _a, end in found:
                if end:
                    ended.setdefault((t, canonical_key(k), kv), set()).add(name)
            store = StampStore(helper.vendor, cfg.prefix, cfg.channel, name)
            try:
                stamps[name] = {x: _utc(t) for x, (t, _c) in store.read(conn).items()}
            except Exception:  # noqa: BLE001 - no stamps yet: nothing is past anything
                stamps[name] = {}
            conn.rollback()
            moves[name] = {
                loc: [(_utc(s), _utc(at)) for s, at in ms]  # type: ignore[misc]
                for loc, ms in helper.hops(conn).items()
            }
            conn.rollback()
        here = _incarnations(sites, written)

        def newer(s: str, key: Key) -> bool:
            """Site ``s`` holds a newer incarnation of the key: a row or a tombstone."""
            row, tomb = here[s][key[0], key[1]]
            return max(row, tomb) > key[2]

        def dead(s: str, key: Key) -> bool:
            """Site ``s`` decides nothing by its tombstone of ``key`` any more: it holds a
            row of that incarnation or of a newer one, or a newer tombstone."""
            row, tomb = here[s][key[0], key[1]]
            return row >= key[2] or tomb > key[2]
        routes: dict[tuple[str, str, str], list[str] | None] = {}

        def way(x: str, s: str, table: str) -> list[str] | None:
            if (x, s, table) not in routes:
                routes[x, s, table] = cfg.route(x, s, table)
            return routes[x, s, table]

        def spared(s: str, key: Key, holders: list[str]) -> bool:
            """Whether site ``s``, holding no tombstone of ``key``, never gets its delete:
            the way to it from each site that holds one passes a site where it ended."""
            stops = ended.get(key, set())
            for x in holders:
                path = way(x, s, key[0])
                if path is not None and not stops.intersection(path[:-1]):
                    return False
            return True

        def goes(key: Key) -> bool:
            holders = [x for x in sites if key in written[x]]
            for s in sites:
                if key not in written[s] and not newer(s, key) and not spared(s, key, holders):
                    return False
                for x in holders:
                    path = way(x, s, key[0]) if x != s else None
                    if path is None:
                        continue  # s never takes x's changes: nothing of x can come
                    if any(h not in sites for h in path) or not past(
                        path, written[x][key], stamps, moves
                    ):
                        return False
            return True

        gone = {key for key in set().union(*written.values()) if goes(key)}
        out = {}
        for name, (helper, conn) in sites.items():
            mine = [key for key in written[name] if key in gone or dead(name, key)]
            while True:
                # A tombstone taken for a row here alone (not gone everywhere) is needed
                # again if a delete of that row runs meanwhile: it writes the tombstone
                # anew (the delete's version, and what a later change of the incarnation is
                # decided by here; capture reads the delete's version from it too). The
                # purge's delete waits for such a writer; the rows are read again after it.
                held = [k for k in mine if k not in gone]
                check = _check(helper, _tables(helper, conn), name, held, here, local)
                lost = helper.purge_tombstones(conn, [local[name][k] for k in mine], check)
                if not lost:
                    break
                mine = [k for k in mine if local[name][k] not in lost]
            out[name] = len(mine)
        return out
    finally:
        for _h, conn in sites.values():
            close(conn)
