"""PostgreSQL log capture: logical decoding (``pgoutput``) drained into the trigger
capture's own queue at tick time, so that everything downstream reads ``{p}items`` as it
always does.

No trigger on the application's tables: a publication ``{p}pub`` of the watched tables
(through the partitioned root) and a logical slot ``{p}slot``. A tick first drains the slot
up to the WAL position sampled at its start, in batches; a batch is one transaction that
writes the records of whole source transactions, in commit order, with the end LSN of the
last one (``{p}log_state.decoded``); the slot is advanced only after that commit. A kill in
between decodes the same transactions again and skips those at or below ``decoded``. Then
the ordinary tick (its snapshot sees the batch transactions committed). How and why:
docs/internals.md, "Log capture", PostgreSQL.

This module is the capture role (install, plan, status, tick); the rest of this folder is
``check`` (what validate checks), ``drain`` (the drain, exactly once), ``stream`` (a
follower's drain through one decoding session), ``records`` (decoded transactions to
records), ``queue`` (records into the queue), ``names`` and ``pgoutput`` (the messages).
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg import sql

from syncpoint import failpoints
from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import CaptureStatus, Tick, WatchedTableStatus
from syncpoint.errors import SyncpointError, UsageError
from syncpoint.vendors import kept
from syncpoint.vendors.base import Capture
from syncpoint.vendors.postgres import catalog, dialect, privileges
from syncpoint.vendors.postgres.capture import PostgresCapture, _no_open_transaction, ddl_events
from syncpoint.vendors.postgres.catalog import schema_of
from syncpoint.vendors.postgres.log import check as logcheck
from syncpoint.vendors.postgres.log import drain as logdrain
from syncpoint.vendors.postgres.log import stream as logstream
from syncpoint.vendors.postgres.log import unread as logunread
from syncpoint.vendors.postgres.log.names import LogNames
from syncpoint.vendors.postgres.log.queue import Types

log = logging.getLogger("syncpoint.logcapture")
# a stream that could not be opened is tried again after this long
RETRY_STREAM_S = 60.0
# a follower's reader: "sql" the SQL functions at every tick, "stream" the kept session at
# every tick (benches and tests compare them); else whichever decodes less (``_streams``)
READER = os.environ.get("SYNCPOINT_PG_LOG_READER", "")
# The SQL functions decode from the slot's restart position at every tick; the server moves
# it at its running-transactions records (every 15 s under writes), never past the oldest
# open transaction. The stream decodes each change once but costs the server a message sent
# and a wake-up per commit. The stream is taken when what a tick would decode again (from
# the restart position) is over STREAM_RATIO times what is new since the last tick, and at
# least STREAM_BYTES; the SQL functions again under SQL_RATIO times (or half that). Both
# are averaged over the last ticks (SMOOTH: the newest one's weight), so that the restart
# position's 15 s steps do not switch the reader back and forth.
STREAM_RATIO = 4.0
SQL_RATIO = 3.0
STREAM_BYTES = 1 << 20
SMOOTH = 0.25
_REFUSED: dict[tuple[str, str, str], float] = {}


class _Reading:
    """What a follower's last ticks saw of the slot (the reader's choice)."""

    def __init__(self) -> None:
        self.again = -1.0  # bytes from the restart position to the log's end (averaged)
        self.new = 0.0  # bytes from the confirmed position to the log's end (averaged)
        self.streaming = False


_READING: dict[tuple[str, str, str], _Reading] = {}

# the queue's objects this capture shares with the trigger capture (install/ files)
_QUEUE_FILES = (
    "010_sequence",
    "020_items",
    "030_tables",
    "040_service",
    "100_fn_shape",
    "047_parts",
    "115_fn_stop",
    "117_fn_parts",
    "125_fn_ddl_tables",
    "135_fn_on_drop_start",
    "150_fn_tick",
    "160_fn_snap",
)


class PostgresLogCapture(PostgresCapture):
    def __init__(self, location: str, url: str, prefix: str):
        super().__init__(location, url, prefix)
        self.objects = LogNames(prefix)
        self._types = Types(self.objects)

    @property
    def _o(self) -> LogNames:
        return self.objects  # type: ignore[return-value]

    # -- validate ----------------------------------------------------------------------
    def check(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        problems = Capture.check(self, conn, tables)
        with self._translated(None, conn):
            problems += logcheck.server(self, conn)
            problems += logcheck.tables(self, conn, tables)
            problems += catalog.check_sequence(conn, self.objects)
            problems += privileges.capture(
                conn, self.objects.schema, tables, self.location, log=True
            )
        return problems

    # -- install -----------------------------------------------------------------------
    _UNWATCH = "log/unwatch.sql"
    _WATCH = "log/watch.sql"

    def _objects(self, conn: Any) -> list[str]:
        """The queue's objects (the trigger capture's), then the log's own."""
        o = self._o
        out: list[str] = []
        for f in _QUEUE_FILES:
            out += o.render(f"install/{f}.sql")
        event_triggers = catalog.superuser(conn)
        for rel in o.sql.listing("log/install"):
            if rel.endswith("060_event_triggers.sql") and not event_triggers:
                continue  # DDL then comes from the decoded relation messages
            out += o.render(rel)
        return out

    def _stream_steps(self, conn: Any) -> list[tuple[str, dict[str, Any] | None]]:
        return [(self._o.one("log/state_init.sql"), {"slot": self.slot_name(conn)})]

    def _publish_steps(
        self, conn: Any, refs: list[TableName]
    ) -> list[tuple[str, dict[str, Any] | None]]:
        """The publication, made before the slot (install makes that after these steps)."""
        o = self._o
        steps: list[tuple[str, dict[str, Any] | None]] = []
        if not self._publication(conn):
            steps.append((o.one("log/publication_create.sql"), None))
        if refs:
            names = sql.SQL(", ").join(sql.Identifier(schema_of(r), r.name) for r in refs)
            steps.append(
                (o.one("log/publication_set.sql", raw={"tables": names.as_string(conn)}), None)
            )
        return steps

    def _publication(self, conn: Any) -> tuple[Any, ...] | None:
        row = conn.execute(self._o.one("log/publication.sql"), {"pub": self._o.name("pub")})
        found = row.fetchone()
        return None if found is None else tuple(found)

    def slot_name(self, conn: Any) -> str:
        """Slots are named across the whole server, publications per database: the slot's
        name carries a digest of the database's, so that the same prefix in two databases
        of one server gets two slots."""
        digest = hashlib.sha1(str(conn.info.dbname).encode()).hexdigest()[:10]
        return f"{self._o.name('slot')}_{digest}"

    def slot_info(self, conn: Any) -> tuple[Any, ...] | None:
        row = conn.execute(self._o.one("log/slot.sql"), {"slot": self.slot_name(conn)}).fetchone()
        return None if row is None else tuple(row)

    def plan(self, conn: Any, tables: list[TableConfig]) -> list[str]:
        with self._translated(None, conn):
            steps = self._install_steps(conn, tables)
            cur = psycopg.ClientCursor(conn)
            out = [s if p is None else cur.mogrify(s, p) for s, p in steps]
            if self.slot_info(conn) is None:
                out.append(
                    cur.mogrify(self._o.one("log/slot_create.sql"), {"slot": self.slot_name(conn)})
                )
            return out

    def install(self, conn: Any, tables: list[TableConfig]) -> None:
        _no_open_transaction(conn, "install")
        o = self._o
        with self._translated(None, conn):
            fresh = not _has_state(conn, o)
            refused = [p for p in logcheck.tables(self, conn, tables) if "replica identity" in p]
        if refused:
            raise UsageError("; ".join(refused))
        current = ""
        try:
            with conn.transaction():
                for stmt, params in self._install_steps(conn, tables):
                    current = str(params.get("table", "")) if params else ""
                    conn.execute(stmt, params)
        except psycopg.Error as exc:
            raise dialect.translate(exc, self.location, current or None) from exc
        try:
            with self._translated(None, conn):
                self._make_slot(conn)
        except BaseException:
            if fresh:  # all or nothing: what this call made goes again
                self.uninstall(conn)
            raise

    def _make_slot(self, conn: Any) -> None:
        o = self._o
        slot = self.slot_name(conn)
        found = self.slot_info(conn)
        if found is not None and found[5] != "lost":
            conn.commit()
            return
        state = conn.execute(o.one("log/state_peek.sql")).fetchone()
        conn.commit()
        if found is not None:
            conn.execute(o.one("log/slot_drop.sql"), {"slot": slot})
            conn.commit()
        (lsn,) = conn.execute(o.one("log/slot_create.sql"), {"slot": slot}).fetchone()
        conn.commit()
        with conn.transaction():
            if state is not None and state[2] is not None:
                # the slot of an earlier install was lost: what it held is gone, so this is
                # a new stream (positions of the old one are refused, snapshot is the way)
                for stmt in o.render("log/new_stream.sql"):
                    conn.execute(stmt, {"stream_id": uuid.uuid4().hex})
            conn.execute(o.one("log/state_started.sql"), {"slot": slot, "lsn": lsn})

    def uninstall(self, conn: Any) -> None:
        _no_open_transaction(conn, "uninstall")
        o = self._o
        with self._translated(None, conn):
            self._released(conn)
            conn.execute(o.one("log/slot_drop.sql"), {"slot": self.slot_name(conn)})
            conn.commit()
            with conn.transaction():
                conn.execute(o.one("queries/lock_timeout.sql"))
                conn.execute(
                    o.one("queries/lock.sql"), {"key": f"syncpoint:{o.schema}.{self.prefix}"}
                )
                for stmt in o.render("log/uninstall.sql"):
                    conn.execute(stmt)
                for stmt in o.folder("uninstall"):
                    conn.execute(stmt)

    def _released(self, conn: Any, wait_s: float = 10.0, quiet: bool = False) -> None:
        """Wait for a session streaming the slot to end (a follower stopped just now: its
        server process ends a moment later); a follower still running is named (``quiet``:
        the wait just ends, a tick that finds the slot busy waits for it its own way)."""
        deadline = time.monotonic() + wait_s
        while True:
            found = self.slot_info(conn)
            if not conn.autocommit:
                conn.commit()
            if found is None or found[7] is None:
                return
            if quiet and time.monotonic() > deadline:
                return
            if time.monotonic() > deadline:
                raise UsageError(
                    f"the replication slot {self.slot_name(conn)} is read by another session "
                    f"(pid {found[7]}) at {self.location}: stop the follower (run --follow) "
                    "first"
                )
            time.sleep(0.2)

    def uninstall_plan(self, conn: Any) -> list[str]:
        o = self._o
        with self._translated(None, conn):
            cur = psycopg.ClientCursor(conn)
            return [
                cur.mogrify(o.one("log/slot_drop.sql"), {"slot": self.slot_name(conn)}),
                *o.render("log/uninstall.sql"),
                *o.folder("uninstall"),
            ]

    # -- status ------------------------------------------------------------------------
    def status(self, conn: Any) -> CaptureStatus:
        o = self._o
        with self._translated(None, conn):
            if not catalog.installed(conn, o) or not _has_state(conn, o):
                return CaptureStatus(installed=False)
            sid, _loc, ctx, *_ = conn.execute(o.one("queries/service_read.sql")).fetchone()
            pending = {
                (s, n): int(c) for s, n, c in conn.execute(o.one("queries/status_pending.sql"))
            }
            rows = conn.execute(o.one("log/status_tables.sql"))
            tables = []
            for schema, name, st, actions, debug, reason in rows.fetchall():
                tables.append(
                    WatchedTableStatus(
                        table=f"{schema}.{name}",
                        status=f"{st}: {reason}" if reason and st != "OK" else st,
                        actions=actions,
                        trigger_name=None,
                        pending=pending.get((schema, name), 0),
                        debug=int(debug),
                    )
                )
            ddl = ddl_events(conn, o)
            problems = catalog.check_sequence(conn, o)
            retained = self.retained(conn)
            if retained.get("lost"):
                problems.append(str(retained["lost"]))
        return CaptureStatus(
            installed=True,
            stream_id=sid,
            context=int(ctx),
            pending=sum(pending.values()),
            tables=tables,
            ddl_events=ddl,
            problems=problems,
            log=retained,
        )

    def retained(self, conn: Any) -> dict[str, Any]:
        """What the slot holds back: WAL bytes from its restart position, seconds since it
        last moved, its wal_status, and why capture stopped if it did."""
        o = self._o
        state = conn.execute(o.one("log/state_peek.sql")).fetchone()
        slot = self.slot_info(conn)
        out: dict[str, Any] = {"slot": self.slot_name(conn), "publication": o.name("pub")}
        if state is not None:
            out["decoded_lsn"] = str(state[1])
            out["lost"] = state[5]
            if state[4] is not None:
                out["age_seconds"] = _age(state[4])
        if slot is None:
            out["lost"] = out.get("lost") or logdrain.lost_text(self.slot_name(conn), "was dropped")
            return out
        out["wal_status"] = slot[5]
        out["retained_bytes"] = int(slot[6] or 0)
        out["unread_bytes"] = unread_bytes(conn, o, slot[3], out.get("decoded_lsn"))
        if out["unread_bytes"] and state is not None and not out.get("lost"):
            found = logunread.oldest_unread(
                conn,
                o,
                self.slot_name(conn),
                dialect.quote(o.name("pub")),
                f"syncpoint:log:{o.schema}.{self.prefix}",
                _lsn(str(state[1])),
            )
            if found is not None:
                out["unread_oldest"] = found
        if slot[5] == "lost":
            out["lost"] = out.get("lost") or logdrain.lost_text(
                self.slot_name(conn), "was invalidated"
            )
        return out

    def status_tick(self, conn: Any) -> Tick | None:
        return None  # a tick drains the slot: status must not write

    def backlog_query(self, table: TableName, after: int) -> str | None:
        return None  # the slot is drained by ticks only: status counts up to the newest one

    def poll_ddl(self, conn: Any) -> int:
        """DDL comes with the log (event triggers, or relation messages without); what the
        log does not show (a partition's TRUNCATE or rows attached before capture saw the
        partition, a table out of the publication, a replica identity removed) is checked
        here, in a transaction of its own: the tables it breaks stop (STOP records)."""
        _no_open_transaction(conn, "poll_ddl")
        with self._translated():
            check, has_check = self._o.render("log/check.sql")
            installed = (
                catalog.installed(conn, self.objects)
                and _has_state(conn, self._o)
                and bool(conn.execute(has_check).fetchone()[0])
            )
            conn.rollback()
            if not installed:
                return 0
            with conn.transaction():
                (stopped,) = conn.execute(check).fetchone()
        return int(stopped)

    # -- the stream --------------------------------------------------------------------
    def tick(self, conn: Any) -> Tick:
        """Drain the slot into the queue, then the ordinary tick, its guaranteed time
        lowered to what the drain read: with the SQL functions (drain.py), or through the
        session kept open while a follower runs (stream.py) when that decodes less
        (``_streams``)."""
        _no_open_transaction(conn, "tick")
        autocommit = conn.autocommit
        conn.autocommit = True  # explicit transactions, in one pipeline (drain.py)
        try:
            with self._translated():
                slot = self.slot_name(conn)
                streams = kept.active() and READER != "sql" and self._streams(conn, slot)
                session = self._session(slot) if streams else None
                if session is not None:
                    streamed = logstream.StreamDrain(self._o, self._types, self.location,
                                                     self.prefix, slot)  # fmt: skip
                    try:
                        lowered = streamed.stream(conn, session, self._queue_tick)
                    except BaseException:
                        kept.drop(self._session_key)  # the next tick starts a new session
                        raise
                else:
                    drain = logdrain.Drain(self._o, self._types, self.location, self.prefix,
                                           slot)  # fmt: skip
                    lowered = drain.run(conn, self._queue_tick)
                context, guaranteed, made_at = lowered.fetchone()
        finally:
            if not conn.broken:
                if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    conn.execute("ROLLBACK")
                conn.autocommit = autocommit
        return Tick(
            context=int(context),
            guaranteed=guaranteed.astimezone(UTC),
            sampled_at=made_at.astimezone(UTC),
        )

    @property
    def _session_key(self) -> tuple[str, str, str]:
        return ("postgres-log", self.url, self.prefix)

    def _streams(self, conn: Any, slot: str) -> bool:
        """Whether a follower's tick reads the slot through the kept session: the SQL
        functions cost the server least (one call a tick, no message sent, no walsender
        woken at each commit) while the WAL they decode again from the slot's restart
        position is small beside what is new; an open transaction holding that position
        back, or ticks much more frequent than its moves, make the stream cheaper (see
        STREAM_RATIO). The slot is left to the other reader only between ticks, after this
        process stored what it read and told the slot: a switch is as safe as a kill
        between ticks (failpoint log_reader_switch)."""
        if READER == "stream":
            return True
        key = self._session_key
        st = _READING.setdefault(key, _Reading())
        row = conn.execute(self._o.one("log/reader.sql"), {"slot": slot}).fetchone()
        if row is None or row[0] is None:
            want = False  # the SQL functions tell what became of the slot
        else:
            again, new = float(row[0]), float(max(row[1] or 0, 0))
            if st.again < 0:
                st.again, st.new = again, new
            else:
                st.again += SMOOTH * (again - st.again)
                st.new += SMOOTH * (new - st.new)
            # leaving the stream takes less than taking it (a switch costs a session's
            # start, which decodes from the restart position once)
            ratio, least = (SQL_RATIO, STREAM_BYTES / 2) if st.streaming else (
                STREAM_RATIO, STREAM_BYTES)  # fmt: skip
            want = st.again >= least and st.again > ratio * st.new
        if want != st.streaming:
            log.info("%s: the slot %s is read %s from now on (about %.0f bytes from its "
                     "restart position to the log's end, %.0f new at a tick)", self.location,
                     slot, "through a kept session" if want else "with the SQL functions",
                     st.again, st.new)  # fmt: skip
            st.streaming = want
            if not want:
                kept.drop(key)
                self._released(conn, wait_s=5.0, quiet=True)
            failpoints.hit("log_reader_switch")
        return want

    def _session(self, slot: str) -> logstream.Session | None:
        """The kept session streaming the slot, made if none; None (this tick reads the
        slot with the SQL functions) when it cannot be made, with the reason logged."""
        o = self._o
        if _REFUSED.get(self._session_key, 0.0) > time.monotonic():
            return None
        try:
            found = kept.session(
                self._session_key,
                lambda: logstream.Session(self.url, slot, dialect.quote(o.name("pub")),
                                          self.location),  # fmt: skip
            )
        except logstream.Busy as exc:
            log.info("%s: the slot is streamed by another session (%s): this tick waits "
                     "for it", self.location, exc)  # fmt: skip
            return None
        except SyncpointError as exc:
            # a dropped or lost slot, say: the SQL reader tells it as such; tried again a
            # minute later (not at every tick, nor warned of at every tick)
            _REFUSED[self._session_key] = time.monotonic() + RETRY_STREAM_S
            log.warning("%s: cannot stream the slot %s (%s): ticks read it with the SQL "
                        "functions for %.0f s", self.location, slot, exc,
                        RETRY_STREAM_S)  # fmt: skip
            return None
        return found  # type: ignore[return-value]

    def _queue_tick(self, conn: Any, g: datetime, advance: bool = True) -> Any:
        """The ordinary tick, its guaranteed time lowered to ``g``, in one transaction
        queued in the drain's pipeline; the cursor whose row is the tick. ``advance``: the
        slot moved to what the queue stores (not while a session streams it: that session
        confirms it)."""
        o = self._o
        conn.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
        if advance:  # past the drain's last batch (committed): before the tick's snapshot
            conn.execute(o.one("log/advance.sql"), {"slot": self.slot_name(conn)})
        conn.execute(o.one("queries/tick.sql"))
        lowered = conn.execute(o.one("log/tick_lowered.sql"), {"g": g})
        conn.execute(o.one("log/service_lowered.sql"), {"g": g})
        conn.execute("COMMIT")
        return lowered

    def set_origin(self, conn: Any, origin: str | None) -> None:
        if conn.autocommit and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            raise UsageError("set_origin() works inside an open transaction")
        with self._translated():
            conn.execute(self._o.one("log/origin.sql"), {"origin": origin or ""})


def _lsn(text: str) -> int:
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) + int(lo, 16)


def unread_bytes(conn: Any, o: LogNames, confirmed: str | None, decoded: str | None) -> int:
    """WAL bytes from capture's read position to the server's current one (the log's own
    distance: it grows while nothing reads, whatever the rounds do)."""
    row = conn.execute(
        o.one("log/unread.sql"),
        {"confirmed": confirmed or "0/0", "decoded": decoded or "0/0"},
    ).fetchone()
    return max(0, int(row[0] or 0))


def _has_state(conn: Any, o: LogNames) -> bool:
    return bool(
        conn.execute(o.one("log/installed.sql"), {"state": o.qualified("log_state")}).fetchone()[0]
    )


def _age(at: datetime) -> float:
    return max(0.0, (datetime.now(UTC) - at).total_seconds())
