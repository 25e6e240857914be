"""Ticks and reads of the change queue: commit-ordered positions by covering key runs.

A tick covers the records *committed* before it (found from a REPEATABLE READ snapshot taken
after the ticker lock): it records the runs of consecutive repl_keys it found as ranges with
the new context (``{prefix}tick_ranges``), and the keys it passed but could not see (a
transaction still open, or rolled back) as holes (``{prefix}tick_holes``), where later
ticks look again. A long transaction lands in a later tick, nothing is skipped, and no
record of the queue is written by a tick. Records stamped one by one (log capture's drain,
and queues of earlier versions) keep their ``context``. ``Tick.guaranteed`` comes from
``information_schema.INNODB_TRX``, trusted only when it shows the tick's own transaction
running the tick's own statement (the list is a cache) and cannot have been cut. Why:
docs/internals.md, "Ticks by key ranges".
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pymysql

from syncpoint.config import TableName
from syncpoint.core.model import ChangeRecord, Tick
from syncpoint.errors import LocationError, NotInstalled, StreamIdentityError, TransientError
from syncpoint.vendors.mariadb import catalog, dialect
from syncpoint.vendors.mariadb.names import render, statements
from syncpoint.vendors.mariadb.state import Site, named_lock, present, run

CHUNK = 1000
# A tick or purge never waits on application transactions; if a plan ever made one wait,
# fail (transient, retried) within seconds instead of stalling behind a long transaction.
LOCK_WAIT = 10
STALE_TRX_LIST = timedelta(milliseconds=100)
TRX_START_RESOLUTION = timedelta(seconds=1)
# How often a tick reads a stale transaction list before it gives up, for this tick, moving
# the guarantee and dropping holes (each wait 0.12 s): while other sessions keep reading the
# list, waiting longer gains nothing, and every tick of a round would pay for it.
FRESH_LIST_ATTEMPTS = 4
# log capture reads the list only to give up holes, when it has some: a few tries
LOG_LIST_ATTEMPTS = 3
# MariaDB's cache behind INNODB_TRX (TRX_I_S_MEM_LIMIT)
TRX_CACHE_LIMIT = 16 * 1024 * 1024
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


# the locations whose range tables are known to exist in this process
_RANGED: set[tuple[str, str, str]] = set()
# the locations whose server was found to hand out consecutive keys, not Galera
_KEYS_CHECKED: set[tuple[str, str, str]] = set()


def ensure_ranges(conn: Any, site: Site) -> None:
    """Make the tick's range and hole tables where capture was installed by a version whose
    ticks stamped every record (looked at once per process and location): each stamped tick
    gets its range, and every key up to max_key that is in no tick yet may still get a
    record (a transaction open then), so it is a hole. The hole table comes last, with its
    hole, in one statement: without it the work is (re)done from the start, so a failure
    half-way leaves nothing a tick would trust (no tick runs before this has passed)."""
    key = (site.location, site.db, site.names.prefix)
    if key in _RANGED:
        return
    names = site.names
    cur = conn.cursor()
    conn.commit()
    with named_lock(cur, site, "ranges", LOCK_WAIT) as held:
        if not held:
            raise TransientError(
                "another process is making the tick ranges of this queue; retrying",
                location=site.location,
            )
        try:
            have = present(cur, names)
            if names.obj("service_context") in have and names.obj("tick_holes") not in have:
                cur.execute(f"DROP TABLE IF EXISTS {dialect.quote(names.obj('tick_ranges'))}")
                ranges = statements("install/055_tick_ranges.sql", names)[0]
                cur.execute(ranges)  # DDL: commits
                cur.execute(f"SET SESSION innodb_lock_wait_timeout = {LOCK_WAIT}")
                # the queue's index read without next-key locks, which would hold the
                # writers' new records back until this commits
                cur.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")  # the next one
                cur.execute(render("queries/tick_lock.sql", names))  # no tick meanwhile
                run(cur, "queries/tick_ranges_stamped.sql", names)
                conn.commit()
                run(cur, "queries/tick_holes_upgrade.sql", names)  # DDL: commits
        except BaseException:
            conn.rollback()
            raise
    _RANGED.add(key)


def _utc(dt: datetime | None) -> datetime | None:
    return dt.replace(tzinfo=UTC) if dt is not None else None


def tick(
    conn: Any, site: Site, guaranteed_at: datetime | None = None, written_in: bool = False
) -> Tick:
    """``guaranteed_at``: the guarantee is known already (log capture: the time its drain
    covered); the open transactions are read only to give up holes, when there are some
    (a few tries; without the PROCESS privilege they stay). ``written_in``: records may
    have been written in the new tick already (log capture's drain), so they are counted,
    not only the ones stamped."""
    names = site.names
    ensure_ranges(conn, site)
    cur = conn.cursor()
    conn.commit()  # a tick is a transaction of its own
    key = (site.location, site.db, names.prefix)
    if key not in _KEYS_CHECKED:
        problem = catalog.key_problem(cur)
        if problem:
            raise LocationError(problem, location=site.location)
        _KEYS_CHECKED.add(key)
    cur.execute(f"SET SESSION innodb_lock_wait_timeout = {LOCK_WAIT}")
    cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    # t0: before this transaction starts, so before any refresh of the transaction list that
    # shows it (see tick_clock.sql)
    cur.execute(render("queries/tick_start.sql", names))
    start, step, offset = cur.fetchone()
    t0 = _utc(start)
    assert t0 is not None
    problem = catalog.step_problem(int(step), int(offset))
    if problem:
        raise LocationError(problem, location=site.location)
    cur.execute("START TRANSACTION")
    try:
        cur.execute(render("queries/tick_lock.sql", names))
        row = cur.fetchone()
        if row is None:
            raise NotInstalled("capture is not installed (no service row)", location=site.location)
        context, previous, max_key = int(row[0]), _utc(row[1]), int(row[2])
        attempts = FRESH_LIST_ATTEMPTS
        if guaranteed_at is not None:
            cur.execute(render("queries/tick_holes_any.sql", names))
            attempts = LOG_LIST_ATTEMPTS if cur.fetchone()[0] else 0
        fresh, oldest, oldest_any = _open_transactions(cur, site, attempts, guaranteed_at is None)
        if guaranteed_at is not None:
            cur.execute("SELECT UTC_TIMESTAMP(6)")
            made_at = _utc(cur.fetchone()[0])
            guaranteed = guaranteed_at
        elif fresh:
            made_at = fresh
            # the list was made in this transaction, after t0: a writer missing from it
            # committed before (and the snapshot below sees it) or started after t0
            guaranteed = t0
            if oldest is not None:
                guaranteed = min(guaranteed, oldest - TRX_START_RESOLUTION)
        else:
            # a stale or possibly cut list: nothing new is guaranteed
            cur.execute("SELECT UTC_TIMESTAMP(6)")
            made_at = _utc(cur.fetchone()[0])
            guaranteed = previous if previous is not None else EPOCH
        assert made_at is not None
        if previous is not None:
            guaranteed = max(guaranteed, previous)
        new = context + 1
        # holes whose keys no open transaction can still fill are dropped: only with a
        # fresh, whole list, and only those found before it (see _cover)
        gone = None
        if fresh:
            gone = oldest_any if oldest_any is not None else t0
        stamped, top = _cover(cur, site, new, max_key, written_in, gone, t0)
        _check_counter(cur, site, max(max_key, top))
        run(
            cur,
            "queries/tick_done.sql",
            names,
            {
                "context": new,
                "guaranteed": dialect.db_time(guaranteed),
                "made_at": dialect.db_time(made_at),
                "max_key": top,
                "records": stamped,
            },
        )
        conn.commit()
        # sampled_at: the moment the list of open transactions is known to describe; a tick
        # is "raced" (guaranteed < sampled_at) only when an open writer held it back.
        return Tick(context=new, guaranteed=guaranteed, sampled_at=t0)
    except BaseException:
        conn.rollback()
        raise


def _open_transactions(
    cur: Any, site: Site, attempts: int, required: bool
) -> tuple[datetime | None, datetime | None, datetime | None]:
    """(the list's time, or None when it is stale or may be cut; the start of the oldest
    other writer; the start of the oldest other transaction), read in the tick's transaction
    after the ticker lock, up to ``attempts`` times (a stale list is read again once the
    cache may have been refreshed). ``required``: trigger capture, whose guarantee comes from
    the list (a missing PROCESS privilege is an error); else without the privilege the holes
    stay."""
    nonce = uuid.uuid4().hex
    for attempt in range(attempts):
        if attempt:
            wait = {"nonce": nonce, "wait": STALE_TRX_LIST.total_seconds() * 1.2}
            cur.execute(render("queries/tick_wait.sql", site.names), wait)
            cur.fetchall()
        try:
            cur.execute(render("queries/tick_clock.sql", site.names), {"nonce": nonce})
        except pymysql.err.Error as exc:
            if exc.args and exc.args[0] == 1227:
                if not required:
                    return None, None, None  # the holes stay (docs/internals.md)
                raise LocationError(
                    "ticks read information_schema.INNODB_TRX, which needs the PROCESS "
                    "privilege: GRANT PROCESS ON *.* TO <user>",
                    location=site.location,
                ) from exc
            raise
        now, oldest, own, oldest_any, *size = cur.fetchone()
        if own and _complete(*(int(v) for v in size)):
            return _utc(now), _utc(oldest), _utc(oldest_any)
    return None, None, None


def _complete(trx: int, trx_text: int, locks: int, lock_text: int, waits: int) -> bool:
    """Whether the transaction list cannot have been cut. MariaDB fills INNODB_TRX (and the
    lock views) into one cache of at most ``TRX_CACHE_LIMIT`` bytes and stops at the first
    transaction that no longer fits, with no warning; only what the cache holds tells. Its
    rows and strings, counted high, must stay under half of it (the other half: the
    cache's row arrays, which keep the size of the largest list ever made)."""
    rows = max(trx, 1024) * 256 + max(locks, 1024) * 256 + max(waits, 1024) * 32
    strings = trx_text + lock_text + 64 * (trx + 3 * locks)
    return rows * 3 // 2 + strings < TRX_CACHE_LIMIT // 2


def _cover(
    cur: Any, site: Site, new: int, after: int, written_in: bool, gone: datetime | None,
    t0: datetime,
) -> tuple[int, int]:  # fmt: skip
    """Cover the snapshot's committed records in no tick yet with tick ``new``: (how many,
    highest key covered). ``after``: the highest key covered before (max_key); above it and in
    the holes below it, the keys found are grouped in runs of consecutive keys, each recorded
    as one range; the keys passed but not seen become holes. ``gone``: holes found before
    ``t0`` and before this time are dropped (every transaction open started later, so none
    can take their keys); None: none is dropped."""
    names = site.names
    params = {"after": after, "new": new}
    cur.execute(render("queries/tick_holes.sql", names))  # takes the snapshot
    holes = [(int(lo), int(hi), since.replace(tzinfo=UTC)) for lo, hi, since in cur.fetchall()]
    runs: list[tuple[int, int, int]] = []
    cur.execute(render("queries/tick_span.sql", names), params)
    lo, hi, n = cur.fetchone()
    parts = []
    if n and int(hi) - int(lo) + 1 == int(n):
        runs.append((int(lo), int(hi), int(n)))  # one run: the usual case, found by its span
    elif n:
        parts.append("queries/tick_new_keys.sql")
    if holes:
        parts.append("queries/tick_hole_keys.sql")
    if written_in:
        parts.append("queries/tick_written_keys.sql")
    if parts:
        keys = " UNION ALL ".join(render(p, names).strip() for p in parts)
        cur.execute(render("queries/tick_islands.sql", names, raw={"keys": keys}), params)
        runs += [(int(a), int(b), int(c)) for a, b, c in cur.fetchall()]
    runs = _merged(runs)
    covered = [(a, b, new, 0) for a, b, c in runs if c]
    top = max([after] + [b for _, b, _ in runs])
    count = sum(c for *_, c in runs)
    if written_in:
        cur.execute(render("queries/tick_count.sql", names), (new,))
        stamped, lowest, highest = (int(v) for v in cur.fetchone())
        if stamped:
            covered.append((lowest, highest, new, 1))
            count += stamped
            top = max(top, highest)
    if covered:
        cur.executemany(render("queries/tick_cover.sql", names), covered)
    if runs or (holes and gone is not None):
        cur.execute("SELECT UTC_TIMESTAMP(6)")
        since = _utc(cur.fetchone()[0])
        assert since is not None
        passed = [(after + 1, top, since)] if top > after else []
        left = [
            h for h in _minus(holes + passed, runs)
            if gone is None or not (h[2] < t0 and h[2] < gone)
        ]  # fmt: skip
        if left != holes:
            run(cur, "queries/tick_holes_clear.sql", names)
            _put_holes(cur, site, left)
    return count, top


def _put_holes(cur: Any, site: Site, holes: list[tuple[int, int, datetime]]) -> None:
    if holes:
        rows = [(lo, hi, dialect.db_time(since)) for lo, hi, since in holes]
        cur.executemany(render("queries/tick_holes_put.sql", site.names), rows)


def _merged(runs: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Runs of disjoint key sets, sorted, adjacent ones joined (lowest, highest, unstamped)."""
    out: list[tuple[int, int, int]] = []
    for a, b, c in sorted(runs):
        if out and out[-1][1] + 1 == a:
            out[-1] = (out[-1][0], b, out[-1][2] + c)
        else:
            out.append((a, b, c))
    return out


def _minus(
    holes: list[tuple[int, int, datetime]], runs: list[tuple[int, int, int]]
) -> list[tuple[int, int, datetime]]:
    """The parts of ``holes`` outside every run (each part keeps its hole's time)."""
    out = []
    for lo, hi, since in sorted(holes):
        start = lo
        for a, b, _ in runs:
            if b < start or a > hi:
                continue
            if a > start:
                out.append((start, a - 1, since))
            start = max(start, b + 1)
        if start <= hi:
            out.append((start, hi, since))
    return out


def _check_counter(cur: Any, site: Site, max_key: int) -> None:
    """The queue's counter must be past every key ever stamped, or keys would repeat."""
    items = site.names.obj("items")
    cur.execute(render("queries/autoinc.sql", site.names), {"name": items})
    row = cur.fetchone()
    if row and row[0] is not None and max_key and int(row[0]) <= max_key:
        raise StreamIdentityError(
            f"the change queue {items} would hand out repl_key {row[0]} again (keys up to "
            f"{max_key} were already used): its counter was reset (TRUNCATE, ALTER TABLE ... "
            "AUTO_INCREMENT, or a restore from an older backup). The stream has regressed: "
            "reinstall capture (a new stream) and take a new snapshot",
            location=site.location,
        )


def changes(conn: Any, site: Site, table: TableName, after: int, upto: int) -> list[ChangeRecord]:
    cur = conn.cursor()
    cur.execute(
        render("queries/changes.sql", site.names),
        {"table": table.name, "schema": table.schema_ or site.db, "after": after, "upto": upto},
    )
    return [ChangeRecord.from_row(r, _utc(r[9])) for r in cur.fetchall()]


def changes_query(site: Site, tables: Sequence[TableName], after: int, upto: int) -> str:
    """The window's SELECT over one table or several (names as literals)."""
    return render(
        "queries/changes_query.sql",
        site.names,
        idents={"db": site.db},
        raw={"after": str(int(after)), "upto": str(int(upto)), **_lists(site, tables)},
    ).strip()


def backlog_query(site: Site, tables: Sequence[TableName], after: int) -> str:
    return render(
        "queries/backlog_query.sql",
        site.names,
        idents={"db": site.db},
        raw={"after": str(int(after)), **_lists(site, tables)},
    ).strip()


def queue_name(site: Site, table: TableName) -> tuple[str, str]:
    """(db_schema, tablename) of the table's records."""
    return (table.schema_ or site.db, table.name)


def _lists(site: Site, tables: Sequence[TableName]) -> dict[str, str]:
    """The tables' names and their distinct schemas as lists of SQL literals (a filter over
    both may match a table of one schema with another's name: the caller leaves it out)."""
    names = dict.fromkeys(t.name for t in tables)
    schemas = dict.fromkeys(queue_name(site, t)[0] for t in tables)
    return {
        # compared byte for byte, as the $lit{} names of the other queries
        "tables": ", ".join(dialect.literal(n, collate=True) for n in names),
        "schemas": ", ".join(dialect.literal(s, collate=True) for s in schemas),
    }


def _rows(keys: list[int]) -> str:
    """A derived table of the keys as bound parameters, one column ``rk``."""
    more = " UNION ALL VALUES " + ", ".join(["(%s)"] * (len(keys) - 1)) if len(keys) > 1 else ""
    return "SELECT %s AS rk" + more


def _pairs(n: int) -> str:
    """A derived table of ``n`` (lo, stamped) pairs as bound parameters: ``rk``, ``st``."""
    more = " UNION ALL VALUES " + ", ".join(["(%s, %s)"] * (n - 1)) if n > 1 else ""
    return "SELECT %s AS rk, %s AS st" + more


def purge(conn: Any, site: Site, upto: int) -> int:
    ensure_ranges(conn, site)
    cur = conn.cursor()
    conn.commit()
    cur.execute(f"SET SESSION innodb_lock_wait_timeout = {LOCK_WAIT}")
    cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
    select = render("queries/purge_keys.sql", site.names, raw={"limit": str(CHUNK)})
    total = 0
    try:
        cur.execute(render("queries/purge_ranges.sql", site.names), {"upto": upto})
        ranges = [tuple(int(v) for v in r) for r in cur.fetchall()]
        conn.commit()
        # range by range, in key order, from past the last key deleted: no chunk walks
        # over the records deleted before it
        for lo, hi, tick_id, stamped in ranges:
            after = lo - 1
            while True:
                params = {"after": after, "hi": hi, "tick": tick_id, "stamped": stamped}
                cur.execute(select, params)
                keys = [int(r[0]) for r in cur.fetchall()]
                if not keys:
                    break
                run(cur, "queries/purge_delete.sql", site.names, keys, raw={"keys": _rows(keys)})
                conn.commit()
                total += len(keys)
                after = keys[-1]
        # the ranges after their records: a range left over covers nothing
        for i in range(0, len(ranges), CHUNK):
            part = ranges[i : i + CHUNK]
            pairs = [v for lo, _, _, stamped in part for v in (lo, stamped)]
            raw = {"keys": _pairs(len(part))}
            run(cur, "queries/purge_range_delete.sql", site.names, pairs, raw=raw)
        run(cur, "queries/purge_ticks.sql", site.names, {"upto": upto})
        conn.commit()
    finally:
        cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    return total
