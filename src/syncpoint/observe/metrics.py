"""The Prometheus metrics of a channel, with the official ``prometheus-client`` library.

One ``Metrics`` object owns its own registry (several channels, or tests, in one process
never share series); every series carries the ``channel`` label, added when the registry
is collected (``_WithChannel``), so a metric added here needs nothing for it. It is fed
two ways:

- ``update(status)``: from a status document (``syncpoint status --json``'s): lag, backlog,
  stopped tables, queue sizes, gate states, receive stamp ages, warnings, conflicts, and
  which locations could be read;
- ``observe_round(round)`` / ``round_failed(...)``: from each round of
  ``run --follow --metrics-port`` as it commits or fails: changes read, rows applied, round
  durations, failed rounds.

A location that cannot be read does not make its tables' series vanish: they keep their
last known values (lag keeps growing, counted on the capture side from the last known
position where the capture location can still be read, else from the last read), and the
location's ``syncpoint_location_up`` is 0. Series of a table no longer in the channel go.
docs/operations.md lists every metric and example alert rules.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.metrics_core import Metric

import syncpoint

GATE_STATES = (
    "OperationalSysLoading",
    "OperationalSysLoaded",
    "WarehouseLoading",
    "WarehouseLoaded",
)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class _WithChannel:
    """Collects a registry's metrics with the ``channel`` label added to every sample."""

    def __init__(self, inner: CollectorRegistry, channel: str) -> None:
        self.inner, self.channel = inner, channel

    def collect(self) -> Iterator[Metric]:
        for fam in self.inner.collect():
            out = Metric(fam.name, fam.documentation, fam.type, fam.unit)
            for smp in fam.samples:
                labels = {"channel": self.channel, **smp.labels}
                out.add_sample(smp.name, labels, smp.value, smp.timestamp, smp.exemplar)
            yield out


