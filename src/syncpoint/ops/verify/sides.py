"""One target table and the source tables feeding it, as ``verify`` compares them: the
rows read at each side (``vendors/<v>/sql/snapshot/``), the ranges of the partition column,
the differences found in them, and their repair."""

from __future__ import annotations

import json
import math
import os
import uuid
from dataclasses import dataclass
from typing import Any

from syncpoint import vendors
from syncpoint.config import ChannelConfig
from syncpoint.ops.round import GroupRound
from syncpoint.ops.snapshot.plan import Pair
from syncpoint.ops.verify import canon, driver
from syncpoint.vendors.integratebase import apply_table
from syncpoint.vendors.snapshotbase import RowSource, sql, verify_source

LIMIT = 10_000  # differing rows read back to the driver, at most
RANGES = 64
ROWS_PER_RANGE = 250
# a table of at most this many rows (on its larger side) is compared by this process, not
# by Spark jobs (``driver.py``); 0 sends every table to Spark
DRIVER_ROWS = int(os.environ.get("SYNCPOINT_VERIFY_DRIVER_ROWS", "50000"))
# where the per-range figures were summed in the databases, the differing ranges' rows are
# compared by this process up to this many (a Spark job beyond): a few differences in a
# large table then cost a read of their ranges, not a Spark session
DIFF_DRIVER_ROWS = int(os.environ.get("SYNCPOINT_VERIFY_DIFF_DRIVER_ROWS", "200000"))


def ranges_for(rows: int) -> int:
    return max(1, min(RANGES, math.ceil(rows / ROWS_PER_RANGE)))


@dataclass
class Difference:
    key: list[Any]
    kind: str  # missing | extra | different
    columns: list[str]
    source: str | None  # the source's content (JSON text), for repair
    target: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "columns": self.columns}


@dataclass
class _Read:
    vendor: str
    url: str
    props: dict[str, str]
    rows: RowSource
    parallel: bool


