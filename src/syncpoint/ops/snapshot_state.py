"""The snapshot state of each (application, capture location, table) at an integrate
location: ``{p}snapshots`` (SQL in each vendor's ``sql/integrate/snapshot_*.sql``).

``copying``: the copy started after tick ``t0``; ``next_lo`` is the partition value the next
chunk starts at (None: every chunk is in). ``done``: the table's position was set to ``t0``
in the transaction that wrote ``done``; rounds go on from there.

Rounds wait for snapshots (``refuse_unloaded``): ``run`` refuses a table (exit 1, with what
to do) whose existing rows were never loaded, unless its entry says ``snapshot: none`` (a
table that starts empty). A table is loaded when its snapshot is ``done`` at that integrate
location, or when it already has a stream position there without any snapshot record
(rounds began before snapshots existed: nothing changes for it). A snapshot still copying
always refuses: its hand-over sets the position the rounds must start from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from syncpoint.config import TableConfig
from syncpoint.core.positions import INITIAL
from syncpoint.errors import TableStopped
from syncpoint.vendors.integratebase import Integrate


@dataclass
class SnapshotState:
    location: str
    table: str
    state: str
    t0: int
    stream_id: str
    lo: int | None
    hi: int | None
    next_lo: int | None
    step: int | None
    rows_copied: int
    rows_estimated: int
    truncate_pending: bool
    started_at: datetime | None = None
    updated_at: datetime | None = None
    finished_at: datetime | None = None

    @property
    def done(self) -> bool:
        return self.state == "done"

    @property
    def estimate(self) -> int:
        """The rows estimated, never fewer than those copied (rows inserted while the copy
        runs, on a vendor whose copy reads several moments, are copied beyond the count)."""
        return max(self.rows_estimated, self.rows_copied)

    def progress(self) -> dict[str, Any]:
        """Rows copied, rows estimated and the rate, as ``status`` shows them."""
        rate = None
        if self.started_at and self.updated_at and self.rows_copied:
            secs = (self.updated_at - self.started_at).total_seconds()
            rate = round(self.rows_copied / secs, 1) if secs > 0 else None
        return {
            "location": self.location,
            "table": self.table,
            "state": self.state,
            "t0": self.t0,
            "rows_copied": self.rows_copied,
            "rows_estimated": self.estimate,
            "rows_per_second": rate,
            "started_at": self.started_at,
            "updated_at": self.updated_at,
            "finished_at": self.finished_at,
        }


def _int(v: Any) -> int | None:
    return None if v is None else int(v)


def _time(target: Integrate, v: Any) -> datetime | None:
    t = target.dialect_time(v)
    if isinstance(t, datetime) and t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return t if isinstance(t, datetime) else None


def ensure(target: Integrate, conn: Any) -> None:
    target.begin(conn)
    target.run(conn, "snapshot_create")
    target.commit(conn)


def read(target: Integrate, conn: Any, application: str) -> dict[tuple[str, str], SnapshotState]:
    rows = target.run(conn, "snapshot_get", (application,)).fetchall()
    target.end_read(conn)
    out = {}
    for r in rows:
        s = SnapshotState(
            str(r[0]),
            str(r[1]),
            str(r[2]),
            int(r[3]),
            str(r[4]),
            _int(r[5]),
            _int(r[6]),
            _int(r[7]),
            _int(r[8]),
            int(r[9]),
            int(r[10]),
            bool(r[11]),
            _time(target, r[12]),
            _time(target, r[13]),
            _time(target, r[14]),
        )
        out[(s.location, s.table)] = s
    return out


def start(target: Integrate, conn: Any, application: str, s: SnapshotState) -> None:
    target.begin(conn)
    target.run(conn, "snapshot_clear", (application, s.location, s.table))
    target.run(
        conn,
        "snapshot_start",
        (
            application,
            s.location,
            s.table,
            s.t0,
            s.stream_id,
            _txt(s.lo),
            _txt(s.hi),
            _txt(s.next_lo),
            s.step,
            s.rows_estimated,
            int(s.truncate_pending),
        ),
    )
    target.commit(conn)


def _txt(v: int | None) -> str | None:
    return None if v is None else str(v)


def chunk_done(
    target: Integrate, conn: Any, application: str, s: SnapshotState, next_lo: int | None, n: int
) -> None:
    """Inside the chunk's apply transaction."""
    cur = target.run(
        conn,
        "snapshot_chunk",
        (_txt(next_lo), n, application, s.location, s.table, s.t0),
    )
    if cur.rowcount != 1:
        from syncpoint.errors import PositionConflict

        raise PositionConflict(
            f"the snapshot of {s.table} from {s.location} was restarted or finished by "
            "another run meanwhile; this chunk applied nothing",
            location=target.location,
            table=s.table,
        )


