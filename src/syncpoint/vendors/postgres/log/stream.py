"""The streaming reader of PostgreSQL log capture: one decoding session of the slot kept
open across the ticks of ``run --follow`` (``kept.py``), over the streaming replication
protocol (psycopg2's replication connection; psycopg 3 has no client for it).

The SQL functions start a decoding session at every call, and a session decodes the
write-ahead log from the slot's restart position, which cannot pass the oldest transaction
still open at the source: one idle-in-transaction session makes every tick decode more. A
session kept open decodes each change once, however old the oldest open transaction is.

A tick samples the horizon as the SQL reader does, then reads the stream until the server
says it read the log past the horizon (a keepalive's, or a message's, WAL position) and no
transaction is half received. The whole transactions received go into the queue in one
transaction that also stores the end LSN of the last (``{p}log_state.decoded``); only after
its commit does the reader send the feedback (flush position) that lets the server forget
them. A kill before the commit stores nothing and the next session sends the same
transactions again; a kill between the commit and the feedback makes the next session send
transactions already stored, which ``decoded`` skips. How and why: docs/internals.md, "Log
capture", PostgreSQL.
"""

from __future__ import annotations

import logging
import select
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import psycopg
import psycopg2
import psycopg2.errors
import psycopg2.extensions
import psycopg2.extras

from syncpoint import failpoints
from syncpoint.errors import LocationError, TransientError, UsageError
from syncpoint.vendors.postgres import dialect
from syncpoint.vendors.postgres.log import pgoutput
from syncpoint.vendors.postgres.log import queue as logqueue
from syncpoint.vendors.postgres.log.drain import BATCH, Drain
from syncpoint.vendors.postgres.log.records import Records, watched

log = logging.getLogger("syncpoint.logstream")

# how often a session between ticks tells the server it is alive (the server ends a
# replication connection silent for wal_sender_timeout, 60 s by default)
ALIVE_S = 2.0
# how often a tick waiting for the server to reach its horizon asks where it is
ASK_S = 0.05
# a tick whose stream brings nothing new for this long gives up (the next one reconnects)
STALL_S = 120.0
OUTPUT_SETTINGS = (
    "-c TimeZone=UTC -c extra_float_digits=1 -c IntervalStyle=postgres -c DateStyle=ISO,MDY "
    "-c bytea_output=hex"
)


class Busy(Exception):
    """Another session reads the slot (another follower's, or one just killed, whose
    server process has not ended yet)."""


class Session:
    """A replication connection streaming the slot's ``pgoutput`` messages.

    ``pending`` holds the messages received and not yet stored: the first ``whole`` of
    them are whole transactions, the rest the start of one still arriving. ``relations``
    lives as long as the session: the server sends a relation once per session."""

    def __init__(self, url: str, slot: str, pub: str, location: str):
        self.location, self.slot = location, slot
        self.broken = False
        self.lock = threading.Lock()  # the tick, or the keep-alive between ticks
        self.relations: dict[int, pgoutput.Relation] = {}
        self.pending: list[bytes] = []
        self.whole = 0
        self.in_txn = False
        self.last_end = 0  # end LSN of the last whole transaction received
        self.reached = 0  # how far the server said it read the log
        self.confirmed = 0  # the last flush position sent
        try:
            dsn = dialect.conninfo(url)
            # pgoutput writes values as text under the walsender's settings: those the
            # drain reads them back under (log/settings.sql), whatever the server's,
            # database's or role's defaults, beside the URL's own options
            given = psycopg2.extensions.parse_dsn(dsn).get("options", "")
            self.conn = psycopg2.connect(
                dsn,
                connection_factory=psycopg2.extras.LogicalReplicationConnection,
                connect_timeout=10,
                options=f"{given} {OUTPUT_SETTINGS}".strip(),
            )
        except psycopg2.Error as exc:
            raise _translate(exc, location) from None
        try:
            self.cur = self.conn.cursor()
            self.cur.start_replication(
                slot_name=slot,
                decode=False,
                options={"proto_version": "1", "publication_names": pub, "messages": "true"},
                status_interval=10,
            )
        except psycopg2.errors.ObjectInUse as exc:
            self.conn.close()
            raise Busy(str(exc).strip()) from None
        except psycopg2.Error as exc:
            self.conn.close()
            raise _translate(exc, location) from None
        self.pid = self.conn.get_backend_pid()
        self._stop = threading.Event()
        self._alive = threading.Thread(target=self._keep_alive, name="log-stream", daemon=True)
        self._alive.start()

    def _keep_alive(self) -> None:
        """Between ticks nothing reads the stream: the server's messages wait in the
        socket (it stops decoding once that is full), and this tells it the reader lives."""
        while not self._stop.wait(ALIVE_S):
            if not self.lock.acquire(blocking=False):
                continue  # a tick reads the stream: it answers the server itself
            try:
                if not self.broken:
                    self.cur.send_feedback(force=True)
            except psycopg2.Error as exc:
                self.broken = True
                log.warning("the log stream of slot %s ended: %s", self.slot, exc)
            finally:
                self.lock.release()

    def read(self, upto: int, limit: int) -> bool:
        """Read until the server has read the log past ``upto`` with no transaction half
        received (True), or until ``limit`` messages of whole transactions wait (False)."""
        cur = self.cur
        asked = 0.0
        moved = time.monotonic()
        try:
            while True:
                msg = cur.read_message()
                if msg is not None:
                    self._take(bytes(msg.payload), int(msg.data_start))
                    moved = time.monotonic()
                    if not self.in_txn and self.whole >= limit:
                        return False
                    continue
                # keepalives are read inside read_message: wal_end is the server's position
                now = time.monotonic()
                if int(cur.wal_end) > self.reached:
                    self.reached, moved = int(cur.wal_end), now  # decoding, sending nothing
                if self.reached >= upto and not self.in_txn:
                    return True
                if now - moved > STALL_S:
                    raise TransientError(
                        f"PostgreSQL: the log stream of slot {self.slot} sent nothing for "
                        f"{STALL_S:.0f} s before position {pgoutput.lsn_text(upto)}",
                        location=self.location,
                    )
                if now - asked > ASK_S:
                    cur.send_feedback(reply=True, force=True)  # a keepalive comes back
                    asked = now
                select.select([cur], [], [], ASK_S)
        except psycopg2.Error as exc:
            self.broken = True
            raise _translate(exc, self.location) from None

    def _take(self, data: bytes, start: int) -> None:
        tag = data[:1]
        self.pending.append(data)
        if tag == b"B":
            self.in_txn = True
        elif tag == b"C":
            self.in_txn = False
            self.last_end = int.from_bytes(data[10:18], "big")
            self.reached = max(self.reached, self.last_end)
        if not self.in_txn:
            self.whole = len(self.pending)
        if start:  # a message's own position (relation messages carry none)
            self.reached = max(self.reached, start)

    def take(self) -> list[bytes]:
        """The messages of the whole transactions received, handed over once."""
        out, self.pending = self.pending[: self.whole], self.pending[self.whole :]
        self.whole = 0
        return out

    def confirm(self, lsn: int) -> None:
        """Tell the server everything before ``lsn`` is stored (it may drop that WAL)."""
        if lsn <= self.confirmed:
            return
        try:
            self.cur.send_feedback(write_lsn=lsn, flush_lsn=lsn, force=True)
        except psycopg2.Error as exc:
            self.broken = True
            raise _translate(exc, self.location) from None
        self.confirmed = lsn

    def close(self) -> None:
        self.broken = True
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
        with self.lock:
            self.conn.close()


