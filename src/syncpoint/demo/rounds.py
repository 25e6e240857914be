"""Steps 4 to 7: Spark, an opening round, rounds while live writers change both sources, and
a last round after they stop.

Rounds are driven exactly as ``syncpoint run --once`` drives them (``Channel.run``), again
and again while the writers run; each round is reported as it is applied. After every run
the target is searched for orphan rows (an order without its customer, a line without its
order): the sync group's consistent cut says there is never one.

The opening round (a few customers per site, before the writers start) creates cen's
tables and warms Spark's JVM: its first round is several times slower than the next ones.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from typing import Any

from syncpoint.demo import shop
from syncpoint.demo.state import DemoState
from syncpoint.demo.writers import Writer
from syncpoint.errors import WorkFailed

PAUSE_S = 0.3  # between runs while the writers work: rounds follow closely, not in a spin
OPENING_CUSTOMERS = 4


def start_spark(state: DemoState) -> None:
    """Start the SparkSession of the channel's ``spark:`` settings. The JVM's own output goes
    to ``spark.log`` in the demo's folder, not between the demo's lines."""
    from syncpoint.ops.session import get_session

    state.note(
        f"starting Spark ({state.spark_master}): about 10 s on an idle machine, more on a busy one"
    )
    log = state.workdir / "spark.log"
    t0 = time.monotonic()
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    saved = os.dup(2)
    sys.stderr.flush()
    os.dup2(fd, 2)  # inherited by the JVM that pyspark launches now
    try:
        session = get_session(state.ch.cfg.spark)
    except Exception as exc:
        raise WorkFailed(
            f"Spark did not start: {_first_error(log) or exc} (Spark's log: {log}, "
            "kept with --keep DIR; check --spark-master and that Java 17 is installed)"
        ) from exc
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)
    state.results["spark"] = {
        "master": session.sparkContext.master,
        "version": session.version,
        "start_seconds": round(time.monotonic() - t0, 1),
        "log": str(log),
    }
    state.event("spark", **state.results["spark"])


def _first_error(log: Any) -> str | None:
    """The JVM's first exception line in its log (the stack trace below it says less)."""
    for line in log.read_text(errors="replace").splitlines():
        if "Exception" in line or "Error:" in line:
            return line.strip()
    return None


def _round(
    state: DemoState, r: dict[str, Any], phase: str, seconds: float | None, at_start: dict[str, int]
) -> None:
    per: dict[str, int] = {}
    for t in r["tables"]:
        per[t["location"]] = per.get(t["location"], 0) + int(t["changes"])
    done = state.results.setdefault("rounds", [])
    row = {
        "round": len(done) + 1,
        "phase": phase,
        "integrate": r["integrate"],
        "group": r["group"],
        "changes": r["changes"],
        "changes_per_location": per,
        "rows_applied": r["applied"],
        "sync_points": r["sync_points"],
        "stopped": r["stopped"],
        "seconds": seconds,
        "writers_committed_at_start": at_start,  # when the run began (and sampled)
    }
    done.append(row)
    state.event("round", **row)


def _orphans(state: DemoState) -> int:
    """Orphan rows in the target now (0 before its tables exist)."""
    conn = sqlite3.connect(f"file:{state.path(shop.TARGET)}?mode=ro", uri=True, timeout=30)
    try:
        have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not set(shop.TABLES) <= have:
            return 0
        return sum(conn.execute(q).fetchone()[0] for q in shop.ORPHANS.values())
    finally:
        conn.close()


def _run_once(state: DemoState, phase: str) -> dict[str, Any]:
    at_start = {w.location: w.committed for w in state.writers}
    t0 = time.monotonic()
    rounds = state.ch.run(once=True).to_dict()["rounds"]
    seconds = round(time.monotonic() - t0, 2)
    for r in rounds:
        _round(state, r, phase, seconds if len(rounds) == 1 else None, at_start)
    if not rounds:
        state.event("idle", phase=phase, seconds=seconds)
    return {"seconds": seconds, "rounds": len(rounds), "orphans": _orphans(state)}


def opening_round(state: DemoState) -> None:
    """A few customers at each site, then ``run --once``: cen's tables are created."""
    state.writers = [
        Writer(loc, state.path(loc), state.seconds, seed=i + 1)
        for i, loc in enumerate(shop.LOCATIONS)
    ]
    for w in state.writers:
        w.opening(OPENING_CUSTOMERS)
    state.note(
        f"{OPENING_CUSTOMERS} customers at each site, then run --once: the first round "
        "creates cen's tables and warms Spark up (the slowest round, often 10 s or more)"
    )
    state.results["opening_run"] = _run_once(state, "opening")


def live_rounds(state: DemoState) -> None:
    """Writers at both sources for ``seconds`` while ``run --once`` runs again and again."""
    writers = state.writers
    state.note(
        f"writers change dec01 and dec02 for {state.seconds:g} s; meanwhile run --once runs "
        "again and again, each line below is one round committed at cen"
    )
    runs: list[dict[str, Any]] = []
    for w in writers:
        w.start()
    try:
        time.sleep(min(1.0, state.seconds / 3))  # let the first live round find some work
        while any(w.is_alive() for w in writers):
            runs.append(_run_once(state, "while writing"))
            time.sleep(PAUSE_S)
    finally:
        for w in writers:
            w.join()
    summary = {w.location: w.summary() for w in writers}
    state.results["writers"] = summary
    state.results["runs_while_writing"] = runs
    state.event("writers", writers=summary)
    for w in writers:
        state.check(
            f"writer {w.location} ran",
            w.error is None and w.committed > 0,
            w.error or f"{w.committed} transactions committed, {w.rolled_back} rolled back",
        )
    seen = max((r["orphans"] for r in runs), default=0)
    state.check(
        "no orphan rows at cen after any run while writing",
        seen == 0,
        f"searched after each of {len(runs)} runs: {seen} orphans at most",
    )


def final_round(state: DemoState) -> None:
    """The writers have stopped: one more ``run --once`` brings every table to a sync point
    taken after their last commit."""
    state.results["final_run"] = _run_once(state, "final")