def hand_over(target: Integrate, conn: Any, application: str, s: SnapshotState) -> None:
    """Inside a transaction: the position becomes t0 and the snapshot ``done``."""
    target.run(conn, "position_clear", (application, s.location, s.table))
    target.run(conn, "position_insert", (application, s.location, s.table, s.t0, s.stream_id))
    cur = target.run(conn, "snapshot_done", (application, s.location, s.table, s.t0))
    if cur.rowcount != 1:
        from syncpoint.errors import PositionConflict

        raise PositionConflict(
            f"the snapshot of {s.table} from {s.location} was restarted by another run "
            "meanwhile; not handed over",
            location=target.location,
            table=s.table,
        )


def status(cfg: Any, integ: str) -> list[dict[str, Any]]:
    """The snapshots recorded at ``integ`` for the channel's application (``status``)."""
    from syncpoint.ops.location import Location

    with Location.of(cfg, integ).integrate() as (target, conn):
        # status reads only: no snapshot was ever taken where the table does not exist
        have = {str(r[0]) for r in target.run(conn, "prefix_tables").fetchall()}
        target.end_read(conn)
        if f"{cfg.prefix}snapshots" not in have:
            return []
        # another channel of the same application here records its own: only this one's
        mine = {(loc, str(t.ref)) for loc in cfg.sources_of(integ) for t in cfg.tables_at(loc)}
        return [s.progress() for k, s in read(target, conn, cfg.application).items() if k in mine]


def record_empty(
    target: Integrate, conn: Any, application: str, location: str, tables: list[str], stream: str
) -> list[str]:
    """After ``install`` found ``tables`` empty at ``location`` (its triggers in place):
    each that has no snapshot record and no position here is recorded as loaded, a
    snapshot of no rows (``done``, t0 the stream's start: rounds read all its records).
    Returns the tables recorded."""
    target.ensure(conn)
    ensure(target, conn)
    states = read(target, conn, application)
    positioned = {(p.location, p.table) for a, p in target.positions(conn) if a == application}
    target.end_read(conn)
    done = []
    for t in tables:
        if (location, t) in states or (location, t) in positioned:
            continue
        s = SnapshotState(location, t, "copying", INITIAL, stream, None, None, None, 0, 0, 0, False)
        start(target, conn, application, s)
        target.begin(conn)
        target.run(conn, "snapshot_done", (application, location, t, INITIAL))
        target.commit(conn)
        done.append(t)
    return done


def refuse_unloaded(
    target: Any,
    conn: Any,
    application: str,
    tables: dict[str, list[TableConfig]],
    positioned: set[tuple[str, str]],
) -> None:
    """``tables``: per capture location, the tables of the group to be run."""
    wanted = [(loc, t) for loc, ts in tables.items() for t in ts if t.snapshot != "none"]
    if not wanted:
        return
    ensure(target, conn)
    states = read(target, conn, application)
    missing = []
    for loc, t in wanted:
        s = states.get((loc, str(t.ref)))
        if s is not None and s.done:
            continue
        if s is None and (loc, str(t.ref)) in positioned:
            continue
        how = (
            f"its snapshot is still copying ({s.rows_copied} of ~{s.estimate} rows)"
            if s is not None
            else "its existing rows were never loaded"
        )
        missing.append(f"{t.name} from {loc}: {how}")
    if missing:
        raise TableStopped(
            "rounds refused: " + "; ".join(missing) + ". Run `syncpoint snapshot` first, or "
            "declare `snapshot: none` in the table's entry if the table started empty",
            location=target.location,
        )
