"""The Prometheus metrics of a channel, with the official ``prometheus-client`` library.

One ``Metrics`` object owns its own registry (several channels, or tests, in one process
never share series). It is fed two ways:

- ``update(status)``: from a status document (``syncpoint status --json``'s): lag, backlog,
  stopped tables, queue sizes, gate states, receive stamp ages, warnings, conflicts;
- ``observe_round(round)``: from each round as it commits (``run --follow --metrics-port``):
  changes read, rows applied, round durations.

Gauges of things that can disappear (a table removed from the channel) are cleared at each
update, so a series never outlives what it measures.
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

GATE_STATES = (
    "OperationalSysLoading",
    "OperationalSysLoaded",
    "WarehouseLoading",
    "WarehouseLoaded",
)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class Metrics:
    def __init__(self, channel: str) -> None:
        self.channel = channel
        r = self.registry = CollectorRegistry(auto_describe=True)
        tbl = ("integrate", "location", "table")
        self.lag = Gauge(
            "syncpoint_lag_seconds", "age of the oldest unapplied change", tbl, registry=r
        )
        self.backlog = Gauge(
            "syncpoint_backlog_changes",
            "change records committed, not yet applied",
            tbl,
            registry=r,
        )
        self.position = Gauge("syncpoint_position", "last applied stream position", tbl, registry=r)
        self.stopped = Gauge(
            "syncpoint_table_stopped", "1 when the table's rounds are stopped", tbl, registry=r
        )
        self.queue = Gauge(
            "syncpoint_queue_changes",
            "change records in a capture location's queue",
            ["location"],
            registry=r,
        )
        self.stamp_age = Gauge(
            "syncpoint_receive_stamp_age_seconds",
            "age of the time up to which a capture location is guaranteed integrated",
            ["integrate", "location"],
            registry=r,
        )
        self.gate = Gauge(
            "syncpoint_gate_state",
            "1 for the gate's current state",
            ["location", "gate", "state"],
            registry=r,
        )
        self.gate_age = Gauge(
            "syncpoint_gate_state_age_seconds",
            "time in the current state",
            ["location", "gate"],
            registry=r,
        )
        self.conflicts = Gauge(
            "syncpoint_conflicts",
            "conflicts recorded at an integrate location",
            ["integrate"],
            registry=r,
        )
        self.tombstones = Gauge(
            "syncpoint_tombstones",
            "tombstones held at a site under conflict resolution (purge takes them away)",
            ["integrate"],
            registry=r,
        )
        self.tombstone_age = Gauge(
            "syncpoint_tombstone_oldest_age_seconds",
            "age of the oldest tombstone held at a site",
            ["integrate"],
            registry=r,
        )
        self.warnings = Gauge("syncpoint_warnings", "status warnings by kind", ["kind"], registry=r)
        self.up = Gauge("syncpoint_status_up", "1 when the last status read worked", registry=r)
        self.updated = Gauge(
            "syncpoint_status_timestamp_seconds", "when the status was last read", registry=r
        )
        grp = ("integrate", "group")
        self.rounds = Counter("syncpoint_rounds", "rounds committed", grp, registry=r)
        self.read = Counter("syncpoint_changes_read", "change records read", grp, registry=r)
        self.applied = Counter("syncpoint_changes_applied", "rows applied", grp, registry=r)
        self.duration = Histogram(
            "syncpoint_round_duration_seconds",
            "time of one round, read to commit",
            grp,
            buckets=(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300),
            registry=r,
        )

    def observe_round(self, rnd: dict[str, Any]) -> None:
        labels = (rnd["integrate"], rnd["group"])
        self.rounds.labels(*labels).inc()
        self.read.labels(*labels).inc(int(rnd["changes"]))
        self.applied.labels(*labels).inc(int(rnd["applied"]))
        if rnd.get("seconds") is not None:
            self.duration.labels(*labels).observe(float(rnd["seconds"]))

    def update(self, status: dict[str, Any]) -> None:
        for g in (self.lag, self.backlog, self.position, self.stopped, self.queue):
            g.clear()
        for g in (self.stamp_age, self.gate, self.gate_age, self.conflicts, self.warnings):
            g.clear()
        for loc, st in (status.get("capture") or {}).items():
            if "pending" in st:
                self.queue.labels(loc).set(st["pending"])
        for integ, st in (status.get("integrate") or {}).items():
            for t in st.get("tables", []):
                labels = (integ, t["location"], t["table"])
                if t.get("lag_seconds") is not None:
                    self.lag.labels(*labels).set(t["lag_seconds"])
                if t.get("backlog") is not None:
                    self.backlog.labels(*labels).set(t["backlog"])
                if t.get("position") is not None:
                    self.position.labels(*labels).set(t["position"])
                self.stopped.labels(*labels).set(1 if t.get("stopped") else 0)
        for integ, st in (status.get("receive_stamps") or {}).items():
            for loc, s in ((st or {}).get("locations") or {}).items():
                if s.get("age_seconds") is not None:
                    self.stamp_age.labels(integ, loc).set(s["age_seconds"])
        for loc, gates in (status.get("gates") or {}).items():
            for g in gates if isinstance(gates, list) else []:
                for state in GATE_STATES:
                    self.gate.labels(loc, g["gate"], state).set(1 if g["state"] == state else 0)
                if g.get("age_s") is not None:
                    self.gate_age.labels(loc, g["gate"]).set(g["age_s"])
        for integ, n in conflict_counts(status).items():
            self.conflicts.labels(integ).set(n)
        self._tombstones(status)
        kinds: dict[str, int] = {}
        for w in status.get("warnings", []):
            kinds[w["kind"]] = kinds.get(w["kind"], 0) + 1
        for kind, n in kinds.items():
            self.warnings.labels(kind).set(n)
        self.up.set(0 if status.get("error") else 1)
        self.updated.set(time.time())

    def _tombstones(self, status: dict[str, Any]) -> None:
        self.tombstones.clear()
        self.tombstone_age.clear()
        for integ, st in (status.get("conflicts") or {}).items():
            tombs = st.get("tombstones") if isinstance(st, dict) else None
            if not isinstance(tombs, dict):
                continue
            self.tombstones.labels(integ).set(tombs["count"])
            if tombs.get("oldest_age_seconds") is not None:
                self.tombstone_age.labels(integ).set(tombs["oldest_age_seconds"])

    def render(self) -> bytes:
        return generate_latest(self.registry)


def conflict_counts(status: dict[str, Any]) -> dict[str, int]:
    """Conflicts per integrate location, where the status document reports them."""
    out: dict[str, int] = {}
    for integ, st in (status.get("conflicts") or {}).items():
        if isinstance(st, dict) and "total" in st:
            out[integ] = int(st["total"])
        elif isinstance(st, dict) and isinstance(st.get("recent"), list):
            out[integ] = len(st["recent"])
        elif isinstance(st, list):
            out[integ] = len(st)
    return out
