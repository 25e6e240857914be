"""``syncpoint snapshot``: the initial load of a channel's tables into its integrate
locations, on Spark, while the applications keep writing, and the hand-over to rounds.

A tick t0 is stored before any row is read; chunks of the partition column are copied and
upserted by key, each with its progress record in one transaction (where the target has
no row of the chunk's range, the direct path's tasks write it and the record follows);
one transaction sets the table's position to t0 and marks the snapshot done. Why no change
is lost or applied twice, restarts and ``--truncate``: docs/internals.md, "Snapshot: the
hand-over".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from syncpoint.config import ChannelConfig
from syncpoint.ops.snapshot import plan
from syncpoint.ops.snapshot_state import SnapshotState


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
    ``restart`` or ``truncate``. The tables of one sync group (per integrate and capture
    location) share one tick and, where the vendor has one, one source state; they are
    copied parents first and handed over in one transaction. Returns a report per
    integrate location."""
    from syncpoint.ops.snapshot.group import GroupCopy

    pairs = plan.check(cfg, plan.select(cfg, tables, location), *plan.catalogs(cfg))
    report: dict[str, Any] = {"tables": []}
    truncated: set[tuple[str, str]] = set()
    for members in plan.by_group(cfg, pairs):
        with GroupCopy(cfg, members, spark) as group:
            rows = []
            for copy in group.ordered():
                started = time.monotonic()
                pair = copy.pair
                target = str(copy.target_ref)
                first = truncate and (pair.integrate, target) not in truncated
                truncated.add((pair.integrate, target))
                s = copy.begin(restart or truncate, first, group.tick, resume=len(members) == 1)
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
                group.copied(copy, s)
                rows.append((row, s, time.monotonic() - started))
            group.hand_over()
            for row, s, secs in rows:
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
    return report


__all__ = ["SnapshotState", "snapshot"]
