"""``syncpoint snapshot``: the initial load of a channel's tables into its integrate
locations, on Spark, while the applications keep writing, and the hand-over to rounds.

A tick t0 is stored before any row is read; chunks of the partition column are copied and
upserted by key, the target rows of each chunk's range the chunk did not copy deleted,
each with its progress record in one transaction (where the target has
no row of the chunk's range, the direct path's tasks write it and the record follows);
one transaction sets the table's position to t0 and marks the snapshot done. Why no change
is lost or applied twice, restarts and ``--truncate``: docs/internals.md, "Snapshot: the
hand-over".

A table that cannot be loaded (its work fails: a value its target cannot hold, a refused
statement) does not stop the others: each is tried, and then ``SnapshotIncomplete`` says
which were loaded and which failed, and why (a later ``snapshot`` skips the loaded ones).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from syncpoint.config import ChannelConfig
from syncpoint.errors import WorkFailed
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
    integrate location; raises ``SnapshotIncomplete`` (with the report) when a table could
    not be loaded (the other groups are still loaded)."""
    from syncpoint.ops.snapshot.copy import Links

    with plan.CatalogReads(cfg) as reads:
        asked = plan.select(cfg, tables, location)
        reads.prefetch(asked)
        pairs = plan.check(cfg, asked, reads.describe, reads.target_shape)
    with Links(cfg, spark) as links:
        report = _groups(cfg, pairs, links, truncate, restart, on_progress)
    if any(r["state"] == "failed" for r in report["tables"]):
        raise SnapshotIncomplete(report)
    return report


def _groups(
    cfg: ChannelConfig,
    pairs: list[plan.Pair],
    links: Any,
    truncate: bool,
    restart: bool,
    on_progress: Callable[[SnapshotState], None] | None,
) -> dict[str, Any]:
    """Each sync group copied and handed over in turn, over the run's connections."""
    from syncpoint.ops.snapshot.group import GroupCopy

    report: dict[str, Any] = {"tables": []}
    truncated: set[tuple[str, str]] = set()
    for members in plan.by_group(cfg, pairs):
        rows: list[tuple[dict[str, Any], Any, float]] = []
        try:
            with GroupCopy(cfg, members, links.spark, links) as group:
                if truncate:
                    group.empty(
                        [
                            c
                            for c in group.ordered()
                            if (c.pair.integrate, str(c.target_ref)) not in truncated
                        ]
                    )
                for copy in group.ordered():
                    started = time.monotonic()
                    pair = copy.pair
                    target = str(copy.target_ref)
                    first = truncate and (pair.integrate, target) not in truncated
                    truncated.add((pair.integrate, target))
                    s = copy.begin(
                        restart or truncate, first, group.tick, resume=len(members) == 1
                    )
                    row: dict[str, Any] = {
                        "integrate": pair.integrate,
                        "location": pair.location,
                        "table": str(pair.table.ref),
                        "target": target,
                    }
                    if s is None:
                        report["tables"].append({**row, "state": "done", "skipped": True})
                        continue
                    if not copy.on_driver(s):
                        # Spark's start-up is not copy time: the rate says what the copy did
                        copy.steps.spark()
                        started = time.monotonic()
                    copy.chunks(s, on_progress or (lambda _s: None))
                    group.copied(copy, s)
                    rows.append((row, s, time.monotonic() - started))
                group.hand_over()
        except WorkFailed as exc:  # the next groups are still loaded; these are named
            report["tables"] += [_failed(pair, exc) for pair in members]
            continue
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


def _failed(pair: Any, exc: WorkFailed) -> dict[str, Any]:
    return {
        "integrate": pair.integrate,
        "location": pair.location,
        "table": str(pair.table.ref),
        "state": "failed",
        "error": str(exc),
    }


class SnapshotIncomplete(WorkFailed):
    """Some tables could not be loaded; ``report`` says which were and which failed."""

    code = "snapshot_incomplete"

    def __init__(self, report: dict[str, Any]):
        self.report = report
        lines = [
            f"  {'failed' if r['state'] == 'failed' else 'loaded'}: {r['table']} from "
            f"{r['location']} into {r['integrate']}" + (f": {r['error']}" if "error" in r else "")
            for r in report["tables"]
        ]
        failed = sum(r["state"] == "failed" for r in report["tables"])
        super().__init__(
            f"{failed} of {len(lines)} tables could not be loaded (the others were; a later "
            "snapshot skips the loaded ones):\n" + "\n".join(lines)
        )

    def to_dict(self) -> dict[str, object]:
        d = super().to_dict()
        d["report"] = self.report
        return d


__all__ = ["SnapshotIncomplete", "SnapshotState", "snapshot"]
