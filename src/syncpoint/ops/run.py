"""``run``: rounds to fresh sync points, once or following, then the receive stamps.

``run --once`` replays a stored sync point not yet reached, then runs one round to a new
one, per integrate location and sync group; ``run --follow`` repeats that every
``interval`` seconds until a signal. Receive stamps are written after the positions they
rely on (``stamps.py``). Details: docs/internals.md, "run, follow and purge".
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from syncpoint.config import ChannelConfig, TableConfig
from syncpoint.core.rounds import RoundResult, run_round
from syncpoint.errors import SyncpointError, TableStopped, TransientError, UsageError
from syncpoint.observe.logtext import said
from syncpoint.ops.round import GroupRound
from syncpoint.ops.stamps import record_stamps

log = logging.getLogger("syncpoint.run")
STOPPED_RETRY_S = 60.0
KEEP_ROUNDS = 100

# Called with each round's description as soon as it commits (progress lines, metrics).
ROUND_LISTENERS: list[Callable[[dict[str, Any]], None]] = []
# Called with ``{"integrate", "group", "error"}`` when a follower's round fails (metrics).
FAILURE_LISTENERS: list[Callable[[dict[str, Any]], None]] = []


@contextmanager
def listening(
    fn: Callable[[dict[str, Any]], None],
    failed: Callable[[dict[str, Any]], None] | None = None,
) -> Iterator[None]:
    """Call ``fn(round)`` for every round run in this block (``run`` progress, metrics),
    and ``failed(failure)`` for every failed round of a follower."""
    ROUND_LISTENERS.append(fn)
    if failed is not None:
        FAILURE_LISTENERS.append(failed)
    try:
        yield
    finally:
        ROUND_LISTENERS.remove(fn)
        if failed is not None:
            FAILURE_LISTENERS.remove(failed)


@dataclass
class RunReport:
    rounds: list[dict[str, Any]] = field(default_factory=list)
    stopped: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    transport: list[dict[str, Any]] = field(default_factory=list)

    @property
    def changes(self) -> int:
        return sum(int(r["changes"]) for r in self.rounds)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "changes": self.changes,
            "stopped": self.stopped,
            "errors": self.errors,
            "transport": self.transport,
            "spark_master": _spark_master(),
        }


def _spark_master() -> str | None:
    """Where the rounds ran (under spark-submit: the launcher's master)."""
    import sys

    session = sys.modules.get("syncpoint.spark.session")  # never start Spark to say so
    return session.active_master() if session is not None else None


def _groups(cfg: ChannelConfig, only: str | None) -> dict[str, list[TableConfig]]:
    groups = cfg.groups()
    if only is None:
        return groups
    if only not in groups:
        raise UsageError(f"--group {only}: no such sync group (have: {', '.join(groups)})")
    return {only: groups[only]}


def _describe(result: RoundResult) -> dict[str, Any]:
    p = result.plan
    return {
        "integrate": p.integrate,
        "group": p.group,
        "round_id": p.round_id,
        "changes": result.changes,
        "applied": sum(result.staged.values()),
        "engine": result.engine,
        "staging": p.staging,
        "direct": p.direct,
        # the targets whose rows reached the apply already in their types (the direct path)
        "typed": sorted({str(w.target) for w in p.windows if w.tbl in p.typed}),
        # the targets staged as JSON text on such a path instead, with the reason
        "untyped": dict(sorted(p.untyped.items())),
        "sync_points": {k: sp.context for k, sp in p.sync_points.items()},
        "tables": [
            {
                "location": w.location,
                "table": w.table,
                "target": str(w.target),
                "from": w.after,
                "to": w.upto,
                "changes": result.read.get(w.tbl, 0),
            }
            for w in p.windows
        ],
        "stopped": [s.__dict__ for s in p.stops],
    }


def run_group(
    cfg: ChannelConfig,
    integrate: str,
    group: str,
    tables: list[TableConfig],
    report: RunReport,
    spark: Any = None,
    fresh: bool = True,
) -> bool:
    """Rounds of one group until its sync point is reached (a replay first, then one
    fresh round when ``fresh``). True when the group reached a sync point unstopped."""
    steps = GroupRound(cfg, integrate, group, tables, spark)
    try:
        for _ in range(3):  # a replay of a stored sync point, then a fresh one
            t0 = time.monotonic()
            result = run_round(steps)
            if result is not None:
                described = _describe(result)
                described["seconds"] = round(time.monotonic() - t0, 3)
                report.rounds.append(described)
                for listener in list(ROUND_LISTENERS):
                    listener(described)
                if result.plan.stops:
                    report.stopped += [
                        {"integrate": integrate, "group": group, **s.__dict__}
                        for s in result.plan.stops
                    ]
                    return False
            if steps.fresh or not fresh:
                return True
        return True
    finally:
        steps.close()


def run_once(
    cfg: ChannelConfig,
    group: str | None = None,
    spark: Any = None,
    should_stop: Callable[[], bool] = lambda: False,
) -> RunReport:
    report = RunReport()
    groups = _groups(cfg, group)
    for integ in cfg.integrate_locations():
        reached: dict[str, bool] = {}
        for g, tables in groups.items():
            if should_stop():
                return report
            try:
                reached[g] = run_group(cfg, integ, g, tables, report, spark)
            except TableStopped as exc:
                report.stopped.append({"integrate": integ, "group": g, "reason": str(exc)})
                reached[g] = False
        if groups and groups == cfg.groups() and all(reached.values()):
            record_stamps(cfg, integ)
    return report


def run(
    cfg: ChannelConfig,
    *,
    once: bool = True,
    follow: bool = False,
    interval: float = 1.0,
    group: str | None = None,
    spark: Any = None,
    on_report: Callable[[RunReport], None] | None = None,
    after_pass: Callable[[RunReport], None] | None = None,
) -> RunReport:
    """``after_pass`` runs after each pass over every group (once, or each poll of
    ``follow``); ``Channel.run`` uses it to load transport tables through their gate."""
    if not follow:
        report = run_once(cfg, group, spark)
        if after_pass is not None:
            after_pass(report)
        if report.stopped:
            raise TableStopped(_stopped_text(report))
        return report
    from syncpoint.ops.follower import holding
    from syncpoint.vendors.kept import kept

    total = RunReport()
    # a log is read by one session kept open across the polls (where the vendor has one)
    with holding(cfg) as keep, _signals() as stopping, kept():
        retry_at: dict[str, float] = {}
        stop_said: dict[str, str] = {}  # the stop last logged, per integrate location and group
        while not stopping.is_set():
            started = time.monotonic()
            keep()  # still the one follower (a restarted server ended the lock's session)
            ticked: set[str] = set()
            for integ in cfg.integrate_locations():
                for g, tables in _groups(cfg, group).items():
                    if stopping.is_set() or retry_at.get(f"{integ}/{g}", 0) > time.monotonic():
                        continue
                    report = RunReport()
                    key = f"{integ}: group {g}: rounds"
                    try:
                        run_group(cfg, integ, g, tables, report, spark)
                    except TransientError as exc:
                        said.warning(log, key, f"{exc}; retried at each poll")
                        report.errors.append(str(exc))
                    except TableStopped as exc:
                        report.stopped.append({"integrate": integ, "group": g, "reason": str(exc)})
                    else:
                        said.over(log, key, "commit again")
                        ticked |= _sources(cfg, integ, tables)
                    for text in report.errors:
                        for listener in list(FAILURE_LISTENERS):
                            listener({"integrate": integ, "group": g, "error": text})
                    key = f"{integ}/{g}"
                    if report.stopped:
                        retry_at[key] = time.monotonic() + STOPPED_RETRY_S
                        text = _stopped_text(report)
                        # said once: the same refusal found again at each retry is news to
                        # nobody (status, the metrics and the page keep showing it)
                        if stop_said.get(key) != text:
                            log.error("%s", text)
                        stop_said[key] = text
                    elif key in stop_said and (report.rounds or not report.errors):
                        del stop_said[key]
                        log.warning("%s: group %s goes on: its stopped tables resumed", integ, g)
                    # a follower runs for days: keep the latest rounds only
                    total.rounds = (total.rounds + report.rounds)[-KEEP_ROUNDS:]
                    total.stopped = (total.stopped + report.stopped)[-KEEP_ROUNDS:]
                    total.errors = (total.errors + report.errors)[-KEEP_ROUNDS:]
                    if on_report and (report.rounds or report.stopped):
                        on_report(report)
                if not stopping.is_set() and group is None and cfg.tables:
                    try:
                        record_stamps(cfg, integ)
                    except TransientError as exc:
                        said.warning(log, f"{integ}: receive stamps", str(exc))
                    else:
                        said.over(log, f"{integ}: receive stamps", "written again")
            if not stopping.is_set():
                drain_logs(cfg, _log_sources(cfg) - ticked)
            if after_pass is not None and not stopping.is_set():
                after_pass(total)
            stopping.wait(_pause(interval, time.monotonic() - started))
    return total


def _pause(interval: float, took: float) -> float:
    """The wait before the next pass: passes start ``interval`` apart (a change waits half
    an interval for its pass on average, not half an interval plus half a pass); one that
    took longer is followed by a tenth of the interval, so that a slow server is not polled
    without a break."""
    return max(interval - took, interval / 10)


def _sources(cfg: ChannelConfig, integ: str, tables: list[TableConfig]) -> set[str]:
    """The capture locations of a group's tables: a round of the group ticked each."""
    names = {str(t.ref) for t in tables}
    return {
        loc for loc in cfg.sources_of(integ) if any(str(t.ref) in names for t in cfg.tables_at(loc))
    }


def _log_sources(cfg: ChannelConfig) -> set[str]:
    return {loc for loc in cfg.capture_locations() if cfg.locations[loc].capture_kind == "log"}


def drain_logs(cfg: ChannelConfig, locations: set[str]) -> None:
    """Read the log of each log-captured location that no round ticked in this pass (every
    round of it failed, its tables are stopped) into its queue, by a tick: the queue, so the
    backlog and lag that status counts from it, keep up with the writers through a target's
    outage, and the server's log is not held back for the length of it."""
    from syncpoint.ops.location import Location, close

    for loc in sorted(locations):
        cap = Location.of(cfg, loc).capture_side
        conn = None
        try:
            conn = cap.connect()
            cap.tick(conn)
        except SyncpointError as exc:
            said.warning(log, f"{loc}: reading its log", str(exc))
        else:
            said.over(log, f"{loc}: reading its log", "works again")
        finally:
            close(conn)


def _stopped_text(report: RunReport) -> str:
    parts = [str(s.get("reason")) for s in report.stopped]
    return "rounds stopped: " + " | ".join(parts)


@contextmanager
def _signals() -> Iterator[threading.Event]:
    """SIGTERM/SIGINT: the first finishes the current round, the second abandons it."""
    stopping = threading.Event()

    def handler(signum: int, frame: Any) -> None:
        if stopping.is_set():
            raise KeyboardInterrupt
        log.warning("signal %s: finishing the current round, then stopping", signum)
        stopping.set()

    old = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield stopping
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def now() -> datetime:
    return datetime.now(UTC)


__all__ = ["RunReport", "SyncpointError", "run", "run_once"]
