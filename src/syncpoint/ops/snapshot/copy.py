"""Running a snapshot: per (integrate location, capture location, table), tick, copy the
rows in chunks with Spark, apply each chunk in one target transaction, hand over.

Each chunk: Spark reads the rows whose partition value lies in the chunk's range (several
parallel JDBC ranges) and writes them to ``{p}staging`` under a fresh attempt id; then one
target transaction checks the staged count against the count Spark observed, empties the
target table first when ``--truncate`` asked for it and this is its first chunk, else
deletes the target rows of the chunk's range whose key it did not copy (where the target
held rows: the source deleted them, maybe before t0, when no round would), upserts
the rows by key (the rounds' own statement, so values convert exactly as changes do),
records the chunk in ``{p}snapshots`` and deletes the staged rows. A kill at any point
leaves either the chunk applied and recorded, or neither; the next ``snapshot`` goes on
from the first chunk not recorded.

Where source and target vendor have a direct path (``ops/snapshot/direct.py``: PostgreSQL
to PostgreSQL), a chunk's ranges are streamed database to database by Spark tasks:
straight into the target table when the chunk's key range holds no target row (each task
commits its range; the chunk's record follows), else into a typed staging applied as above.

Chunk bounds: when the partition column leads the source's primary key (an index walk
finds any row's successor), each chunk ends where the data has ``chunk_rows`` more rows
(``next_bound.sql``), however sparse the keys; otherwise chunks are equal steps of the
partition column's range. Either way the state stores where the next chunk starts, and a
resumed run goes on from there (the state's ``step`` is 0 for bounds from the data).
"""

from __future__ import annotations

import logging
import math
import os
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from syncpoint import failpoints, vendors
from syncpoint.config import ChannelConfig
from syncpoint.core.rounds import TableWindow
from syncpoint.errors import PositionConflict
from syncpoint.ops import snapshot_state as st
from syncpoint.ops.location import Location, close
from syncpoint.ops.round import GroupRound, Source
from syncpoint.ops.snapshot.direct import DirectPath, deleting_stale, drop_staging
from syncpoint.ops.snapshot.plan import Pair, fed_alone
from syncpoint.vendors.integratebase import ApplyTable, apply_table
from syncpoint.vendors.snapshotbase import RowSource, SharedRead, row_source, sql

log = logging.getLogger("syncpoint.snapshot")
# rows per chunk: the unit of progress and of restart (the environment may lower it, for
# a finer restart grain on a slow link). The direct path copies a million rows in a
# second or two, and each chunk costs a Spark job and fresh connections: larger chunks.
CHUNK_ROWS = int(os.environ.get("SYNCPOINT_SNAPSHOT_CHUNK_ROWS", "0")) or None
JDBC_CHUNK_ROWS, DIRECT_CHUNK_ROWS = 250_000, 1_000_000
PARTITIONS = 4  # parallel JDBC ranges per chunk where the vendor reads in parallel
# a table of at most this many rows (counted at t0) is copied by this process: read at the
# source and staged at the target by the drivers, no Spark job (a job's scheduling and the
# session's start-up cost more than such a table's rows); 0 sends every table to Spark
DRIVER_ROWS = int(os.environ.get("SYNCPOINT_SNAPSHOT_DRIVER_ROWS", "20000"))
ROWS_PER_PARTITION = 50_000
# seconds a run's tick serves as t0 of the next sync groups (``Links``)
TICK_REUSE_S = float(os.environ.get("SYNCPOINT_SNAPSHOT_TICK_REUSE_S", "5"))