def _translate(exc: psycopg2.Error, location: str) -> Exception:
    msg = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    state = getattr(exc, "pgcode", None) or ""
    text = f"PostgreSQL: {msg}" + (f" (SQLSTATE {state})" if state else "")
    if isinstance(exc, psycopg2.OperationalError) or state.startswith(("08", "57")):
        return TransientError(text, location=location)
    return LocationError(text, location=location)


class StreamDrain(Drain):
    """The drain of a tick through a kept session (see the module)."""

    def stream(self, conn: Any, s: Session, tick: Callable[[Any, datetime, bool], Any]) -> Any:
        o = self.o
        locked = False
        try:
            with conn.pipeline():
                conn.execute(o.one("log/lock.sql"), self.key)
                locked = True
                conn.execute("BEGIN")
                conn.execute(o.one("log/synchronous_commit.sql"))
                horizon = conn.execute(o.one("log/horizon.sql"))
                conn.execute("COMMIT")
                clock, oldest, upto_text = horizon.fetchone()
            upto = pgoutput.lsn_int(str(upto_text))
            with s.lock:
                while True:
                    reached = s.read(upto, BATCH)
                    data = s.take()
                    if data and self._store(conn, s, data):
                        failpoints.hit("log_before_feedback")
                    # past the horizon, every transaction whose commit starts before it
                    # came and is stored: the server need not send them again
                    s.confirm(max(s.last_end, upto) if reached else s.last_end)
                    if reached:
                        break
            with conn.pipeline():
                out = tick(conn, min(x for x in (clock, oldest) if x is not None), False)
                conn.execute(o.one("log/unlock.sql"), self.key)
                locked = False
            return out
        finally:
            if locked and not conn.broken:
                if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    conn.execute("ROLLBACK")
                conn.execute(o.one("log/unlock.sql"), self.key)

    def _store(self, conn: Any, s: Session, data: list[bytes]) -> bool:
        """The whole transactions received, those past ``decoded``, into the queue in one
        transaction with the end LSN of the last; whether there were any."""
        o = self.o
        with conn.pipeline():
            conn.execute("BEGIN")
            conn.execute(o.one("log/settings.sql"))
            state_q = conn.execute(o.one("log/state_read.sql"))
            service_q = conn.execute(o.one("queries/service_read.sql"))
            triggers_q = conn.execute(o.one("log/event_triggers.sql"), {"name": o.name("et_ddl")})
            tables_q = conn.execute(o.one("log/log_tables.sql"))
            state = state_q.fetchone()
        if state is None:
            raise UsageError("log capture is not installed (run syncpoint install)")
        if state[5]:
            raise LocationError(state[5], location=self.location)
        decoded = pgoutput.lsn_int(str(state[1]))
        # relation messages of every transaction are read, those stored already too
        txns = pgoutput.parse(data, s.relations, after=decoded)
        fresh = [t for t in txns if t.end_lsn > decoded]
        if fresh:
            sid, loc, *_ = service_q.fetchone()
            records = Records(conn, o, self.types, watched(tables_q.fetchall()), loc,
                              not triggers_q.fetchone()[0])  # fmt: skip
            for t in fresh:
                records.add(t, s.relations)
            # out of pipeline mode: the rows go in by COPY
            logqueue.write(conn, o, self.types, sid, records.out, copy=True)
        with conn.pipeline():
            if fresh:
                conn.execute(
                    o.one("log/state_streamed.sql"), {"lsn": pgoutput.lsn_text(fresh[-1].end_lsn)}
                )
            failpoints.hit("log_before_commit")
            conn.execute("COMMIT")
        return bool(fresh)
