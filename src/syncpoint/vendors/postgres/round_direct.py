"""The direct path of a round, PostgreSQL to PostgreSQL: the window's change records go from
the capture location's queue to the target by ``COPY`` and are netted there, by SQL.

Each task (a Spark task, ``copy_ops``) streams one ``repl_key`` range of one window as
``COPY (SELECT ...) TO STDOUT (FORMAT binary)`` at the source into ``COPY {p}staging
FROM STDIN`` at the target and commits: the records already split into the operations
they mean and keyed by the source (``window/ops_out.sql``), nothing sorted at the source,
no row through Python or the JVM. Then ``net``, at the target in one transaction, checks
that the operations staged are exactly those the tasks wrote and deletes every operation
that a later one of its key supersedes: what is left are the round's net rows, where the
apply transaction reads them on every path. A repeated or partial task, or a second
consumer cleaning up, makes the counts differ and the round apply nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from syncpoint.errors import PositionConflict, WorkFailed
from syncpoint.vendors.integratebase import Integrate
from syncpoint.vendors.postgres.snapshot_direct import RangeCopy, copy_range
from syncpoint.vendors.sqlfiles import SqlFiles

ROWS_PER_TASK = 120_000  # records of one window a task copies, at most MAX_TASKS of them
MAX_TASKS = 4


@dataclass(frozen=True)
class OpsCopy:
    """One task's work: a window's repl_key range, out of the source and into the target."""

    tbl: int
    copy: RangeCopy = field(repr=False)


def ranges(lo: int, hi: int, count: int, slots: int) -> list[tuple[int, int]]:
    """Half-open repl_key ranges covering [lo, hi]: one per ``ROWS_PER_TASK`` records, at
    least one per Spark slot for a window that large, ``MAX_TASKS`` at most."""
    n = max(1, min(MAX_TASKS, -(-count // ROWS_PER_TASK)))
    if count >= slots * 1_000:
        n = max(n, min(slots, MAX_TASKS))
    width = -(-(hi + 1 - lo) // n)
    return [(a, min(a + width, hi + 1)) for a in range(lo, hi + 1, width)]


def copies(
    capture: Any,
    target: Integrate,
    read_sql: str,
    *,
    tbl: int,
    application: str,
    group: str,
    round_id: str,
    lo: int,
    hi: int,
    count: int,
    slots: int,
) -> list[OpsCopy]:
    """The tasks of one window (``read_sql``: the capture's ``read_query`` of it)."""
    out = SqlFiles("postgres", "window", comments=False)
    in_sql = target.one("ops_in")
    literals = {"application": application, "group": group, "round": round_id}
    jobs = []
    for a, b in ranges(lo, hi, count, slots):
        raw = {"query": read_sql, "tbl": str(int(tbl)), "lo": str(int(a)), "hi": str(int(b))}
        out_sql = out.one("ops_out", raw=raw, literals=literals)
        jobs.append(OpsCopy(tbl, RangeCopy(capture.url, target.url, out_sql, in_sql)))
    return jobs


def copy_ops(job: OpsCopy) -> tuple[int, int]:
    """Run in a Spark task: (window, operations the target took), committed."""
    staged, _ = copy_range(job.copy)
    return job.tbl, staged


def net(
    target: Integrate, conn: Any, application: str, group: str, round_id: str,
    written: dict[int, int],
) -> tuple[dict[int, int], dict[int, int]]:  # fmt: skip
    """Net the round's staged operations in ``{p}staging``, committed: (change records,
    net rows) per window. ``written``: the operations the tasks wrote, per window."""
    target.begin(conn)
    try:
        found, records = {}, {}
        for tbl, n, recs, keyless in target.run(conn, "ops_count", (round_id,)).fetchall():
            found[int(tbl)], records[int(tbl)] = int(n), int(recs)
            if keyless:
                raise WorkFailed("a change record lacks its key columns", table=None)
        want = {t: n for t, n in written.items() if n}
        if found != want:
            raise PositionConflict(
                f"the operations staged for round {round_id} are not those written ({found} "
                f"instead of {want}): another consumer of application {application} cleaned "
                "them up, or a task's copy was partial or repeated; this round applied nothing",
                location=target.location,
            )
        target.run(conn, "ops_net", (round_id,))
        staged = {
            int(t): int(n) for t, n in target.run(conn, "staging_count", (round_id,)).fetchall()
        }
        target.commit(conn)
    except BaseException:
        target.rollback(conn)
        raise
    return records, staged
