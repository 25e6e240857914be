"""Running a snapshot: per (integrate location, capture location, table), tick, copy the
rows in chunks with Spark, apply each chunk in one target transaction, hand over.

Each chunk: Spark reads the rows whose partition value lies in the chunk's range (several
parallel JDBC ranges) and writes them to ``{p}staging`` under a fresh attempt id; then one
target transaction checks the staged count against the count Spark observed, empties the
target table first when ``--truncate`` asked for it and this is its first chunk, upserts
the rows by key (the rounds' own statement, so values convert exactly as changes do),
records the chunk in ``{p}snapshots`` and deletes the staged rows. A kill at any point
leaves either the chunk applied and recorded, or neither; the next ``snapshot`` goes on
from the first chunk not recorded.
"""

from __future__ import annotations

import logging
import math
import os
import time
import uuid
from collections.abc import Callable
from typing import Any

from syncpoint import failpoints, vendors
from syncpoint.config import ChannelConfig
from syncpoint.core.rounds import TableWindow
from syncpoint.errors import PositionConflict
from syncpoint.ops import snapshot_state as st
from syncpoint.ops.location import Location
from syncpoint.ops.round import GroupRound, Source
from syncpoint.ops.snapshot.plan import Pair
from syncpoint.vendors.integratebase import ApplyTable, apply_table
from syncpoint.vendors.snapshotbase import RowSource, row_source, sql

log = logging.getLogger("syncpoint.snapshot")
# rows per chunk: the unit of progress and of restart (the environment may lower it, for
# a finer restart grain on a slow link)
CHUNK_ROWS = int(os.environ.get("SYNCPOINT_SNAPSHOT_CHUNK_ROWS", "250000"))
PARTITIONS = 4  # parallel JDBC ranges per chunk where the vendor reads in parallel
ROWS_PER_PARTITION = 50_000


