"""The steps of one round (``core/rounds.py``) for one sync group at one integrate location:
connections, sync points, DDL decisions, Spark, and the apply transaction.

Planning ticks each capture location of the group (never the integrate location itself),
reuses a sync point not yet reached, and caps every table of a location before a DDL
event the policy stops on; target tables are resolved and created from the source's
columns when missing. Details: docs/internals.md, "Rounds".
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from syncpoint import vendors
from syncpoint.config import ChannelConfig, TableConfig, TableName
from syncpoint.core import cascade, cdr, ddl, fkorder, netting, positions
from syncpoint.core.netting import NetRows
from syncpoint.core.positions import INITIAL, SyncPoint
from syncpoint.core.rounds import RoundPlan, Stop, TableWindow, target_name
from syncpoint.core.types import NType
from syncpoint.errors import (
    Deadlock,
    PositionConflict,
    TableStopped,
    TransientError,
    WorkFailed,
)
from syncpoint.ops import created
from syncpoint.ops.location import Location, close
from syncpoint.vendors import shapebase
from syncpoint.vendors.base import Capture
from syncpoint.vendors.integratebase import apply_table

log = logging.getLogger("syncpoint.rounds")

# A round's apply transaction chosen to end a deadlock (an application locking the same
# rows in another order, often under conflict resolution's row locks) is done again a few
# times within the round, a little later each time, before the round gives up.
DEADLOCK_RETRIES = 5
# the start of the reason of a table stopped for a cascade the rounds cannot make
CASCADE_STOP = "cascade not followed: "
DEADLOCK_BACKOFF_S = 0.2


@dataclass
class Source:
    """A capture location during one round: its capture, connection and stream."""

    name: str
    capture: Capture
    conn: Any
    stream_id: str = ""
    newest: int = 0
    shapes: dict[str, Any] = field(default_factory=dict)


@dataclass
class DirectRound:
    """A round on the vendors' direct path, read but not yet copied: the direct path's
    module, the windows' reads, and the round's read counts (filled in by ``stage``)."""

    module: Any
    reads: list[tuple[Any, ...]]
    counts: dict[int, int]


class GroupRound:
    """``RoundSteps`` for one sync group at one integrate location."""

    def __init__(
        self,
        cfg: ChannelConfig,
        integrate: str,
        group: str,
        tables: list[TableConfig],
        spark: Any = None,
    ):
        self.cfg = cfg
        self.integrate = integrate
        self.group = group
        self.tables = tables
        self._spark = spark
        self.target = Location.of(cfg, integrate).integrate_side
        self.conn: Any = None
        self.sources: dict[str, Source] = {}
        self.fresh = True  # False when the round replays a stored sync point
        # indexes and foreign keys of target tables created here, when a snapshot adds them
        # after its rows (None: added as the table is created)
        self.after_load: list[created.Job] | None = None
        self._owed: set[str] = set()  # target tables whose after_load jobs are queued

    # -- connections -----------------------------------------------------------------------
    def open(self) -> None:
        place = Location.of(self.cfg, self.integrate)
        if place.file_not_made:
            # install makes it; made here, it is said, never silently
            log.warning(
                "%s: SQLite file %s did not exist (install makes it): created it empty",
                self.integrate,
                vendors.of_url(place.url).dialect.file_of(place.url),
            )
        self.conn = self.target.connect()
        self.target.ensure(self.conn)
        # stops of tables or locations taken out of the channel would stay in status forever
        keep = {
            (loc, str(t.ref))
            for loc in self.cfg.capture_locations()
            for t in self.cfg.tables_at(loc)
        }
        self.target.forget_stops(self.conn, self.cfg.application, keep)

    def close(self) -> None:
        for s in self.sources.values():
            close(s.conn)
        self.sources.clear()
        if self.conn is not None:
            close(self.conn)
            self.conn = None

    def source(self, name: str) -> Source:
        if name not in self.sources:
            cap = Location.of(self.cfg, name).capture_side
            self.sources[name] = Source(name, cap, cap.connect())
        return self.sources[name]

    def locations(self) -> dict[str, list[TableConfig]]:
        out: dict[str, list[TableConfig]] = {}
        names = {str(t.ref) for t in self.tables}
        for loc in self.cfg.sources_of(self.integrate):
            here = [t for t in self.cfg.tables_at(loc) if str(t.ref) in names]
            if here:
                out[loc] = here
        return out

    # -- plan --------------------------------------------------------------------------------
    def plan(self) -> RoundPlan | None:
        app = self.cfg.application
        if self.conn is None:
            self.open()
        stored = [p for a, p in self.target.positions(self.conn) if a == app]
        from syncpoint.ops.snapshot_state import refuse_unloaded

        refuse_unloaded(
            self.target,
            self.conn,
            app,
            self.locations(),
            {(p.location, p.table) for p in stored},
        )
        sps = self.target.sync_points(self.conn, app)
        windows: list[TableWindow] = []
        sync_points: dict[str, SyncPoint] = {}
        stops: list[Stop] = []
        edges: list[cascade.Edge] = []
        self.fresh = True
        for loc, tables in self.locations().items():
            src = self.source(loc)
            cap, conn = src.capture, src.conn
            cap.poll_ddl(conn)
            _idle(conn)
            tick = cap.tick(conn)
            src.stream_id, src.newest = cap.stream_id(conn), tick.context
            _idle(conn)  # capture calls that commit need a connection without a transaction
            mine = {p.table: p for p in stored if p.location == loc}
            positions.check_stream(
                loc, app, self.integrate, mine.values(), src.stream_id, src.newest
            )
            at = {
                str(t.ref): mine[str(t.ref)].context if str(t.ref) in mine else INITIAL
                for t in tables
            }
            sp = sps.get((loc, self.group))
            if (
                positions.pending(sp, at, src.stream_id)
                and sp is not None
                and all(c <= sp.context for c in at.values())
            ):
                self.fresh = False
            else:
                sp = SyncPoint(
                    loc,
                    self.group,
                    tick.context,
                    src.stream_id,
                    tick.sampled_at or tick.guaranteed,
                    tick.guaranteed,
                )
                self.target.put_sync_point(self.conn, app, sp)
            sync_points[loc] = sp
            loc_windows = [
                self._window(
                    len(windows) + i,
                    loc,
                    t,
                    at[str(t.ref)],
                    sp.context,
                    str(t.ref) in mine,
                    src.stream_id,
                )
                for i, t in enumerate(tables)
            ]
            loc_stops = self._cascades(src, loc_windows, edges)
            self._survey(src, loc_windows)
            loc_stops += self._decide_ddl(src, loc_windows)
            if loc_stops:  # windows capped before a DDL event hold less than surveyed
                self._survey(src, loc_windows)
            stops += loc_stops
            windows += loc_windows
        if not windows or not (any(w.moves for w in windows) or stops):
            return None
        return RoundPlan(app, self.integrate, self.group, windows, sync_points, stops, edges=edges)

    def _cascades(
        self, src: Source, ws: list[TableWindow], edges: list[cascade.Edge]
    ) -> list[Stop]:
        """The cascades the location's capture cannot see, read anew each round, so that a
        foreign key added while rounds run is followed from the first round that can hold a
        change it made (adding one checks the existing rows, so none made before it waits
        in a window). Between two tables of the group: an edge whose cascades the apply
        makes at the target. To a child from a table outside the group: the child stops
        where it is, before anything that could differ from its source is applied."""
        if not src.capture.unseen_cascades:
            return []
        fks = src.capture.cascades(src.conn)
        _idle(src.conn)
        by_name = {w.source.name: w for w in ws}
        stops: dict[str, Stop] = {}
        # a table stopped for a cascade stays stopped until it moves (a snapshot loads it
        # again): taking the foreign key away does not bring back what it cascaded meanwhile
        for s in self.target.stops(self.conn, self.cfg.application):
            w = next((w for w in ws if w.table == s["table"]), None)
            if (
                w is not None
                and s["location"] == src.name
                and str(s["reason"]).startswith(CASCADE_STOP)
                and s["context"] is not None
                and int(s["context"]) == w.after
            ):
                w.upto = w.after
                stops[w.table] = Stop(src.name, w.table, w.after, str(s["reason"]))
        for fk in fks:
            child = by_name.get(fk.child)
            if child is None or child.table in stops:
                continue
            reason = src.capture.unfollowable(fk, set(by_name))
            if reason:
                child.upto = child.after
                stops[child.table] = Stop(
                    src.name,
                    child.table,
                    child.after,
                    f"{CASCADE_STOP}{reason}. Its rounds stop before any change that could "
                    "differ from the source, and stay stopped: once that is fixed, load it "
                    f"again with syncpoint snapshot --tables {child.table} --truncate --restart",
                )
        for fk in fks:
            child, parent = by_name.get(fk.child), by_name.get(fk.parent)
            if child is not None and parent is not None and child.table not in stops:
                edges.append(cascade.Edge(parent.tbl, child.tbl, fk))
        return list(stops.values())

    def _window(
        self, tbl: int, loc: str, t: TableConfig, after: int, upto: int, stored: bool, stream: str
    ) -> TableWindow:
        src_vendor = self.cfg.locations[loc].vendor
        name, explicit = target_name(t, loc)
        return TableWindow(
            tbl=tbl,
            location=loc,
            table=str(t.ref),
            source=t.ref,
            target=self.target.resolve(name, explicit, src_vendor),
            key=tuple(t.key or ()),
            after=after,
            upto=upto,
            stored=stored,
            stream_id=stream,
            policy=t.ddl_policy,
            origins=tuple(self.cfg.origins_via(self.integrate, loc, t)),
        )

    def _survey(self, src: Source, ws: list[TableWindow]) -> None:
        """What each window of the location holds, by one query for all the tables whose
        windows start and end at the same ticks (all of a group's, but for a table added
        or stopped): the tables with no record in their window are idle in this round."""
        same: dict[tuple[int, int], list[TableWindow]] = {}
        for w in ws:
            w.stats, w.surveyed = None, False
            if w.reads:
                same.setdefault((w.after, w.upto), []).append(w)
        for (after, upto), group in same.items():
            found = src.capture.round_survey(
                src.conn, [w.source for w in group], after, upto, self.cfg.spark.driver_round_max
            )
            for w in group:
                w.stats, w.surveyed = found.get(str(w.source)), True

    def _decide_ddl(self, src: Source, ws: list[TableWindow]) -> list[Stop]:
        """Decide the DDL of each window; cap all windows of the location before the first
        event the policy stops on (repeated: a lower cap may hide or reveal events)."""
        parse = vendors.get(src.capture.vendor).types.parse
        stops: dict[str, Stop] = {}
        while True:
            cap: int | None = None
            for w in ws:
                w.ddl, w.empties, w.rows_after, w.renames = [], False, 0, {}
                if not w.reads or (w.surveyed and (w.stats is None or not w.stats.ddl)):
                    continue  # no DDL record in the window
                query = src.capture.changes_query(w.source, w.after, w.upto)
                for rk, action, content, old in src.capture.window_ddl(src.conn, query):
                    content, old = (
                        cdr.strip_bookkeeping(_text(x), self.cfg.prefix) for x in (content, old)
                    )
                    change = ddl.classify(parse, action, content, old, rk)
                    decision = ddl.decide(change, w.policy)
                    if decision == ddl.STOP:
                        tick = self._tick_of(src, w, rk)
                        group = tuple(str(t.ref) for t in self.tables)
                        reason = ddl.stop_reason(change, w.table, src.name, w.policy, group)
                        stops[w.table] = Stop(src.name, w.table, tick - 1, reason, rk)
                        cap = tick - 1 if cap is None else min(cap, tick - 1)
                        break
                    if decision == ddl.APPLY:
                        w.ddl.append(change)
                        w.renames.update({n.name: o.name for o, n in change.renamed})
                        if change.empties:
                            w.empties, w.rows_after = True, rk
            if cap is None or all(w.upto <= cap for w in ws):
                break
            for w in ws:
                w.upto = max(w.after, min(w.upto, cap))
        for s in stops.values():
            s.context = next(w.upto for w in ws if w.table == s.table)
        return list(stops.values())

    def _tick_of(self, src: Source, w: TableWindow, repl_key: int) -> int:
        """The first tick in (after, upto] whose window holds the record (bisection)."""
        lo, hi = w.after + 1, w.upto
        while lo < hi:
            mid = (lo + hi) // 2
            q = src.capture.changes_query(w.source, w.after, mid)
            if src.capture.window_has(src.conn, q, repl_key):
                hi = mid
            else:
                lo = mid + 1
        return lo

    # -- read and stage (Spark) ----------------------------------------------------------------
    def spark(self) -> Any:
        if self._spark is None:
            from syncpoint.ops.session import get_session

            self._spark = get_session(self.cfg.spark)
        return self._spark

    def read(self, plan: RoundPlan) -> tuple[Any, dict[int, int]]:
        """The round's net rows: a lazy Spark DataFrame (read, netted and staged by one
        job in ``stage``), or, when the round has at most ``spark.driver_round_max`` change
        records, ``NetRows`` netted here by the same rule (no Spark job, so a small round
        costs milliseconds, not a job's scheduling), or, where the vendors have a direct
        path (``vendors/roundpath.py``) and the round is larger, ``DirectRound``: the
        records copied by Spark tasks from database to database and netted at the target,
        in ``stage`` (its counts are filled in there). ``window_bounds`` sizes every window."""
        from syncpoint.ops import cdr as cdr_ops
        from syncpoint.vendors.roundpath import direct_round

        resolved = cdr_ops.settings(self.target, self.conn)
        reads, counts, records = [], {}, 0
        threads = self._driver_threads()
        for w in plan.reading:
            src = self.sources[w.location]
            counts[w.tbl] = 0
            if w.surveyed and w.stats is None:
                continue  # the plan's survey of the location found nothing: not read
            query = src.capture.changes_query(w.source, w.after, w.upto)
            if w.stats is not None:
                lo, hi, n = w.stats.lo, w.stats.hi, w.stats.records
            else:
                lo, hi, n = src.capture.window_bounds(src.conn, query)
            if not n:
                continue
            key = self._key(src, w)
            records += int(n)
            if (
                records > self.cfg.spark.driver_round_max
                and self._spark is None
                and not (threads and direct_round(src.capture.vendor, self.target.vendor))
            ):
                # more records than the driver nets (DDL and forwarded records included,
                # so at worst a session started early), and not for the direct path's
                # copies in the driver's threads: the JVM starts during the reads
                from syncpoint.ops.session import prestart

                prestart(self.cfg.spark)
            plain = src.capture.read_query(query, key, w.rows_after, w.origins or (w.location,))
            read_sql = plain
            if w.table in resolved:
                # the conflict bookkeeping of the capture location is its site's
                site = Location.of(self.cfg, src.name).integrate_side
                origins = cdr_ops.nearest_first(self.cfg, self.integrate, w)
                read_sql = cdr_ops.read_query(
                    site, read_sql, resolved[w.table], w.location, origins
                )
            reads.append((w, src, read_sql, lo, hi, n, plain))
        if not reads:
            return None, counts
        self._events(plan, reads)
        direct = self._direct(reads) if records > self.cfg.spark.driver_round_max else None
        if direct is not None:
            # the count of each window comes with its copy (no pass of its own)
            return DirectRound(direct, reads, counts), counts
        for w, src, *_, plain in reads:
            # changes are the row records read: not DDL, not records of changes made elsewhere
            counts[w.tbl] = src.capture.window_count(src.conn, plain)
        if sum(counts.values()) <= self.cfg.spark.driver_round_max:
            return self._net_here(reads), counts
        from syncpoint.spark.read import read_window
        from syncpoint.spark.transforms import net_changes

        frames = []
        for w, src, read_sql, lo, hi, n, _ in reads:
            url, props = src.capture.jdbc()
            frames.append(
                read_window(
                    self.spark(),
                    url,
                    props,
                    read_sql,
                    tbl=w.tbl,
                    parallel=vendors.get(src.capture.vendor).dialect.JDBC_PARALLEL,
                    lo=lo,
                    hi=hi,
                    count=n,
                )
            )
        union = frames[0]
        for f in frames[1:]:
            union = union.unionByName(f)
        # lazy: the records are read, netted and staged by one Spark job in ``stage``
        return net_changes(union), counts

    def _events(self, plan: RoundPlan, reads: list[tuple[Any, ...]]) -> None:
        """The events of the windows of parents with cascades the capture cannot see (each
        DELETE, each UPDATE of the referenced columns), staged apart from the net rows."""
        plan.event_rows = []
        for w, src, *_, plain in reads:
            cols = {c for e in plan.edges if e.parent == w.tbl for c in e.fk.parent_columns}
            if not cols:
                continue
            # a row in the middle of a chain: where its own foreign keys pointed at a parent's
            # event says whether that event's cascade took it (and its children) along
            ups = {c for e in plan.edges if e.child == w.tbl for c in e.fk.columns}
            cols |= ups
            records = (
                (int(rk), str(action), _text(content), _text(old))
                for rk, action, content, old, *_ in src.capture.read_rows(src.conn, plain)
            )
            plan.event_rows += [
                (cascade.EVENTS + w.tbl, action, content, rk, None)
                for action, content, rk in cascade.event_rows(records, cols, bool(ups))
            ]

    def _net_here(self, reads: list[tuple[Any, ...]]) -> NetRows:
        rows: list[tuple[Any, ...]] = []
        for w, src, read_sql, *_ in reads:
            tbl, add = w.tbl, rows.append
            for rk, action, content, old, dbid, key, old_key in src.capture.read_rows(
                src.conn, read_sql
            ):
                # per record, the hot loop of a driver-netted round: no generator a row
                add((tbl, int(rk), str(action), _text(content), _text(old), _text(dbid),
                     _text(key), _text(old_key)))  # fmt: skip
        try:
            return netting.net_rows(rows)
        except ValueError as exc:
            raise WorkFailed(str(exc), location=self.integrate) from exc

    def _direct(self, reads: list[tuple[Any, ...]]) -> Any:
        """The direct path's module when every window's source has one with the target."""
        from syncpoint.vendors.roundpath import direct_round

        mods = {direct_round(r[1].capture.vendor, self.target.vendor) for r in reads}
        if len(mods) != 1 or None in mods:
            return None
        mod = mods.pop()
        usable = getattr(mod, "available", None)  # a server setting the path needs
        return mod if usable is None or usable(self.target, self.conn) else None

    def _stage_direct(self, plan: RoundPlan, data: DirectRound) -> dict[int, int]:
        """Spark tasks copy each window's records, in repl_key ranges, from the capture
        location into the target; the target nets them into the staging (committed)."""
        typed = self._typed_stagings(plan, data)
        try:
            written, netted = self._copy_direct(plan, data, typed)
        except Exception as exc:  # noqa: BLE001 - the JSON text's copy says what is wrong
            if not typed:
                raise
            # a value the typed copy could not read (the target's type cannot hold it, or
            # its text is not one): the round stages as JSON text instead, under a round id
            # of its own, so that the apply stops the table with the reason as it always did
            log.warning(
                "round %s at %s: the typed copy failed (%s); staging the changes as text",
                plan.round_id,
                self.integrate,
                _cause(exc),
            )
            data.module.drop_typed(self.target, self.conn, {t: v[0] for t, v in typed.items()})
            for w in plan.windows:
                if w.tbl in typed:
                    plan.untyped[str(w.target)] = f"the typed copy failed: {_cause(exc)}"
            plan.round_id = uuid.uuid4().hex
            typed = {}
            written, netted = self._copy_direct(plan, data, typed)
        stagings = {t: v[0] for t, v in typed.items()}
        try:
            records, staged = data.module.net(
                self.target, self.conn, plan.application, plan.group, plan.round_id, written,
                stagings, netted,
            )  # fmt: skip
        except WorkFailed as exc:
            raise WorkFailed(exc.message, location=self.integrate) from exc
        data.counts.update(records)
        plan.typed = stagings
        plan.staging, plan.direct = "bulk", True
        return staged

    def _driver_threads(self) -> int:
        """How many of the direct path's copy tasks run at once in the driver's own
        threads: as many as a local master's slots (the tasks only stream from database to
        database, so a round of them starts no JVM, and where a session is up its Python
        workers would run the same streams on the same machine, each fed by the JVM); 0
        where Spark runs them (another master)."""
        from syncpoint.ops.session import local_slots

        return local_slots(self.cfg.spark.master)

    def _copy_direct(
        self, plan: RoundPlan, data: DirectRound, typed: dict[int, Any]
    ) -> tuple[dict[int, int], dict[int, int]]:
        """Run the round's copy tasks: the operations each window's tasks wrote, and the
        change records of each window whose operations the source netted (a task's third
        value: its operations are no longer one a record at least)."""
        threads = self._driver_threads()
        if threads:
            n_slots, spark = threads, None
        else:
            from syncpoint.spark.snapshot import slots

            spark = self.spark()
            n_slots = slots(spark)
        jobs = []
        for w, src, read_sql, lo, hi, n, _ in data.reads:
            if w.tbl in typed:
                t, table = typed[w.tbl]
                jobs += data.module.typed_copies(
                    src.capture, self.target, read_sql, t, table, tbl=w.tbl, lo=lo, hi=hi,
                    count=n, slots=n_slots,
                )  # fmt: skip
                continue
            jobs += data.module.copies(
                src.capture,
                self.target,
                read_sql,
                tbl=w.tbl,
                application=plan.application,
                group=plan.group,
                round_id=plan.round_id,
                lo=lo,
                hi=hi,
                count=n,
                slots=n_slots,
            )
        if spark is None:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(threads, thread_name_prefix="syncpoint-copy") as pool:
                done = list(pool.map(data.module.copy_ops, jobs))
        else:
            from syncpoint.spark.snapshot import run_tasks

            done = run_tasks(spark, jobs, data.module.copy_ops)
        written: dict[int, int] = {}
        netted: dict[int, int] = {}
        for tbl, n, *records in done:
            written[tbl] = written.get(tbl, 0) + n
            if records:
                netted[tbl] = netted.get(tbl, 0) + records[0]
        return written, netted

    def _typed_stagings(self, plan: RoundPlan, data: DirectRound) -> dict[int, Any]:
        """The windows whose rows the direct path stages in the target's types, each with
        its typed staging (made) and the apply table it was made for: those whose target
        is known before the copy (made here when missing, as the apply would). Any other
        window, or one whose preparation fails (the apply says why), stages JSON text."""
        if not hasattr(data.module, "typed_stage"):
            return {}
        # the source vendors whose records the module stages typed (the target's own by
        # default; PostgreSQL into MariaDB too)
        typed_from = getattr(data.module, "TYPED_SOURCES", (self.target.vendor,))
        refusal = getattr(data.module, "typed_refusal", None)
        cascades = {e.parent for e in plan.edges} | {e.child for e in plan.edges}
        out: dict[int, Any] = {}
        for w, src, read_sql, *_, plain in data.reads:
            if w.tbl in cascades and src.capture.vendor in typed_from:
                # a cascade the round makes at the target (MariaDB's foreign keys) is
                # applied with its parent's changes from the JSON text, into any target
                plan.untyped[str(w.target)] = "in a cascade of foreign keys the round makes"
                continue
            if (
                src.capture.vendor not in typed_from
                or read_sql != plain  # conflict resolution reads its own bookkeeping
                or w.ddl
                or w.renames
                or w.empties
                or len(w.origins) > 1
                or self._feeders(w.table) > 1
            ):
                continue
            try:
                self._key(src, w)
                self._own_types(src, w)
                shape = self._ensure_target(src, w)
                table = apply_table(shape, w.key, self._source_types(src, w))
                why = refusal(table) if refusal is not None else None
                if why is not None:
                    # a value this table holds cannot be staged typed exactly: its rows
                    # are staged as JSON text (the round's report says why)
                    plan.untyped[str(w.target)] = why
                    continue
                made = data.module.typed_stage(
                    self.target, self.conn, plan.application, plan.group, plan.round_id,
                    w.tbl, table,
                )  # fmt: skip
            except WorkFailed as exc:
                self.target.rollback(self.conn)
                log.debug("window %s staged as text: %s", w.table, exc.message)
                continue
            if made is not None:
                out[w.tbl] = (made, table)
        return out

    def _feeders(self, table: str) -> int:
        """How many capture locations feed the table into this integrate location."""
        return sum(
            1
            for loc in self.cfg.sources_of(self.integrate)
            if any(str(t.ref) == table for t in self.cfg.tables_at(loc))
        )

    def _key(self, src: Source, w: TableWindow) -> tuple[str, ...]:
        if w.key:
            return w.key
        shape = self._shape(src, w.source)
        if shape is None or not shape.primary_key:
            raise WorkFailed(
                "the table has no primary key at the source and no key: in its entry",
                location=src.name,
                table=w.table,
            )
        w.key = tuple(shape.primary_key)
        return w.key

    def _shape(self, src: Source, ref: TableName) -> Any:
        if str(ref) not in src.shapes:
            src.shapes[str(ref)] = src.capture.describe(src.conn, ref)
            _idle(src.conn)
        return src.shapes[str(ref)]

    def stage(self, plan: RoundPlan, data: Any) -> dict[int, int]:
        staged = self._stage_net(plan, data)
        # the cascades' events after the net rows: the direct path nets its staged
        # operations in place by key (events have none) and may stage under a new round id
        if plan.event_rows:
            self.target.stage_rows(
                self.conn, plan.application, plan.group, plan.round_id, plan.event_rows
            )
            plan.events = NetRows(plan.event_rows).counts()
        return staged

    def _stage_net(self, plan: RoundPlan, data: Any) -> dict[int, int]:
        if isinstance(data, DirectRound):
            return self._stage_direct(plan, data)
        if isinstance(data, NetRows):
            plan.staging = self.target.stage_rows(
                self.conn, plan.application, plan.group, plan.round_id, data.rows
            )
            return data.counts()
        from syncpoint.spark.stage import write_staging, write_staging_files

        windows = [w.tbl for w in plan.reading]
        origins = any(len(w.origins) > 1 for w in plan.reading)
        if self.target.staging_csv is not None and self._executors_copy():
            plan.staging = "bulk"
            with tempfile.TemporaryDirectory(prefix="syncpoint-stage-") as tmp:
                counts, files = write_staging_files(
                    data,
                    os.path.join(tmp, "rows"),
                    application=plan.application,
                    group=plan.group,
                    round_id=plan.round_id,
                    windows=windows,
                    csv_options=self.target.staging_csv,
                    origins=origins,
                )
                self.target.stage_files(self.conn, files)
            return counts
        plan.staging = "batched"
        url, props = self.target.jdbc()
        return write_staging(
            data,
            url,
            props,
            self.target.q(self.target.idents["staging"]),
            application=plan.application,
            group=plan.group,
            round_id=plan.round_id,
            parallel=vendors.get(self.target.vendor).dialect.JDBC_PARALLEL,
            windows=windows,
            origins=origins,
        )

    def _executors_copy(self) -> bool:
        """Whether Spark's executors may hand the staging rows over as files: the driver must
        read them, which it can where a local master's executors write (this machine's
        disk); a cluster's only where ``spark.stage_copy: always`` says the driver's
        temporary directory is a file system the executors write as well."""
        mode = self.cfg.spark.stage_copy
        if mode != "auto":
            return mode == "always"
        return str(self.spark().sparkContext.master).startswith("local")

    def release(self, data: Any) -> None:
        """Nothing is cached between the steps (the staging job computes the counts)."""

    # -- apply --------------------------------------------------------------------------------
    def apply(self, plan: RoundPlan, staged: dict[int, int]) -> None:
        # an idle window of a table with a position only moves its position: its target is
        # neither described nor created nor locked (a first round creates every target)
        # the tables a staged event cascades to are changed even when their windows are idle
        linked = {t for e in plan.edges for t in (e.parent, e.child)} if plan.events else set()
        busy = [
            w for w in plan.windows if (w.moves and not (w.idle and w.stored)) or w.tbl in linked
        ]
        try:
            for w in busy:
                self._same_shape(plan, w)
                self._own_types(self.sources[w.location], w)
        except WorkFailed as exc:  # before any DDL reaches the target
            self._stop_after_failure(plan, exc)
            raise TableStopped(exc.message, location=exc.location, table=exc.table) from exc
        tables = {}
        for w in busy:
            src = self.sources[w.location]
            self._key(src, w)
            try:
                shape = self._ensure_target(src, w)
                for change in w.ddl:
                    if change.action != "CREATE":
                        shape = self._ddl(src, w, shape, change)
                tables[w.tbl] = apply_table(shape, w.key, self._source_types(src, w), w.renames)
            except (PositionConflict, TransientError):
                raise
            except WorkFailed as exc:
                # the target refused to create the table or take a schema change: stopped
                # as a refused row is, with the target's message (never a loop of failures)
                self.target.rollback(self.conn)
                refused = WorkFailed(
                    exc.message, location=exc.location or self.integrate, table=w.table
                )
                self._stop_after_failure(plan, refused)
                raise TableStopped(
                    f"{exc.message}. The table's rounds stop until this is fixed (see "
                    "syncpoint status)",
                    location=refused.location,
                    table=w.table,
                ) from exc
        targets = list({str(w.target): w.target for w in busy}.values())
        edges = self.target.foreign_keys(self.conn, targets)
        order = fkorder.parents_first(
            [str(t) for t in targets], [(str(c), str(p)) for c, p in edges]
        )
        origin = None
        if self.cfg.locations[self.integrate].capture:
            origin = Location.of(self.cfg, self.integrate).capture_side.set_origin
        from syncpoint.ops import cdr as cdr_ops

        resolve = cdr_ops.steps(self.target, self.conn, busy)
        try:
            for attempt in range(1, DEADLOCK_RETRIES + 1):
                try:
                    self.target.apply(self.conn, plan, staged, tables, order, origin, resolve)
                    break
                except Deadlock as exc:
                    # the database rolled the whole transaction back (positions included):
                    # doing it again is safe, and the other session has gone on meanwhile
                    if attempt == DEADLOCK_RETRIES:
                        raise
                    log.warning(
                        "round %s at %s: %s; applying again (attempt %d of %d)",
                        plan.round_id,
                        self.integrate,
                        exc.message,
                        attempt + 1,
                        DEADLOCK_RETRIES,
                    )
                    time.sleep(DEADLOCK_BACKOFF_S * attempt)
        except (PositionConflict, TransientError):
            raise
        except WorkFailed as exc:
            self._stop_after_failure(plan, exc)
            raise TableStopped(
                f"{exc.message}. The round was rolled back; the table's rounds stop until "
                "this is fixed (see syncpoint status)",
                location=exc.location or self.integrate,
                table=exc.table,
            ) from exc

    def _same_shape(self, plan: RoundPlan, w: TableWindow) -> None:
        """Several sources into one table: a DDL event of one (applied at the target) must
        never change how another's rows are applied. Rows carrying a column the target no
        longer has stop the table with the reason; nothing is left out silently (unless the
        table's ddl_policy is ignore, which asks for exactly that)."""
        if w.policy == ddl.IGNORE or w.tbl not in set(w2.tbl for w2 in plan.reading):
            return
        feeding = [
            loc
            for loc in self.cfg.sources_of(self.integrate)
            if any(str(t.ref) == w.table for t in self.cfg.tables_at(loc))
        ]
        if len(feeding) < 2:
            return
        target = self.target.describe(self.conn, w.target)
        if target is None:
            return  # made from the source's shape in this round
        known = {c.name for c in target.columns}
        for change in w.ddl:  # what this window's own DDL will make of it
            known -= {c.name for c in change.dropped} | {o.name for o, _ in change.renamed}
            known |= {c.name for c in change.added} | {n.name for _, n in change.renamed}
            known |= {c.name for c in change.new_columns}
        known |= set(w.renames.values())
        unknown = sorted(self.target.staged_keys(self.conn, plan.round_id, w.tbl) - known)
        if unknown:
            raise WorkFailed(
                f"rows from {w.location} carry column(s) {', '.join(unknown)} that the target "
                f"{w.target} does not have (another source's schema change altered it?): the "
                f"sources of {w.table} disagree on its shape and nothing was applied. Make the "
                "shapes agree (the same change at every source, or the target adapted), or "
                "set ddl_policy: ignore for the table to leave those values out",
                location=w.location,
                table=w.table,
            )

    def _stop_after_failure(self, plan: RoundPlan, exc: WorkFailed) -> None:
        """Every table of the group stops: a round applies the group in one transaction, and
        going on without the refused table would let its partners arrive without it (what
        a sync group exists to prevent). The refused table carries the target's message,
        the others say which table holds them. The next round tries them all again."""
        hit = [w for w in plan.windows if exc.table in (str(w.target), w.table)] or plan.windows
        why = f"apply failed: {exc}"
        named = {(w.location, w.table) for w in hit}
        held = ", ".join(sorted({w.table for w in hit}))
        stops = [Stop(w.location, w.table, w.after, why) for w in hit]
        stops += [
            Stop(
                w.location,
                w.table,
                w.after,
                f"held with {held} of its sync group {plan.group} (applied together): {why}",
            )
            for w in plan.windows
            if (w.location, w.table) not in named
        ]
        try:
            self.target.record_stops(self.conn, plan.application, plan.group, stops)
        except WorkFailed:
            log.warning("could not record the stop at %s", self.integrate)

    def _source_types(self, src: Source, w: TableWindow) -> dict[str, NType]:
        shape = self._shape(src, w.source)
        parse = vendors.get(src.capture.vendor).types.parse
        out: dict[str, NType] = {}
        for change in w.ddl:
            for c in change.new_columns + change.dropped:
                out[c.name] = parse(c.type)
        for c in shape.columns if shape else ():
            out[c.name] = parse(c.type)
        return out

    def _own_types(self, src: Source, w: TableWindow) -> None:
        """A target of the source's vendor gets the types of one's own the table needs,
        and the labels an enum gained at the source where the table's ddl_policy is
        ``apply``; otherwise labels the target lacks stop the table with that reason."""
        if self.target.vendor != src.capture.vendor:
            return
        types = src.capture.own_types(src.conn, w.source)
        _idle(src.conn)
        lacking = self.target.ensure_types(self.conn, types, w.policy == ddl.APPLY)
        if lacking:
            raise WorkFailed(
                "the source's enum type has labels the target's lacks ("
                + "; ".join(lacking)
                + "): rows using them cannot be applied. Add them at the target (ALTER TYPE "
                "... ADD VALUE) or set the table's ddl_policy to apply",
                location=self.integrate,
                table=w.table,
            )

    def _add_missing(self, src: Source, w: TableWindow, shape: Any) -> Any:
        """A snapshot of a table under ``ddl_policy: apply`` adds the source's columns the
        target lacks, as a round applies a column added at the source (the way back from a
        column the source added with values in its rows, which rounds cannot follow)."""
        source = self._shape(src, w.source)
        missing = [c for c in source.columns if shape.column(c.name) is None] if source else []
        if not missing:
            return shape
        change = ddl.DdlChange("ALTER", ddl.ADDITIVE, "", added=tuple(missing))
        self.target.apply_ddl(self.conn, shape, change, src.capture.vendor)
        log.info(
            "added %s to target %s at %s", ", ".join(c.name for c in missing), w.target,
            self.integrate,
        )  # fmt: skip
        return self.target.describe(self.conn, w.target)

    def _ensure_target(self, src: Source, w: TableWindow) -> Any:
        shape = self.target.describe(self.conn, w.target)
        if shape is not None:
            if (
                self.after_load is not None
                and str(w.target) not in self._owed
                and self.target.extras_pending(self.conn, w.target)
            ):
                # created by a snapshot that did not finish: this one adds what it did not
                extras = shapebase.extras(src.capture.vendor, src.conn, w.source)
                _idle(src.conn)
                self.after_load += self._later(src, w, extras)
            if self.after_load is not None:
                # a snapshot into a table that exists: the enum labels the source's rows
                # hold (one renamed meanwhile), the columns the source added
                self._own_types(src, w)
                if w.policy == ddl.APPLY:
                    shape = self._add_missing(src, w, shape)
            return shape
        if self.target.vendor == src.capture.vendor:
            # the types of one's own its columns are declared with, first
            self.target.ensure_types(self.conn, src.capture.own_types(src.conn, w.source), False)
            _idle(src.conn)
        source = self._shape(src, w.source)
        if source is None:
            raise WorkFailed(
                f"the table does not exist at the source; cannot create the target {w.target}",
                location=src.name,
                table=w.table,
            )
        parse = vendors.get(src.capture.vendor).types.parse
        render = vendors.get(self.target.vendor).types.render
        cols = [
            (c.name, render(parse(c.type), key=c.name in w.key), c.name in w.key or not c.nullable)
            for c in source.columns
        ]
        extras = shapebase.extras(src.capture.vendor, src.conn, w.source)
        _idle(src.conn)
        types = {n: t for n, t, _ in cols}
        defaults = {
            n: created.default_sql(self.target.vendor, d, types[n])
            for n, d in extras.defaults.items()
            if n in types
        }
        pending = src.name if self.after_load is not None else None
        try:
            self.target.create_table(self.conn, w.target, cols, w.key, defaults, pending)
            log.info("created target table %s at %s", w.target, self.integrate)
        except WorkFailed:
            self.target.rollback(self.conn)
            if self.target.describe(self.conn, w.target) is None:
                raise
            # another run created it meanwhile: used as it is
            return self.target.describe(self.conn, w.target)
        later = self._later(src, w, extras)
        if self.after_load is not None:
            self.after_load += later  # a snapshot adds them once the rows are in
        else:
            created.run(later)
        return self.target.describe(self.conn, w.target)

    def _later(self, src: Source, w: TableWindow, extras: Any) -> list[created.Job]:
        """The indexes and foreign keys of a target table created here, and, last, the
        record that a snapshot still owed them cleared."""
        later = created.jobs(
            self.cfg, self.target, self.conn, src.name, w.target, extras, src.capture.vendor
        )
        if self.after_load is not None:
            self._owed.add(str(w.target))
            later.append((2, lambda: self._added(w.target)))
        return later

    def _added(self, target: TableName) -> None:
        self.target.extras_added(self.conn, target)
        self._owed.discard(str(target))

    def _ddl(self, src: Source, w: TableWindow, shape: Any, change: ddl.DdlChange) -> Any:
        """Apply one DDL change at the target (idempotent). A second run doing the same at
        the same moment makes one of the two statements fail: look again and retry once."""
        for attempt in (1, 2):
            try:
                self.target.apply_ddl(self.conn, shape, change, src.capture.vendor)
                break
            except WorkFailed:
                self.target.rollback(self.conn)
                if attempt == 2:
                    raise
                shape = self.target.describe(self.conn, w.target) or shape
        return self.target.describe(self.conn, w.target) or shape


def _cause(exc: BaseException) -> str:
    """The database's words in a failed Spark job's message (its last error line)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if "Error:" in ln]
    return (lines[-1] if lines else str(exc).split("\n", 1)[0] or type(exc).__name__)[:300]


def _text(v: Any) -> str | None:
    if v is None or isinstance(v, str):
        return v
    return bytes(v).decode("utf-8") if isinstance(v, bytes | bytearray | memoryview) else str(v)


def _idle(conn: Any) -> None:
    """End the transaction a driver opened for a read (no snapshot kept, no lock held)."""
    try:
        conn.rollback()
    except Exception as exc:  # noqa: BLE001 - a lost connection shows at the next statement
        log.debug("rollback: %s", exc)