class Metrics:
    """``exporter``: ``serve`` or ``follower``, in ``syncpoint_build_info`` (which process a
    scraped series comes from; both export the status series under the same names)."""

    def __init__(self, channel: str, exporter: str = "serve") -> None:
        self.channel = channel
        r = self.registry = CollectorRegistry(auto_describe=True)  # the metrics, unlabelled
        self.exposed = CollectorRegistry(auto_describe=False)  # ... with ``channel``: served
        self.exposed.register(_WithChannel(r, channel))  # type: ignore[arg-type]
        # per table, the last values read: kept while its location cannot be read
        self.tables: dict[tuple[str, str, str], dict[str, Any]] = {}
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
        self.log_retained = Gauge(
            "syncpoint_log_retained_bytes",
            "log (WAL, binlog) a log capture location holds back",
            ["location"],
            registry=r,
        )
        self.log_unread = Gauge(
            "syncpoint_log_unread_bytes",
            "log (WAL, binlog) written after a log capture location's read position",
            ["location"],
            registry=r,
        )
        self.log_age = Gauge(
            "syncpoint_log_retained_age_seconds",
            "time since a log capture location's read position last moved",
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
        self.up = Gauge(
            "syncpoint_status_up",
            "1 when the last status read could read every location",
            registry=r,
        )
        self.updated = Gauge(
            "syncpoint_status_timestamp_seconds", "when the status was last read", registry=r
        )
        self.location_up = Gauge(
            "syncpoint_location_up",
            "1 when the last status read could read the location",
            ["location"],
            registry=r,
        )
        self.location_read = Gauge(
            "syncpoint_location_last_read_timestamp_seconds",
            "when the location was last read successfully",
            ["location"],
            registry=r,
        )
        self.read_errors = Counter(
            "syncpoint_read_errors",
            "status reads in which the location could not be read",
            ["location"],
            registry=r,
        )
        self.follower = Gauge(
            "syncpoint_follower_running",
            "1 while a run --follow of this channel and application holds its lock",
            ["integrate"],
            registry=r,
        )
        self.build = Gauge(
            "syncpoint_build_info",
            "1, labelled with the version and which process exports",
            ["version", "exporter"],
            registry=r,
        )
        self.build.labels(syncpoint.__version__, exporter).set(1)
        grp = ("integrate", "group")
        self.rounds = Counter("syncpoint_rounds", "rounds committed", grp, registry=r)
        self.read = Counter("syncpoint_changes_read", "change records read", grp, registry=r)
        self.applied = Counter("syncpoint_changes_applied", "rows applied", grp, registry=r)
        self.failed = Counter(
            "syncpoint_rounds_failed",
            "rounds that failed (retried at the next poll)",
            grp,
            registry=r,
        )
        self.failing = Gauge(
            "syncpoint_rounds_failing",
            "1 while the group's latest round failed, 0 once one commits",
            grp,
            registry=r,
        )
        self.last_round = Gauge(
            "syncpoint_last_round_timestamp_seconds",
            "when the group's last round committed",
            grp,
            registry=r,
        )
        self.duration = Histogram(
            "syncpoint_round_duration_seconds",
            "time of one round, read to commit",
            grp,
            buckets=(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300),
            registry=r,
        )

    def declare(self, cfg: Any, rounds: bool) -> None:
        """Every counter of the channel's locations (and with ``rounds``, of its groups)
        exported at 0 from the start: ``increase()`` and ``rate()`` see a failure's first
        increment only against an earlier sample."""
        for loc in cfg.locations:
            self.read_errors.labels(loc)
        if not rounds:
            return
        for integ in cfg.integrate_locations():
            for g in cfg.groups():
                for c in (self.rounds, self.read, self.applied, self.failed):
                    c.labels(integ, g)
                self.failing.labels(integ, g).set(0)

    def observe_round(self, rnd: dict[str, Any]) -> None:
        labels = (rnd["integrate"], rnd["group"])
        self.failing.labels(*labels).set(0)
        self.rounds.labels(*labels).inc()
        self.read.labels(*labels).inc(int(rnd["changes"]))
        self.applied.labels(*labels).inc(int(rnd["applied"]))
        if rnd.get("seconds") is not None:
            self.duration.labels(*labels).observe(float(rnd["seconds"]))
        self.last_round.labels(*labels).set(time.time())

    def round_failed(self, integrate: str, group: str) -> None:
        self.failed.labels(integrate, group).inc()
        self.failing.labels(integrate, group).set(1)

    def read_failed(self, locations: list[str]) -> None:
        """A status read that failed as a whole: every location counts as unread."""
        self.up.set(0)
        for loc in locations:
            self.location_up.labels(loc).set(0)
            self.read_errors.labels(loc).inc()

    def update(self, status: dict[str, Any]) -> None:
        now = time.time()
        for g in (self.lag, self.backlog, self.position, self.stopped, self.queue):
            g.clear()
        self.log_retained.clear()
        self.log_unread.clear()
        self.log_age.clear()
        for g in (self.stamp_age, self.gate, self.gate_age, self.conflicts, self.warnings):
            g.clear()
        for loc, st in (status.get("capture") or {}).items():
            if "pending" in st:
                self.queue.labels(loc).set(st["pending"])
            log = st.get("log") or {}
            if log.get("retained_bytes") is not None:
                self.log_retained.labels(loc).set(log["retained_bytes"])
            if log.get("unread_bytes") is not None:
                self.log_unread.labels(loc).set(log["unread_bytes"])
            if log.get("age_seconds") is not None:
                self.log_age.labels(loc).set(log["age_seconds"])
        self._tables(status, now)
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
        for integ, f in (status.get("followers") or {}).items():
            if isinstance(f, dict) and "running" in f:
                self.follower.labels(integ).set(1 if f["running"] else 0)
        down = unreadable(status)
        for loc in readable_locations(status):
            self.location_up.labels(loc).set(0 if loc in down else 1)
            if loc in down:
                self.read_errors.labels(loc).inc()
            else:
                self.location_read.labels(loc).set(now)
        self.up.set(0 if status.get("error") or down else 1)
        self.updated.set(now)

    def _tables(self, status: dict[str, Any], now: float) -> None:
        """The per-table series: fresh values where the read counted them, else the last
        read's (kept as read; the lag exported grows with the time since)."""
        kept: dict[tuple[str, str, str], dict[str, Any]] = {}
        for integ, st in (status.get("integrate") or {}).items():
            rows = (st or {}).get("tables")
            if rows is None:  # the location could not be read and nothing was known of it
                kept.update({k: v for k, v in self.tables.items() if k[0] == integ})
                continue
            for t in rows:
                labels = (integ, t["location"], t["table"])
                last = self.tables.get(labels)
                if t.get("backlog") is None and last is not None:
                    kept[labels] = last  # not counted this time: the last read stands
                    continue
                kept[labels] = {
                    "position": t.get("position"),
                    "stopped": 1 if t.get("stopped") else 0,
                    "backlog": t.get("backlog"),
                    "lag": t.get("lag_seconds"),
                    "at": now,
                }
        self.tables = kept
        for labels, row in kept.items():
            lag = grown(row, now)
            if lag is not None:
                self.lag.labels(*labels).set(lag)
            if row["backlog"] is not None:
                self.backlog.labels(*labels).set(row["backlog"])
            if row["position"] is not None:
                self.position.labels(*labels).set(row["position"])
            self.stopped.labels(*labels).set(row["stopped"])

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
        return generate_latest(self.exposed)  # type: ignore[no-any-return]


def grown(last: dict[str, Any], now: float) -> float | None:
    """A lag read at ``last["at"]``, as it is ``now`` if nothing was applied since: it grows
    with the time, unless nothing was waiting."""
    if last.get("lag") is None:
        return None
    waiting = (last.get("backlog") or 0) > 0 or float(last["lag"]) > 0
    return float(last["lag"]) + (now - float(last["at"])) if waiting else float(last["lag"])


def unreadable(status: dict[str, Any]) -> set[str]:
    """The locations a status document could not read (whatever part found it)."""
    down: set[str] = set()
    for part in ("capture", "integrate"):
        for loc, st in (status.get(part) or {}).items():
            if isinstance(st, dict) and (st.get("error") or st.get("unreachable")):
                down.add(loc)
    return down


def readable_locations(status: dict[str, Any]) -> list[str]:
    """The locations a status document reports on."""
    names: dict[str, None] = {}
    for part in ("capture", "integrate"):
        names.update(dict.fromkeys(status.get(part) or {}))
    return list(names)


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