class TableCopy:
    """The snapshot of one Pair into its integrate location. ``shared()``: the sync
    group's one source state (``GroupRead``: made after the group's tick on first use),
    which every read of the copy sees where the vendor has one."""

    def __init__(self, cfg: ChannelConfig, pair: Pair, spark: Any, links: Links | None = None):
        self.cfg, self.pair = cfg, pair
        self.shared: Callable[[], SharedRead | None] = lambda: None
        self.app = cfg.application
        self._links = links
        if links is None:
            self.steps = GroupRound(cfg, pair.integrate, "snapshot", [pair.table], spark)
            self.steps.after_load = []
            self.steps.open()
            st.ensure(self.steps.target, self.steps.conn)
        else:
            self.steps = links.steps(pair.integrate)
        self.target, self.conn = self.steps.target, self.steps.conn
        self.src: Source = self.steps.source(pair.location)
        # the plan read the source's shape already: creating the target reads it no more
        self.src.shapes.setdefault(str(pair.table.ref), pair.shape)
        self.vendor = self.src.capture.vendor
        self.rows: RowSource = row_source(self.vendor, self.src.conn, pair.table.ref, cfg.prefix)
        _idle(self.src.conn)
        self.sync_name = f"snapshot {pair.location} {pair.table.ref}"[:200]
        self.part = vendors.get(self.vendor).dialect.quote(pair.partition)
        self.part_sql = f"sp_row.{self.part}" if pair.integer else "0"
        # bounds from the data need an index led by the partition column: the key's
        self.by_data = pair.integer and pair.shape.primary_key[:1] == (pair.partition,)
        self.direct_mod = DirectPath.module(self.vendor, self.target.vendor)
        self.chunk_rows = CHUNK_ROWS or (DIRECT_CHUNK_ROWS if self.direct_mod else JDBC_CHUNK_ROWS)
        self.direct: DirectPath | None = None
        self.chunk: tuple[int | None, int | None, bool, bool] | None = None  # lo, hi, last, first
        # the chunks' transactions delete the target rows of their range they did not copy:
        # not where this run found the target table empty (every row is then its own)
        self.prune = True
        self._new = False  # begin() made a new state (not a resumed one)
        self._fresh = False  # the direct path's tasks wrote the chunk straight into the table
        self._here: list[Any] | None = None  # a chunk's rows read by this process

    def close(self) -> None:
        if self._links is None:
            self.steps.close()
        else:  # the run's connections stay open for the next tables, outside a transaction
            self.target.rollback(self.conn)
            _idle(self.src.conn)

    @property
    def target_ref(self) -> Any:
        """The target table (TableName)."""
        return self._window_at("").target

    # -- start or resume --------------------------------------------------------------------
    def begin(
        self,
        restart: bool,
        truncate: bool,
        tick: Callable[[], Any] | None = None,
        resume: bool = True,
    ) -> st.SnapshotState | None:
        """The state to copy from: resumed, or new after a fresh tick; None when done.
        ``tick``: the group's tick (made once for every table of the group); ``resume``
        False: a copy left unfinished starts over (a group's tables are read from one
        source state, which a killed run's state is not)."""
        cap, conn = self.src.capture, self.src.conn
        if self._links is not None:
            stream = self._links.stream_id(self.src)
            states = self._links.states(self.pair.integrate)
        else:
            stream = cap.stream_id(conn)
            _idle(conn)
            states = st.read(self.target, self.conn, self.app)
        old = states.get((self.pair.location, str(self.pair.table.ref)))
        if old is not None and not restart and old.stream_id == stream:
            if old.done or resume:
                return None if old.done else old
        # the tick first: every row state the copy reads is then at least as new as t0
        made = tick() if tick is not None else cap.tick(conn)
        _idle(conn)
        lo = hi = None
        part = self.part_sql.replace("sp_row.", "")
        cur = self._reader().cursor()
        cur.execute(sql(self.vendor, "bounds", part=part, table=self.rows.table))
        mn, mx, n = cur.fetchone()
        self._idle_reader()
        if self.pair.integer and mn is not None:
            lo, hi = int(mn), int(mx)
            step = max(1, math.ceil((hi - lo + 1) * self.chunk_rows / max(int(n), 1)))
            if self.by_data:
                step = 0
            next_lo: int | None = lo
        else:
            # one chunk over the whole key space, an empty table's too: its transaction
            # deletes the target rows the source no longer has (and copies rows since)
            step, next_lo = 0, 0
        s = st.SnapshotState(
            self.pair.location,
            str(self.pair.table.ref),
            "copying",
            made.context,
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
        # as stored (the server's clock stamps the row; this one is for progress only)
        s.started_at = s.updated_at = datetime.now(UTC)
        self._new = True
        return s

    # -- chunks ---------------------------------------------------------------------------------
    def on_driver(self, s: st.SnapshotState) -> bool:
        """Whether this process copies the table (small enough), not Spark."""
        return s.rows_estimated <= DRIVER_ROWS

    def chunks(self, s: st.SnapshotState, on_progress: Callable[[st.SnapshotState], None]) -> None:
        if self.on_driver(s):
            self.direct_mod = None  # staged and upserted as the JDBC path does
        if self.direct_mod is not None and s.next_lo is not None:
            from syncpoint.spark.snapshot import warm_workers

            # started now, they are up by the first chunk's copy
            warm_workers(self.steps.spark(), self.direct_mod.__name__)
        table = self._apply_table(s)
        self.direct = DirectPath.choose(
            self.direct_mod,
            self.src.conn,
            self.rows.table,
            self.rows,
            self.target,
            self.pair.location,
            table,
        )
        if self.direct is not None and s.next_lo is not None:
            self.direct.create(self.conn)
        if not fed_alone(self.cfg, self.pair):
            self.prune = False
        elif self._new:
            # a new copy into a table without rows (made just now, a first load) or that its
            # first chunk empties (--truncate) writes every row the table will hold: nothing
            # to delete, and no range to look at per chunk (a resumed copy looks at each)
            ref = table.target.ref
            self.prune = not s.truncate_pending and self.target.holds_rows(
                self.conn, str(ref), self.target.qualified(ref), "1 = 1"
            )
            self.target.rollback(self.conn)
        how = f"direct path ({self.direct.fmt} COPY)" if self.direct else "JDBC path"
        how = "driver (no Spark job)" if self.on_driver(s) else how
        log.info("%s from %s: copied by the %s", s.table, s.location, how)
        while s.next_lo is not None:
            a = s.next_lo
            if self.pair.integer and s.hi is not None:
                b, last = self._bound(s, a)
                nxt: int | None = None if last else b
                lo, hi = a, (max(b, s.hi + 1) if last else b)
            else:
                nxt, lo, hi = None, None, None
            t0 = time.monotonic()
            first = s.lo is None or a <= s.lo
            self.chunk = (lo, hi, nxt is None, first)
            n, written = self._copy(lo, hi, nxt is None, first, s, table)
            t1 = time.monotonic()
            self._apply(s, table, n, nxt, written)
            log.info(
                "%s from %s: chunk of %d rows: %d written to the target table by the copy, "
                "copied in %.2f s, applied in %.2f s",
                s.table,
                s.location,
                n + written,
                written,
                t1 - t0,
                time.monotonic() - t1,
            )
            s.next_lo, s.rows_copied = nxt, s.rows_copied + n + written
            failpoints.hit("snapshot_after_chunk")
            on_progress(s)

    def _bound(self, s: st.SnapshotState, a: int) -> tuple[int, bool]:
        """Where the chunk from ``a`` ends (exclusive), and whether it is the last."""
        if s.step:
            return a + s.step, a + s.step > (s.hi or 0)
        if s.rows_estimated < self.chunk_rows:
            # fewer rows than a chunk were counted at t0: one chunk, the last, which also
            # takes every row from ``a`` on (rows inserted since): no index walk to ask
            return max(a, s.hi or a) + 1, True
        cur = self._reader().cursor()
        cur.execute(
            sql(
                self.vendor,
                "next_bound",
                part=self.part,
                table=self.rows.table,
                lo=str(int(a)),
                rows=str(max(1, self.chunk_rows)),
            )
        )
        row = cur.fetchone()
        self._idle_reader()
        if row is None or row[0] is None:
            return max(a, s.hi or a) + 1, True
        return max(int(row[0]), a + 1), False

    def _reader(self) -> Any:
        """The connection that reads the source state the copy reads (bounds, chunk
        ends): the group's shared read, else the location's connection."""
        shared = self.shared()
        return shared.conn if shared is not None else self.src.conn

    def _idle_reader(self) -> None:
        if self.shared() is None:  # the shared read stays open until the group is copied
            _idle(self.src.conn)

    def _ranges(
        self,
        lo: int | None,
        hi: int | None,
        last: bool,
        first: bool,
        parts: int,
        col: str | None = None,
    ) -> list[str]:
        """The chunk [lo, hi) as ``parts`` ranges of about equal width (SQL over ``col``,
        by default the source's sp_row); the first chunk's first range also takes every
        value below lo, the last chunk's last range every value from its start on and
        NULLs: the chunks together cover every partition value."""
        p = col or self.part_sql
        if lo is None or hi is None:
            return ["1 = 1"]
        parts = max(1, min(parts, hi - lo))
        cuts = [lo + (hi - lo) * i // parts for i in range(parts)] + [hi]
        out = [f"{p} >= {int(x)} AND {p} < {int(y)}" for x, y in zip(cuts, cuts[1:], strict=False)]
        if first:
            # rows below the bounds read at the start (inserted since), and the target's
            # rows there (which the source no longer has), go with the first chunk
            out[0] = f"{p} < {int(cuts[1])}"
        if last:
            # rows beyond the bounds read at the start (inserted since), and rows whose
            # partition value is NULL (a non-key column), go with the last chunk
            out[-1] = f"{p} >= {int(cuts[-2])} OR {p} IS NULL"
            if first and parts == 1:
                out[-1] = "1 = 1"
        return out

    def _key_range(self, table: ApplyTable) -> str | None:
        """The chunk's range over the target, where the key is the partition column alone."""
        if table.key != (self.pair.partition,) or self.chunk is None:
            return None
        return " OR ".join(f"({r})" for r in self._ranges(*self.chunk, 1))

    def _target_range(self) -> str:
        """The chunk's range over the target table's partition column (unqualified), which
        the chunk's transaction leaves holding exactly the rows the chunk copied."""
        assert self.chunk is not None
        col = self.target.q(self.pair.partition)
        return " OR ".join(f"({r})" for r in self._ranges(*self.chunk, 1, col))

    def _parts(self, s: st.SnapshotState) -> int:
        if not s.step:
            est = float(self.chunk_rows)
        else:
            est = s.step * max(s.rows_estimated, 1) / max((s.hi or 0) - (s.lo or 0) + 1, 1)
        return max(1, min(PARTITIONS, math.ceil(est / ROWS_PER_PARTITION)))

    def _copy(
        self,
        lo: int | None,
        hi: int | None,
        last: bool,
        first: bool,
        s: st.SnapshotState,
        table: ApplyTable,
    ) -> tuple[int, int]:
        """The chunk's rows copied: (rows staged, rows written straight into the target)."""
        from syncpoint.spark.snapshot import copy_chunk

        self.round_id = uuid.uuid4().hex
        self._fresh = False
        shared = self.shared()
        if self.direct is not None:
            from syncpoint.spark.snapshot import slots

            spark = self.steps.spark()
            # straight into the table: only a range with no target row (so a copy repeated
            # after a crash stages and upserts instead), never the batch that must empty
            # the table first, and not at a site whose writes must carry their origin
            fresh = (
                not s.truncate_pending
                and self._origin() is None
                and self.direct.fresh(self.conn, self._key_range(table))
            )
            self._fresh = fresh
            staged, written = self.direct.copy(
                spark,
                self.src.capture.url,
                self.rows.table,
                self.round_id,
                self._ranges(lo, hi, last, first, min(self._parts(s), slots(spark))),
                fresh,
                shared.snapshot if shared is not None else "",
            )
            failpoints.hit("snapshot_after_stage")
            return staged, written
        rng = " OR ".join(f"({r})" for r in self._ranges(lo, hi, last, first, 1))
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
        if self.on_driver(s):
            n = self._copy_here(query)
            failpoints.hit("snapshot_after_stage")
            return n, 0
        parallel = bool(vendors.get(self.vendor).dialect.JDBC_PARALLEL)
        parts = self._parts(s) if parallel else 1
        init = (shared.session_init if shared is not None else "") + (self.rows.session_init or "")
        n = copy_chunk(
            self.steps.spark(),
            shared.jdbc if shared is not None and shared.jdbc else self.src.capture.jdbc(),
            query,
            self.target.jdbc(),
            self.target.q(self.target.idents["staging"]),
            lo=lo,
            hi=hi,
            partitions=parts,
            session_init=init or None,
            finish=self.rows.finish,
            application=self.app,
            sync_name=self.sync_name,
            round_id=self.round_id,
            write_parallel=bool(vendors.get(self.target.vendor).dialect.JDBC_PARALLEL),
        )
        failpoints.hit("snapshot_after_stage")
        return n, 0

    def _copy_here(self, query: str) -> int:
        """A small chunk read by this process: the rows Spark's readers would read (the
        same SELECT, settings and ``finish``), kept for the chunk's apply transaction,
        which stages them (one transaction, not one to stage and one to apply)."""
        # the group's shared read where there is one: its tables are read at one moment
        conn, rows = self._reader(), self.rows
        cur = conn.cursor()
        try:
            if rows.session_init:
                cur.execute(rows.session_init)  # undone with the read transaction
            cur.execute(query)
            contents = []
            for _part, content, *fix in cur.fetchall():
                text = _text(content)
                if rows.finish is not None:
                    text = rows.finish(text, (_text(fix[0]) or "") if fix else "")
                contents.append(text)
        finally:
            self._idle_reader()
        self._here = contents
        return len(contents)

    def _apply_table(self, s: st.SnapshotState) -> ApplyTable:
        w = self._window(s)
        shape = self.steps._ensure_target(self.src, w)
        return apply_table(shape, w.key, self.steps._source_types(self.src, w))

    def _window(self, s: st.SnapshotState) -> TableWindow:
        return self._window_at(s.stream_id)

    def _window_at(self, stream_id: str) -> TableWindow:
        w = self.steps._window(0, self.pair.location, self.pair.table, 0, 0, False, stream_id)
        w.key = self.pair.key
        return w

    def _origin(self) -> Any:
        if not self.cfg.locations[self.pair.integrate].capture:
            return None
        return Location.of(self.cfg, self.pair.integrate).capture_side

    def _apply(
        self, s: st.SnapshotState, table: ApplyTable, n: int, nxt: int | None, written: int
    ) -> None:
        """One target transaction: the chunk's rows and its record in ``{p}snapshots``."""
        t, conn, origin = self.target, self.conn, self._origin()
        t.begin(conn)
        try:
            if origin:
                origin.set_origin(conn, self.pair.location)
            # the chunk's range left holding exactly the rows it copied (a range the tasks
            # wrote straight into held no row: nothing there is not the chunk's)
            prune = self.prune and not s.truncate_pending and not self._fresh
            stale = self._target_range() if prune else None
            if self.direct is not None:
                self.direct.apply(
                    conn,
                    self.round_id,
                    n,
                    s.table,
                    s.truncate_pending,
                    self._key_range(table),
                    stale,
                )
                # the rows the tasks wrote into the table count as copied too
                self._recorded(s, conn, origin, nxt, n + written)
                return
            t.run(conn, "staging_cleanup", (self.app, self.sync_name, self.round_id))
            here, self._here = self._here, None
            if here is not None:  # read by this process: staged by this transaction
                t.stage_upserts(conn, self.app, self.sync_name, self.round_id, here)
                found = {0: len(here)}
            else:  # staged by Spark's tasks: as many as they counted
                cur = t.run(conn, "staging_count", (self.round_id,))
                found = {int(a): int(b) for a, b in cur.fetchall()}
            if found.get(0, 0) != n:
                raise PositionConflict(
                    f"the staged rows of snapshot chunk {self.round_id} are not those written "
                    f"({found.get(0, 0)} instead of {n}); nothing of this chunk was applied",
                    location=t.location,
                    table=s.table,
                )
            target = t.qualified(table.target.ref)
            if s.truncate_pending:
                t.run(conn, "empty", table=str(table.target.ref), target=target)
            elif stale is not None and t.holds_rows(conn, str(table.target.ref), target, stale):
                with deleting_stale(s.table):
                    t.prune(conn, self.round_id, self._window(s), table, stale)
            if n:
                t.upsert(conn, self.round_id, self._window(s), table)
            t.run(conn, "staging_done", (self.round_id,))
            self._recorded(s, conn, origin, nxt, n)
        except BaseException:
            t.rollback(conn)
            raise

    def _recorded(
        self, s: st.SnapshotState, conn: Any, origin: Any, nxt: int | None, n: int
    ) -> None:
        """The chunk's record, and the commit of its transaction."""
        st.chunk_done(self.target, conn, self.app, s, nxt, n)
        if origin:
            origin.set_origin(conn, None)
        failpoints.hit("snapshot_before_commit")
        self.target.commit(conn)
        s.truncate_pending = False

    # -- hand-over ------------------------------------------------------------------------------
    def hand_over(self, s: st.SnapshotState) -> None:
        """The table's position becomes t0 and the snapshot ``done``, in one transaction."""
        hand_over([(self, s)])

    def _hand_over_in(self, conn: Any, s: st.SnapshotState, table: ApplyTable | None) -> None:
        """Inside the hand-over transaction on ``conn`` (a table whose source is empty still
        has its target emptied here under --truncate: ``table``)."""
        t = self.target
        if table is not None:
            origin = self._origin()
            if origin:
                origin.set_origin(conn, self.pair.location)
            ref = table.target.ref
            t.run(conn, "empty", table=str(ref), target=t.qualified(ref))
            if origin:
                origin.set_origin(conn, None)
        st.hand_over(t, conn, self.app, s)
        if self.direct_mod is not None:
            target = str(self._window(s).target)
            drop_staging(self.direct_mod, conn, t.prefix, self.pair.location, target)


class Links:
    """A snapshot run's connections: per integrate location one ``GroupRound`` (its target
    connection, control tables ensured once, and a connection per capture location) that
    every table copied there uses, and per capture location the last tick made.

    Why: opened per table, the connections, the control tables' checks and a tick cost
    about thirty statements and three connections a table, most of a small table's time
    on a loaded server. A tick serves the next groups while it is younger than
    ``TICK_REUSE_S``: t0 only has to come before every read of the group (rounds then
    apply again the changes between t0 and the copy, by key, as they do within a group);
    an older one would only make those rounds longer."""

    def __init__(self, cfg: ChannelConfig, spark: Any):
        self.cfg, self.spark = cfg, spark
        self._steps: dict[str, GroupRound] = {}
        self._ticks: dict[str, tuple[float, Any]] = {}
        self._states: dict[str, dict[tuple[str, str], st.SnapshotState]] = {}
        self._streams: dict[str, str] = {}
        self._readers: dict[str, Any] = {}

    def __enter__(self) -> Links:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def steps(self, integrate: str) -> GroupRound:
        if integrate not in self._steps:
            steps = GroupRound(self.cfg, integrate, "snapshot", list(self.cfg.tables), self.spark)
            steps.after_load = []
            self._steps[integrate] = steps  # closed with the others even if open fails
            steps.open()
            st.ensure(steps.target, steps.conn)
        return self._steps[integrate]

    def states(self, integrate: str) -> dict[tuple[str, str], st.SnapshotState]:
        """The snapshot records at ``integrate`` as the run found them (read once: each
        table's own is looked at once, before the run writes it)."""
        if integrate not in self._states:
            steps = self.steps(integrate)
            self._states[integrate] = st.read(steps.target, steps.conn, self.cfg.application)
        return self._states[integrate]

    def stream_id(self, src: Source) -> str:
        """The capture stream of ``src`` (read once a run)."""
        if src.name not in self._streams:
            self._streams[src.name] = src.capture.stream_id(src.conn)
            _idle(src.conn)
        return self._streams[src.name]

    def reader(self, src: Source) -> Any:
        """The connection the groups' shared reads of ``src`` run on, one after the other."""
        if src.name not in self._readers:
            self._readers[src.name] = src.capture.connect()
        return self._readers[src.name]

    def tick(self, src: Source) -> Any:
        """A tick of ``src``'s capture: the last one while young enough, else a new one."""
        made = self._ticks.get(src.name)
        if made is None or time.monotonic() - made[0] > TICK_REUSE_S:
            started = time.monotonic()
            made = (started, src.capture.tick(src.conn))
            _idle(src.conn)
            self._ticks[src.name] = made
        return made[1]

    def close(self) -> None:
        for steps in self._steps.values():
            steps.close()
        self._steps.clear()
        for conn in self._readers.values():
            close(conn)
        self._readers.clear()


def hand_over(copies: list[tuple[TableCopy, st.SnapshotState]]) -> None:
    """The tables of one sync group (same integrate and capture location) handed over in
    one target transaction: each position becomes its t0 (the group's one tick) and each
    snapshot ``done``, so rounds start the group from one sync point."""
    if not copies:
        return
    lead = copies[0][0]
    t, conn = lead.target, lead.conn
    emptied = [c._apply_table(s) if s.truncate_pending else None for c, s in copies]
    t.begin(conn)
    try:
        for (c, s), table in zip(copies, emptied, strict=True):
            c._hand_over_in(conn, s, table)
        t.commit(conn)
    except BaseException:
        t.rollback(conn)
        raise
    failpoints.hit("snapshot_after_handover")


def _text(v: Any) -> Any:
    if isinstance(v, bytes | bytearray | memoryview):
        return bytes(v).decode("utf-8")
    return v


def _idle(conn: Any) -> None:
    try:
        conn.rollback()
    except Exception:  # noqa: BLE001 - a lost connection shows at the next statement
        pass