class TableCheck:
    def __init__(self, cfg: ChannelConfig, pairs: list[Pair], spark: Any):
        self.cfg, self.pairs = cfg, pairs
        first = pairs[0]
        self.integrate = first.integrate
        self.steps = GroupRound(cfg, first.integrate, "verify", [first.table], spark)
        self.steps.open()
        self.target, self.conn = self.steps.target, self.steps.conn
        src = self.steps.source(first.location)
        w = self.steps._window(0, first.location, first.table, 0, 0, False, "")
        w.key = first.key
        self.window = w
        self.target_name = str(w.target)
        self.shape = self.target.describe(self.conn, w.target)
        have = {c.name for c in self.shape.columns} if self.shape else set()
        self.key = list(first.key)
        self.columns = [c.name for c in first.shape.columns if c.name in have]
        self.padded = self._padded()
        self.part = first.partition
        self.integer = first.integer
        self.sources = [self._read_source(p) for p in pairs]
        self.targets = [self._read_target()] if self.shape else []
        self.lo, self.hi, self.rows = self._bounds()
        self.range_count = ranges_for(self.rows) if self.integer else 1
        span = (self.hi - self.lo + 1) if self.hi is not None else 1
        self.step = max(1, math.ceil(span / self.range_count))
        self.differing_ranges: list[int] = []
        self._first_src = src
        self.on_driver = self.rows <= DRIVER_ROWS
        self.in_db = self._sums_in_db()
        self._range_rows: dict[int, int] = {}  # rows per differing range (summed in the db)

    def _sums_in_db(self) -> bool:
        """Whether each side's per-range figures can be summed inside its database: one
        vendor that can (``ROW_SUMS_IN_DB``) on every side, rows written without a
        ``finish`` step, and the same columns of the same types in the same order, so an
        equal row is the same text on both sides."""
        v = self.target.vendor
        reads = self.sources + self.targets
        if not self.targets or any(r.vendor != v or r.rows.finish for r in reads):
            return False
        if not getattr(vendors.get(v).dialect, "ROW_SUMS_IN_DB", False) or self.shape is None:
            return False
        mine = [(c.name, c.type) for c in self.shape.columns]
        return all([(c.name, c.type) for c in p.shape.columns] == mine for p in self.pairs)

    def _padded(self) -> frozenset[str]:
        """Target columns of a fixed-length text type whose trailing blanks the target
        vendor does not keep as part of the value (it pads or strips them): compared
        without them, as the target itself compares its values."""
        v = vendors.get(self.target.vendor)
        if self.shape is None or getattr(v.dialect, "CHAR_TRAILING_BLANKS_COUNT", True):
            return frozenset()
        return frozenset(c.name for c in self.shape.columns if v.types.blank_padded(c.type))

    def close(self) -> None:
        self.steps.close()

    # -- reading ------------------------------------------------------------------------
    def _read_source(self, p: Pair) -> _Read:
        s = self.steps.source(p.location)
        rows = verify_source(s.capture.vendor, s.conn, p.table.ref, self.cfg.prefix)
        s.conn.rollback()
        url, props = s.capture.jdbc()
        par = bool(vendors.get(s.capture.vendor).dialect.JDBC_PARALLEL)
        return _Read(s.capture.vendor, url, props, rows, par)

    def _read_target(self) -> _Read:
        t = self.target
        rows = verify_source(t.vendor, self.conn, self.window.target, self.cfg.prefix)
        t.rollback(self.conn)
        url, props = t.jdbc()
        return _Read(t.vendor, url, props, rows, bool(vendors.get(t.vendor).dialect.JDBC_PARALLEL))

    def _part_sql(self, r: _Read) -> str:
        return f"sp_row.{vendors.get(r.vendor).dialect.quote(self.part)}" if self.integer else "0"

    def _bounds(self) -> tuple[int, int | None, int]:
        lo: int | None = None
        hi: int | None = None
        rows = 0
        reads = [
            (r, self.steps.source(p.location).conn)
            for r, p in zip(self.sources, self.pairs, strict=True)
        ]
        reads += [(r, self.conn) for r in self.targets]
        for r, conn in reads:
            cur = conn.cursor()
            part = self._part_sql(r).replace("sp_row.", "")
            cur.execute(sql(r.vendor, "bounds", part=part, table=r.rows.table))
            mn, mx, n = cur.fetchone()
            conn.rollback()
            rows = max(rows, int(n or 0))
            if mn is not None:
                lo = int(mn) if lo is None else min(lo, int(mn))
                hi = int(mx) if hi is None else max(hi, int(mx))
        return (lo or 0), hi, rows

    def _side(self, r: _Read, ranges: list[int] | None) -> Any:
        from syncpoint.spark.verify import Side

        q = self._query(r, ranges)
        return Side(
            r.url, r.props, q, r.rows.session_init, r.rows.finish, self.lo, self.hi, r.parallel
        )

    def _query(self, r: _Read, ranges: list[int] | None) -> str:
        """The SELECT of one side's rows (all, or those of ``ranges``)."""
        p = self._part_sql(r)
        if ranges is None or not self.integer:
            rng = "1 = 1"
        else:
            parts = []
            for b in ranges:
                if b < 0:
                    parts.append(f"{p} IS NULL")
                else:
                    a = self.lo + b * self.step
                    parts.append(f"({p} >= {int(a)} AND {p} < {int(a + self.step)})")
            rng = " OR ".join(parts) or "1 = 0"
        extra = f", {r.rows.letters} AS sp_fix" if r.rows.letters else ""
        return sql(
            r.vendor,
            "select",
            part=p,
            content=r.rows.content,
            extra=extra,
            table=r.rows.table,
            range=rng,
        )

    # -- comparing ----------------------------------------------------------------------
    def differences(self, ranges: list[int] | None) -> list[Difference]:
        """All differences (``ranges`` None: find the differing ranges first), or those in
        the ranges given."""
        if self.on_driver:
            return self._driver_differences(ranges)
        if self.in_db:
            if ranges is None:
                reads = zip(self.sources, self.pairs, strict=True)
                a = self._db_sums([(r, self.steps.source(p.location).conn) for r, p in reads])
                b = self._db_sums([(r, self.conn) for r in self.targets])
                ranges = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
                self.differing_ranges = ranges
                self._range_rows = {
                    k: max(a.get(k, (0, 0))[0], b.get(k, (0, 0))[0]) for k in ranges
                }
            if not ranges:
                return []
            if sum(self._range_rows.get(k, 0) for k in ranges) <= DIFF_DRIVER_ROWS:
                return self._driver_differences(ranges)
        from syncpoint.spark.verify import range_sums, row_diffs

        spark = self.steps.spark()
        if ranges is None:
            a = range_sums(
                spark,
                [self._side(r, None) for r in self.sources],
                self.key,
                self.columns,
                self.lo,
                self.step,
                self.padded,
            )
            b = (
                range_sums(
                    spark,
                    [self._side(r, None) for r in self.targets],
                    self.key,
                    self.columns,
                    self.lo,
                    self.step,
                    self.padded,
                )
                if self.targets
                else {}
            )
            ranges = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            self.differing_ranges = ranges
        if not ranges:
            return []
        found = row_diffs(
            spark,
            [self._side(r, ranges) for r in self.sources],
            [self._side(r, ranges) for r in self.targets],
            self.key,
            self.columns,
            LIMIT,
            self.padded,
        )
        return [self._difference(k, src, dst) for k, src, dst in found]

    def _difference(self, k: str, src: str | None, dst: str | None) -> Difference:
        key = json.loads(k)
        if dst is None:
            return Difference(key, "missing", [], src, None)
        if src is None:
            return Difference(key, "extra", [], None, dst)
        ra = canon.row(src, self.columns, self.padded)
        rb = canon.row(dst, self.columns, self.padded)
        cols = [c for c in self.columns if ra[c] != rb[c]]
        return Difference(key, "different", cols, src, dst)

    def _db_sums(self, reads: list[tuple[_Read, Any]]) -> dict[int, tuple[int, int]]:
        """Per range: row count and hash sum of the rows of ``reads`` together, each side
        summed in its own database (``sql/snapshot/range_sums.sql``)."""
        out: dict[int, tuple[int, int]] = {}
        for r, conn in reads:
            p = self._part_sql(r)
            bucket = (
                f"CASE WHEN {p} IS NULL THEN -1 ELSE "
                f"floor(({p} - {int(self.lo)})::numeric / {int(self.step)})::bigint END"
                if self.integer
                else "-1"
            )
            q = sql(
                r.vendor, "range_sums", bucket=bucket, content=r.rows.content, table=r.rows.table
            )
            cur = conn.cursor()
            try:
                if r.rows.session_init:
                    cur.execute(r.rows.session_init)  # undone with the read transaction
                cur.execute(q)
                for b, n, s in cur.fetchall():
                    n0, s0 = out.get(int(b), (0, 0))
                    out[int(b)] = (n0 + int(n), s0 + int(s or 0))
            finally:
                conn.rollback()
        return out

    def _driver_differences(self, ranges: list[int] | None) -> list[Difference]:
        """``differences`` of a small table, read and compared by this process."""
        sides: list[driver.Seen] = [{}, {}]
        reads = [
            (0, r, self.steps.source(p.location).conn)
            for r, p in zip(self.sources, self.pairs, strict=True)
        ]
        reads += [(1, r, self.conn) for r in self.targets]
        for i, r, conn in reads:
            driver.read_side(
                conn,
                self._query(r, ranges),
                r.rows.session_init,
                r.rows.finish,
                self.key,
                self.columns,
                self.padded,
                sides[i],
            )
        found = driver.compare(sides[0], sides[1], LIMIT, self.columns, self.padded)
        if ranges is None:
            self.differing_ranges = sorted(
                {driver.bucket(p, self.lo, self.step) if self.integer else -1 for *_, p in found}
            )
        return [self._difference(k, src, dst) for k, src, dst, _ in found]

    def positions(self) -> dict[str, int]:
        """The applied position of each source of this table at the target (read before a
        re-check reads rows: the target holds at least these changes)."""
        app = self.cfg.application
        stored = {
            (p.location, p.table): p.context
            for a, p in self.target.positions(self.conn)
            if a == app
        }
        return {p.location: stored.get((p.location, str(p.table.ref)), 0) for p in self.pairs}

    def stopped(self) -> dict[str, str]:
        """The sources of this table whose rounds are stopped at the target, with the
        reason: their changes are not on their way until the stop is cleared."""
        mine = {(p.location, str(p.table.ref)) for p in self.pairs}
        return {
            s["location"]: s["reason"]
            for s in self.target.stops(self.conn, self.cfg.application)
            if (s["location"], s["table"]) in mine
        }

    def in_flight(self, since: dict[str, int], stopped: dict[str, str]) -> set[str]:
        """Keys (as ``canon`` texts) with change records after ``since`` up to a tick made
        now, after the re-check read its rows: a difference of such a key may be a change
        still on its way, not a difference. A stopped source has nothing on its way: a
        table whose rounds stopped must not look equal because its changes wait."""
        keys: set[str] = set()
        for p in self.pairs:
            if p.location in stopped:
                continue
            s = self.steps.source(p.location)
            tick = s.capture.tick(s.conn)
            s.conn.rollback()
            for rec in s.capture.changes(s.conn, p.table.ref, since[p.location], tick.context):
                for c in (rec.content, rec.oldcontent):
                    if c and rec.db_action in ("INSERT", "UPDATE", "DELETE"):
                        keys.add(canon.key_and_hash_text(_text(c), self.key, self.key)[0])
            s.conn.rollback()
        return keys

    # -- repair ---------------------------------------------------------------------------
    def repair(self, diffs: list[Difference]) -> int:
        """Write the source's rows of missing and different keys, delete extra keys: one
        target transaction through the rounds' staging and apply statements."""
        t, conn, app = self.target, self.conn, self.cfg.application
        shape = self.steps._ensure_target(self._first_src, self.window)
        table = apply_table(shape, self.key, self.steps._source_types(self._first_src, self.window))
        round_id = uuid.uuid4().hex
        sync = f"verify {self.target_name}"[:200]
        origin = None
        if self.cfg.locations[self.integrate].capture:
            from syncpoint.ops.location import Location

            origin = Location.of(self.cfg, self.integrate).capture_side
        t.begin(conn)
        try:
            if origin:
                origin.set_origin(conn, self.pairs[0].location)
            for d in diffs:
                if d.kind == "extra":
                    t.run(conn, "repair_stage", (app, sync, round_id, "D", d.target))
                else:
                    t.run(conn, "repair_stage", (app, sync, round_id, "U", d.source))
            t.upsert(conn, round_id, self.window, table)
            t.delete(conn, round_id, self.window, table)
            t.run(conn, "staging_done", (round_id,))
            if origin:
                origin.set_origin(conn, None)
            t.commit(conn)
        except BaseException:
            t.rollback(conn)
            raise
        return len(diffs)


def _text(v: Any) -> str:
    if isinstance(v, bytes | bytearray | memoryview):
        return bytes(v).decode("utf-8")
    return v if isinstance(v, str) else json.dumps(v)
