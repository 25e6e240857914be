"""``syncpoint snapshot``: the initial load of a channel's tables into its integrate
locations, on Spark, while the applications keep writing, and the hand-over to rounds.

The hand-over (why no change is lost or applied twice)
------------------------------------------------------
Positions are commit-ordered ticks (``vendors/base.py``): a change record belongs to tick
T exactly when its transaction committed before T was made and after the tick before it.
Per (integrate location, capture location, table):

1. **t0.** A tick is made at the source and stored in ``{p}snapshots`` at the target
   (state ``copying``) before any row is read. Every transaction that committed before t0
   is visible to every read that starts after it; every one that commits later has its
   change records in ticks after t0.
2. **Copy.** Spark reads the table in chunks of the partition column (the key's first
   column, or ``snapshot_partition:``), each chunk in parallel JDBC ranges, with plain
   reads (MVCC on PostgreSQL and MariaDB, WAL readers on SQLite): no lock writers wait
   for. The chunks read at different moments, all after t0; a row may be read in any of
   its states from t0 on, or not at all when it was deleted before its chunk was read, or
   twice when a key update moved it into a later chunk. Each chunk is upserted by key into
   the target in one transaction with its progress record.
3. **Hand-over.** One target transaction sets the table's stream position to t0 and marks
   the snapshot ``done``. Rounds, which refuse a table until then, read the records after
   t0 and apply each key's *final* state (netting: an upsert of the last image, or a
   delete).

For any key, the copy wrote its state at some moment m with t0 <= m <= s, s being the
first round's sync point (sampled after the hand-over, so after every read). If the key's
state at s differs from its state at m, some transaction changed it after m, so after
t0: its record is in the round's window and the round writes the state at s (a row
deleted after being copied is deleted; a row inserted after its chunk was read is
inserted; a key moved is deleted under the old key and written under the new). If the
states agree, the round writes nothing for the key or writes the same state again. A row
copied twice (moved by a key update during the copy) is covered the same way: the old key
has a DELETE after t0. So the target equals the source at s, key by key: nothing is lost,
and nothing is applied twice, since applying a final state by key replaces the row.
Records at or before t0 are never read: their effect is in the rows the copy read.

Restart: a kill leaves each chunk either applied with its progress record or neither
(one transaction); the next ``snapshot`` resumes at the first chunk not recorded, with the
same t0 (still valid: every later read is still after t0). A changed capture stream (a
reinstall) starts over from a new tick. ``purge`` never deletes records after t0 meanwhile:
it keeps everything a consumer without a position for the table may need.

``--truncate`` empties each target table in the transaction of the first chunk copied
into it (or of the hand-over when the source table is empty), so the target is never seen
empty and then half full by another transaction; it starts the snapshot over.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from syncpoint.config import ChannelConfig, TableConfig
from syncpoint.ops.snapshot import plan
from syncpoint.ops.snapshot.state import SnapshotState


def snapshot(
    cfg: ChannelConfig,
    tables: list[str] | None = None,
    location: str | None = None,
    *,
    truncate: bool = False,
    restart: bool = False,
    spark: Any = None,
    on_progress: Callable[[SnapshotState], None] | None = None,
) -> dict[str, Any]:
    """Snapshot the tables asked for (all by default) from each capture location (or the one
    named) into every integrate location; tables already loaded are skipped unless
    ``restart`` or ``truncate``. Returns a report per integrate location."""
    from syncpoint.ops.snapshot.copy import TableCopy

    pairs = plan.check(cfg, plan.select(cfg, tables, location), *_catalogs(cfg))
    report: dict[str, Any] = {"tables": []}
    truncated: set[tuple[str, str]] = set()
    for pair in pairs:
        started = time.monotonic()
        copy = TableCopy(cfg, pair, spark)
        try:
            target = str(copy.steps._window(0, pair.location, pair.table, 0, 0, False, "").target)
            first = truncate and (pair.integrate, target) not in truncated
            truncated.add((pair.integrate, target))
            s = copy.begin(restart or truncate, first)
            row: dict[str, Any] = {
                "integrate": pair.integrate,
                "location": pair.location,
                "table": str(pair.table.ref),
                "target": target,
            }
            if s is None:
                report["tables"].append({**row, "state": "done", "skipped": True})
                continue
            copy.chunks(s, on_progress or (lambda _s: None))
            copy.hand_over(s)
            secs = time.monotonic() - started
            report["tables"].append(
                {
                    **row,
                    "state": "done",
                    "t0": s.t0,
                    "rows_copied": s.rows_copied,
                    "seconds": round(secs, 2),
                    "rows_per_second": round(s.rows_copied / secs, 1) if secs > 0 else None,
                }
            )
        finally:
            copy.close()
    return report


def _catalogs(cfg: ChannelConfig) -> tuple[Any, Any]:
    """Read-only catalog lookups for ``plan.check``: source shapes, target shapes."""
    from syncpoint.ops.round import target_name
    from syncpoint.vendors import capture_for
    from syncpoint.vendors.integratebase import integrate_for

    def describe(loc: str, ref: Any) -> Any:
        url = cfg.locations[loc].url.get_secret_value()
        cap = capture_for(loc, url, cfg.prefix)
        conn = cap.connect()
        try:
            return cap.describe(conn, ref)
        finally:
            conn.close()

    def target_shape(integ: str, loc: str, t: TableConfig) -> tuple[Any, str]:
        url = cfg.locations[integ].url.get_secret_value()
        tgt = integrate_for(integ, url, cfg.prefix)
        name, explicit = target_name(t, loc)
        ref = tgt.resolve(name, explicit, cfg.locations[loc].vendor)
        conn = tgt.connect()
        try:
            return tgt.describe(conn, ref), tgt.vendor
        finally:
            conn.close()

    return describe, target_shape


__all__ = ["SnapshotState", "snapshot"]
