"""Ticks and reads of the change queue: commit-ordered positions by stamping.

A tick stamps the records *committed* before it (found from a REPEATABLE READ snapshot taken
after the ticker lock) with the new context, so a long transaction lands in a later tick and
nothing is skipped. ``Tick.guaranteed`` comes from ``information_schema.INNODB_TRX``, trusted
only when it shows the tick's own transaction (the list is a cache). Why:
docs/internals.md, "Ticks by stamping".
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pymysql

from syncpoint.config import TableName
from syncpoint.core.model import ChangeRecord, Tick
from syncpoint.errors import LocationError, NotInstalled, StreamIdentityError
from syncpoint.vendors.mariadb import dialect
from syncpoint.vendors.mariadb.names import render
from syncpoint.vendors.mariadb.state import Site, run

CHUNK = 1000
# A tick or purge never waits on application transactions; if a plan ever made one wait,
# fail (transient, retried) within seconds instead of stalling behind a long transaction.
LOCK_WAIT = 10
STALE_TRX_LIST = timedelta(milliseconds=100)
TRX_START_RESOLUTION = timedelta(seconds=1)
# How often a tick re-reads a stale transaction list before it gives up moving the guarantee.
FRESH_LIST_ATTEMPTS = 3
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _utc(dt: datetime | None) -> datetime | None:
    return dt.replace(tzinfo=UTC) if dt is not None else None


def tick(
    conn: Any, site: Site, guaranteed_at: datetime | None = None, written_in: bool = False
) -> Tick:
    """``guaranteed_at``: the guarantee is known already (log capture: the time its drain
    covered), so the open transactions are not read. ``written_in``: records may have been
    written in the new tick already (log capture's drain), so they are counted, not only the
    ones stamped."""
    names = site.names
    cur = conn.cursor()
    conn.commit()  # a tick is a transaction of its own
    cur.execute(f"SET SESSION innodb_lock_wait_timeout = {LOCK_WAIT}")
    cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    # t0: before this transaction starts, so before any refresh of the transaction list that
    # shows it (see tick_clock.sql)
    cur.execute("SELECT UTC_TIMESTAMP(6)")
    t0 = _utc(cur.fetchone()[0])
    assert t0 is not None
    cur.execute("START TRANSACTION")
    try:
        cur.execute(render("queries/tick_lock.sql", names))
        row = cur.fetchone()
        if row is None:
            raise NotInstalled("capture is not installed (no service row)", location=site.location)
        context, previous, max_key = int(row[0]), _utc(row[1]), int(row[2])
        own = None
        for attempt in range(0 if guaranteed_at else FRESH_LIST_ATTEMPTS):
            if attempt:
                time.sleep(STALE_TRX_LIST.total_seconds() * 1.5)
            try:
                cur.execute(render("queries/tick_clock.sql", names))
            except pymysql.err.Error as exc:
                if exc.args and exc.args[0] == 1227:
                    raise LocationError(
                        "ticks read information_schema.INNODB_TRX, which needs the PROCESS "
                        "privilege: GRANT PROCESS ON *.* TO <user>",
                        location=site.location,
                    ) from exc
                raise
            now, oldest, own = cur.fetchone()
            if own:
                break
        if guaranteed_at is not None:
            cur.execute("SELECT UTC_TIMESTAMP(6)")
            now = cur.fetchone()[0]
        made_at = _utc(now)
        assert made_at is not None
        if guaranteed_at is not None:
            guaranteed = guaranteed_at
        elif own:
            # the list was made after t0: a writer missing from it committed before (and the
            # snapshot below sees it) or started after t0
            guaranteed = t0
            if oldest is not None:
                guaranteed = min(guaranteed, oldest.replace(tzinfo=UTC) - TRX_START_RESOLUTION)
        else:
            # a stale list (other sessions keep reading it): nothing new is guaranteed
            guaranteed = previous if previous is not None else EPOCH
        if previous is not None:
            guaranteed = max(guaranteed, previous)
        new = context + 1
        stamped, top = _stamp(cur, site, new)
        if written_in:
            cur.execute(render("queries/tick_count.sql", names), (new,))
            stamped, top = (int(v) for v in cur.fetchone())
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


def _stamp(cur: Any, site: Site, new: int) -> tuple[int, int]:
    """Stamp every committed, unstamped record of the snapshot; (how many, highest key)."""
    pending = render("queries/tick_pending.sql", site.names, raw={"limit": str(CHUNK)})
    after, count = 0, 0
    while True:
        cur.execute(pending, {"after": after})
        keys = [int(r[0]) for r in cur.fetchall()]
        if not keys:
            return count, after
        marks = ", ".join(["%s"] * len(keys))
        cur.execute(render("queries/tick_stamp.sql", site.names, raw={"keys": marks}), [new, *keys])
        count += len(keys)
        after = keys[-1]


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


def changes_query(site: Site, table: TableName, after: int, upto: int) -> str:
    return render(
        "queries/changes_query.sql",
        site.names,
        idents={"db": site.db},
        raw={"after": str(int(after)), "upto": str(int(upto))},
        literals={"table": table.name, "schema": table.schema_ or site.db},
    ).strip()


def backlog_query(site: Site, table: TableName, after: int) -> str:
    return render(
        "queries/backlog_query.sql",
        site.names,
        idents={"db": site.db},
        raw={"after": str(int(after))},
        literals={"table": table.name, "schema": table.schema_ or site.db},
    ).strip()


def _rows(keys: list[int]) -> str:
    """A derived table of the keys as bound parameters, one column ``rk``."""
    more = " UNION ALL VALUES " + ", ".join(["(%s)"] * (len(keys) - 1)) if len(keys) > 1 else ""
    return "SELECT %s AS rk" + more


def purge(conn: Any, site: Site, upto: int) -> int:
    cur = conn.cursor()
    conn.commit()
    cur.execute(f"SET SESSION innodb_lock_wait_timeout = {LOCK_WAIT}")
    cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
    select = render("queries/purge_keys.sql", site.names, raw={"limit": str(CHUNK)})
    total = 0
    try:
        while True:
            cur.execute(select, {"upto": upto})
            keys = [int(r[0]) for r in cur.fetchall()]
            if not keys:
                break
            run(cur, "queries/purge_delete.sql", site.names, keys, raw={"keys": _rows(keys)})
            conn.commit()
            total += len(keys)
        run(cur, "queries/purge_ticks.sql", site.names, {"upto": upto})
        conn.commit()
    finally:
        cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    return total