class TableCopy:
    """The snapshot of one Pair into its integrate location."""

    def __init__(self, cfg: ChannelConfig, pair: Pair, spark: Any):
        self.cfg, self.pair = cfg, pair
        self.app = cfg.application
        self.steps = GroupRound(cfg, pair.integrate, "snapshot", [pair.table], spark)
        self.steps.open()
        self.target, self.conn = self.steps.target, self.steps.conn
        st.ensure(self.target, self.conn)
        self.src: Source = self.steps.source(pair.location)
        self.vendor = self.src.capture.vendor
        self.rows: RowSource = row_source(self.vendor, self.src.conn, pair.table.ref, cfg.prefix)
        _idle(self.src.conn)
        self.sync_name = f"snapshot {pair.location} {pair.table.ref}"[:200]
        self.part = vendors.get(self.vendor).dialect.quote(pair.partition)
        self.part_sql = f"sp_row.{self.part}" if pair.integer else "0"

    def close(self) -> None:
        self.steps.close()

    # -- start or resume --------------------------------------------------------------------
    def begin(self, restart: bool, truncate: bool) -> st.SnapshotState | None:
        """The state to copy from: resumed, or new after a fresh tick; None when done."""
        cap, conn = self.src.capture, self.src.conn
        stream = cap.stream_id(conn)
        _idle(conn)
        old = st.read(self.target, self.conn, self.app).get(
            (self.pair.location, str(self.pair.table.ref))
        )
        if old is not None and not restart and old.stream_id == stream:
            return None if old.done else old
        # the tick first: every row state the copy reads is then at least as new as t0
        tick = cap.tick(conn)
        _idle(conn)
        lo = hi = None
        part = self.part_sql.replace("sp_row.", "")
        cur = conn.cursor()
        cur.execute(sql(self.vendor, "bounds", part=part, table=self.rows.table))
        mn, mx, n = cur.fetchone()
        _idle(conn)
        if self.pair.integer and mn is not None:
            lo, hi = int(mn), int(mx)
            step = max(1, math.ceil((hi - lo + 1) * CHUNK_ROWS / max(int(n), 1)))
            next_lo: int | None = lo
        else:
            step, next_lo = 0, (0 if int(n or 0) else None)
        s = st.SnapshotState(
            self.pair.location,
            str(self.pair.table.ref),
            "copying",
            tick.context,
            stream,
            lo,
            hi,
            next_lo,
            step,
            0,
            int(n or 0),
            truncate,
        )
        st.start(self.target, self.conn, self.app, s)
        return st.read(self.target, self.conn, self.app)[(s.location, s.table)]

    # -- chunks ---------------------------------------------------------------------------------
    def chunks(self, s: st.SnapshotState, on_progress: Callable[[st.SnapshotState], None]) -> None:
        table = self._apply_table(s)
        while s.next_lo is not None:
            a = s.next_lo
            if self.pair.integer and s.hi is not None and s.step:
                b = a + s.step
                last = b > s.hi
                rng = f"{self.part_sql} >= {int(a)} AND {self.part_sql} < {int(b)}"
                if last:  # rows whose partition value is NULL (a non-key column) go last
                    rng = f"({rng}) OR {self.part_sql} IS NULL"
                nxt: int | None = None if last else b
                lo, hi = a, min(b, s.hi + 1)
            else:
                rng, nxt, lo, hi = "1 = 1", None, None, None
            t0 = time.monotonic()
            n = self._copy(rng, lo, hi, s)
            t1 = time.monotonic()
            self._apply(s, table, n, nxt)
            log.info(
                "%s from %s: chunk of %d rows: copied to staging in %.2f s, applied in %.2f s",
                s.table,
                s.location,
                n,
                t1 - t0,
                time.monotonic() - t1,
            )
            s.next_lo, s.rows_copied = nxt, s.rows_copied + n
            failpoints.hit("snapshot_after_chunk")
            on_progress(s)

    def _copy(self, rng: str, lo: int | None, hi: int | None, s: st.SnapshotState) -> int:
        from syncpoint.spark.snapshot import copy_chunk

        self.round_id = uuid.uuid4().hex
        extra = f", {self.rows.letters} AS sp_fix" if self.rows.letters else ""
        query = sql(
            self.vendor,
            "select",
            part=self.part_sql,
            content=self.rows.content,
            extra=extra,
            table=self.rows.table,
            range=rng,
        )
        parallel = bool(vendors.get(self.vendor).dialect.JDBC_PARALLEL)
        est = (s.step or 0) * max(s.rows_estimated, 1) / max((s.hi or 0) - (s.lo or 0) + 1, 1)
        parts = max(1, min(PARTITIONS, math.ceil(est / ROWS_PER_PARTITION))) if parallel else 1
        n = copy_chunk(
            self.steps.spark(),
            self.src.capture.jdbc(),
            query,
            self.target.jdbc(),
            self.target.q(self.target.idents["staging"]),
            lo=lo,
            hi=hi,
            partitions=parts,
            session_init=self.rows.session_init,
            finish=self.rows.finish,
            application=self.app,
            sync_name=self.sync_name,
            round_id=self.round_id,
            write_parallel=bool(vendors.get(self.target.vendor).dialect.JDBC_PARALLEL),
        )
        failpoints.hit("snapshot_after_stage")
        return n

    def _apply_table(self, s: st.SnapshotState) -> ApplyTable:
        w = self._window(s)
        shape = self.steps._ensure_target(self.src, w)
        return apply_table(shape, w.key, self.steps._source_types(self.src, w))

    def _window(self, s: st.SnapshotState) -> TableWindow:
        w = self.steps._window(0, self.pair.location, self.pair.table, 0, 0, False, s.stream_id)
        w.key = self.pair.key
        return w

    def _origin(self) -> Any:
        if not self.cfg.locations[self.pair.integrate].capture:
            return None
        return Location.of(self.cfg, self.pair.integrate).capture_side

    def _apply(self, s: st.SnapshotState, table: ApplyTable, n: int, nxt: int | None) -> None:
        """One target transaction: the chunk's rows and its record in ``{p}snapshots``."""
        t, conn, origin = self.target, self.conn, self._origin()
        t.begin(conn)
        try:
            if origin:
                origin.set_origin(conn, self.pair.location)
            t.run(conn, "staging_cleanup", (self.app, self.sync_name, self.round_id))
            cur = t.run(conn, "staging_count", (self.round_id,))
            found = {int(a): int(b) for a, b in cur.fetchall()}
            if found.get(0, 0) != n:
                raise PositionConflict(
                    f"the staged rows of snapshot chunk {self.round_id} are not those written "
                    f"({found.get(0, 0)} instead of {n}); nothing of this chunk was applied",
                    location=t.location,
                    table=s.table,
                )
            if s.truncate_pending:
                target = t.qualified(table.target.ref)
                t.run(conn, "empty", table=str(table.target.ref), target=target)
            if n:
                t.upsert(conn, self.round_id, self._window(s), table)
            st.chunk_done(t, conn, self.app, s, nxt, n)
            t.run(conn, "staging_done", (self.round_id,))
            if origin:
                origin.set_origin(conn, None)
            failpoints.hit("snapshot_before_commit")
            t.commit(conn)
            s.truncate_pending = False
        except BaseException:
            t.rollback(conn)
            raise

    # -- hand-over ------------------------------------------------------------------------------
    def hand_over(self, s: st.SnapshotState) -> None:
        """The table's position becomes t0 and the snapshot ``done``, in one transaction
        (a table whose source is empty still has its target emptied here under --truncate)."""
        t, conn = self.target, self.conn
        table = self._apply_table(s) if s.truncate_pending else None
        t.begin(conn)
        try:
            if table is not None:
                origin = self._origin()
                if origin:
                    origin.set_origin(conn, self.pair.location)
                ref = table.target.ref
                t.run(conn, "empty", table=str(ref), target=t.qualified(ref))
                if origin:
                    origin.set_origin(conn, None)
            st.hand_over(t, conn, self.app, s)
            t.commit(conn)
        except BaseException:
            t.rollback(conn)
            raise
        failpoints.hit("snapshot_after_handover")


def _idle(conn: Any) -> None:
    try:
        conn.rollback()
    except Exception:  # noqa: BLE001 - a lost connection shows at the next statement
        pass
