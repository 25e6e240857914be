"""The drain of PostgreSQL log capture: the slot decoded into the queue ``{p}items`` up to
the WAL position sampled at the tick's start, exactly once.

A batch is one transaction that peeks whole source transactions from the slot, writes the
records of those whose commit end LSN is above ``{p}log_state.decoded`` and stores the last
end LSN there. The slot is advanced to ``decoded`` only by a later transaction, which reads
it committed (the next batch before its peek, or the tick after the drain). A kill before
the commit stores nothing and leaves the slot where it was; a kill after it (before the
advance) makes the next peek return transactions already stored, which ``decoded`` skips.
How and why: docs/internals.md, "Log capture", PostgreSQL.

Round trips are what a follower's tick pays at every interval: the connection is put in
autocommit mode with explicit transactions, and the tick's statements go in psycopg
pipelines, so that a round trip is made only where a result is needed: the lock, the
horizon, the batch's reads, the advance past the previous batch and the peek (one); the
queue's keys (one); the records by COPY (one, between pipelines); the commit, the tick and
the unlock (one).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import psycopg

from syncpoint import failpoints
from syncpoint.errors import LocationError, TransientError, UsageError
from syncpoint.vendors.postgres import dialect
from syncpoint.vendors.postgres.log import pgoutput
from syncpoint.vendors.postgres.log import queue as logqueue
from syncpoint.vendors.postgres.log.names import LogNames
from syncpoint.vendors.postgres.log.queue import Types
from syncpoint.vendors.postgres.log.records import Records, watched

# messages a batch asks for (whole transactions: may be more). Each peek decodes again from
# the slot's restart position, which the server moves only now and then: fewer, larger
# batches decode less twice.
BATCH = 50_000
# how long a tick waits for the session streaming the slot (a follower's) to store what it
# must (that session drains at its own ticks)
BUSY_WAIT_S = 120.0


class Lost(Exception):
    """The slot is gone or cannot be read any more (the message says why and what to do)."""


class _Busy(Exception):
    """Another session streams the slot (a follower's, ``stream.py``)."""


def lost_text(slot: str, why: str) -> str:
    return (
        f"the replication slot {slot} {why}: the changes it held are lost, so capture "
        "stopped; run syncpoint install (a new slot and stream), then syncpoint snapshot "
        "of the tables"
    )


class Drain:
    def __init__(self, o: LogNames, types: Types, location: str, prefix: str, slot: str):
        self.o, self.types, self.location, self.slot = o, types, location, slot
        self.key = {"key": f"syncpoint:log:{o.schema}.{prefix}"}

    def run(self, conn: Any, tick: Callable[[Any, datetime, bool], Any]) -> Any:
        """Decode the slot into the queue up to the position sampled now, then
        ``tick(conn, guaranteed, True)``, which queues the tick's statements and returns what to
        fetch once they ran. ``guaranteed``: the clock, or the oldest transaction's start
        if earlier, sampled before that position. ``conn`` is in autocommit mode and every
        transaction explicit, so that a quiet tick is two round trips: psycopg sends a
        pipeline's statements without waiting, up to the first result it needs. The
        records go in by COPY between pipelines (COPY cannot run in one)."""
        o = self.o
        self.reading = False
        locked = False
        try:
            try:
                with conn.pipeline():
                    conn.execute(o.one("log/lock.sql"), self.key)
                    locked = True
                    conn.execute("BEGIN")
                    # the function's own SET ends when it returns, before the commit
                    conn.execute(o.one("log/synchronous_commit.sql"))
                    horizon = conn.execute(o.one("log/horizon.sql"))
                    conn.execute("COMMIT")
                    got = self._read(conn)
                while self._write(conn, got):
                    with conn.pipeline():
                        failpoints.hit("log_before_commit")
                        conn.execute("COMMIT")
                        got = self._read(conn)
                clock, oldest, _upto = horizon.fetchone()
                with conn.pipeline():
                    failpoints.hit("log_before_commit")
                    conn.execute("COMMIT")
                    out = tick(conn, min(x for x in (clock, oldest) if x is not None), True)
                    conn.execute(o.one("log/unlock.sql"), self.key)
                    locked = False
                return out
            except psycopg.Error as exc:
                if self.reading and not conn.broken:
                    _rollback(conn)
                    self._unreadable(conn, exc)
                raise
        except _Busy:
            _rollback(conn)
            conn.execute(o.one("log/unlock.sql"), self.key)
            locked = False
            return self._behind_stream(conn, tick)
        except Lost as lost:
            _rollback(conn)
            with conn.transaction():  # every table stops with the reason, then it is raised
                for stmt in o.render("log/state_lost.sql"):
                    conn.execute(stmt, {"reason": str(lost)})
            raise LocationError(str(lost), location=self.location) from None
        finally:
            if locked and not conn.broken:
                _rollback(conn)
                conn.execute(o.one("log/unlock.sql"), self.key)

    def _read(self, conn: Any) -> tuple[Any, ...]:
        """A drain transaction begun, up to the horizon the tick stored: the state, the
        messages peeked and the cursors of what records need (in a pipeline: one round
        trip)."""
        o = self.o
        conn.execute("BEGIN")
        conn.execute(o.one("log/settings.sql"))
        state_q = conn.execute(o.one("log/state_read.sql"))
        # from here an error may be the slot's (gone, lost, streamed by another session)
        self.reading = True
        # the last batch's commit is behind us: the slot may now pass its records
        conn.execute(o.one("log/advance.sql"), {"slot": self.slot})
        service_q = conn.execute(o.one("queries/service_read.sql"))
        triggers_q = conn.execute(o.one("log/event_triggers.sql"), {"name": o.name("et_ddl")})
        tables_q = conn.execute(o.one("log/log_tables.sql"))
        peek = {"slot": self.slot, "n": BATCH, "pub": dialect.quote(o.name("pub"))}
        # binary: the messages come as they are, not as hex text to decode
        peek_q = conn.cursor(binary=True).execute(o.one("log/peek.sql"), peek)
        state = state_q.fetchone()
        data = [r[0] for r in peek_q.fetchall()]
        self.reading = False
        return state, data, service_q, triggers_q, tables_q

    def _write(self, conn: Any, got: tuple[Any, ...]) -> bool:
        """The records of the batch ``got`` into the queue (not committed); True when
        there may be more up to the horizon."""
        o = self.o
        state, data, service_q, triggers_q, tables_q = got
        if state is None:
            raise UsageError("log capture is not installed (run syncpoint install)")
        if state[5]:
            raise LocationError(state[5], location=self.location)
        decoded = pgoutput.lsn_int(str(state[1]))
        relations: dict[int, pgoutput.Relation] = {}
        txns = pgoutput.parse(data, relations, after=decoded)
        fresh = [t for t in txns if t.end_lsn > decoded]
        upto = decoded
        if fresh:
            sid, loc, *_ = service_q.fetchone()
            records = Records(conn, o, self.types, watched(tables_q.fetchall()), loc,
                              not triggers_q.fetchone()[0])  # fmt: skip
            for t in fresh:
                records.add(t, relations)
            logqueue.write(conn, o, self.types, sid, records.out, copy=True)
            upto = fresh[-1].end_lsn
        more = len(data) >= BATCH
        if not more and state[3] is not None:
            # the peek read every transaction committed before the horizon (flushed by the
            # tick's horizon transaction): the slot may pass it, as a stream confirms its
            # horizon, so that a tick whose watched tables are quiet while others are busy
            # does not decode the same unwatched WAL again at every tick
            upto = max(upto, pgoutput.lsn_int(str(state[3])))
        if upto > decoded:
            conn.execute(o.one("log/state_decoded.sql"), {"lsn": pgoutput.lsn_text(upto)})
        return more

    def _behind_stream(self, conn: Any, tick: Callable[[Any, datetime, bool], Any]) -> Any:
        """The tick of a process that cannot read the slot because another session streams
        it: a horizon sampled now, then a wait until that session confirmed it (it confirms
        only what its queue transactions committed), then the tick. If that session ends
        first, the slot is read here after all."""
        o = self.o
        with conn.pipeline():
            conn.execute(o.one("log/lock.sql"), self.key)
            conn.execute("BEGIN")
            conn.execute(o.one("log/synchronous_commit.sql"))
            horizon = conn.execute(o.one("log/horizon.sql"))
            conn.execute("COMMIT")
            conn.execute(o.one("log/unlock.sql"), self.key)
        clock, oldest, upto = horizon.fetchone()
        deadline = time.monotonic() + BUSY_WAIT_S
        while True:
            found = conn.execute(
                o.one("log/slot_confirmed.sql"), {"slot": self.slot, "upto": upto}
            ).fetchone()
            if found is None or found[0] is None:
                return self.run(conn, tick)  # the session ended: read the slot here
            if found[1]:
                break
            if time.monotonic() > deadline:
                raise TransientError(
                    f"PostgreSQL: the replication slot {self.slot} is streamed by another "
                    f"session (pid {found[0]}, a follower's?), which has not stored the log up "
                    f"to {upto} in {BUSY_WAIT_S:.0f} s",
                    location=self.location,
                )
            time.sleep(0.1)
        with conn.pipeline():
            conn.execute(o.one("log/lock.sql"), self.key)
            try:
                out = tick(conn, min(x for x in (clock, oldest) if x is not None), False)
            finally:
                conn.execute(o.one("log/unlock.sql"), self.key)
        return out

    def _unreadable(self, conn: Any, exc: psycopg.Error) -> None:
        """Why a batch could not read the slot: capture stopped earlier, another session
        streams it (``_Busy``), the slot dropped or invalidated (``Lost``), or else ``exc``
        itself (raised by the caller)."""
        o = self.o
        if isinstance(exc, psycopg.errors.ObjectInUse):
            raise _Busy(str(exc)) from None
        with conn.transaction():
            state = conn.execute(o.one("log/state_peek.sql")).fetchone()
            info = conn.execute(o.one("log/slot.sql"), {"slot": self.slot}).fetchone()
        if state is not None and state[5]:
            raise LocationError(state[5], location=self.location) from None
        if info is None:
            raise Lost(lost_text(self.slot, "was dropped")) from None
        if info[5] == "lost":
            raise Lost(lost_text(self.slot, "was invalidated")) from None
        if isinstance(exc, psycopg.errors.ObjectNotInPrerequisiteState):
            raise Lost(lost_text(self.slot, f"cannot be read ({exc})")) from exc


def _rollback(conn: Any) -> None:
    """Out of a transaction an error left open (the connection is in autocommit mode)."""
    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        conn.execute("ROLLBACK")
