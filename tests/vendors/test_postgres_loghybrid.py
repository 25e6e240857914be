"""PostgreSQL log capture's reader in a follower (``run --follow``): the SQL functions while
the slot's restart position follows the log, the kept session (stream) while an open
transaction holds it back, and the SQL functions again once it moved; every row exactly
once across the switches, and across a kill at either switch; a tick whose watched tables
are quiet moves the slot past the unwatched WAL it read."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from typing import Any

import psycopg
import pytest
from test_postgres_capture_support import Pg, tx

from syncpoint.vendors.kept import kept
from syncpoint.vendors.postgres.log import capture
from syncpoint.vendors.postgres.log.capture import PostgresLogCapture
from syncpoint.vendors.postgres.log.pgoutput import lsn_int


class LogPg(Pg):
    def __post_init__(self) -> None:
        self.cap = PostgresLogCapture(self.location, self.db.url, self.prefix)


@pytest.fixture(autouse=True)
def _hybrid(monkeypatch: pytest.MonkeyPatch) -> None:
    # no averaging over ticks; 256 kB to decode again from the restart position is much
    monkeypatch.setattr(capture, "READER", "")
    monkeypatch.setattr(capture, "SMOOTH", 1.0)
    monkeypatch.setattr(capture, "STREAM_BYTES", 256 << 10)
    monkeypatch.delenv("SYNCPOINT_PG_LOG_READER", raising=False)
    capture._READING.clear()


def _streamer(db: Any) -> Any:
    """The server process streaming the slot, if any."""
    return db.query("SELECT active_pid FROM pg_replication_slots")[0][0]


def _unstreamed(db: Any) -> bool:
    """No session streams the slot (one just closed ends a moment later)."""
    for _ in range(50):
        if _streamer(db) is None:
            return True
        threading.Event().wait(0.1)
    return False


def _ids(log: LogPg, after: int, upto: int) -> list[int]:
    return [int(r.row["id"]) for r in log.changes("public.t", after, upto)]


BULK = 5000  # rows: about 550 kB of WAL


def test_sql_functions_then_the_stream_while_a_transaction_is_open_then_back(
    log_db: Any,
) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY)", "CREATE TABLE idle (id int)")
    log = LogPg(log_db)
    log.install("public.t")
    held = psycopg.connect(log_db.url)
    ticks, streamed = [], []
    try:
        with kept():

            def tick(*stmts: str) -> None:
                tx(log_db, *stmts)
                ticks.append(log.tick())
                streamed.append(_streamer(log_db))

            ticks.append(log.tick())
            tick("INSERT INTO t VALUES (1)")
            assert _unstreamed(log_db)  # read with the SQL functions: no session kept
            held.execute("INSERT INTO idle VALUES (1)")  # an xid: the restart stays behind it
            tick(f"INSERT INTO t SELECT generate_series(2, {BULK + 1})")  # all of it new
            # and new at the next tick: the queue's own WAL, as large
            tick(f"INSERT INTO t VALUES ({BULK + 2})")
            assert _unstreamed(log_db)
            tick(f"INSERT INTO t VALUES ({BULK + 3})")  # all of it decoded again: the stream
            tick(f"INSERT INTO t VALUES ({BULK + 4})")
            assert streamed[-2] is not None and streamed[-1] == streamed[-2]  # one session
            held.commit()
            n = BULK + 5
            # the server moves the restart position at its next running-transactions record
            # (a checkpoint writes one), once the stream confirmed past it
            while _streamer(log_db) is not None and n < BULK + 10:
                tick("CHECKPOINT", f"INSERT INTO t VALUES ({n})")
                n += 1
            assert _unstreamed(log_db)  # the SQL functions again
            tick(f"INSERT INTO t VALUES ({n})")
            assert _unstreamed(log_db)
        got = [i for a, b in zip(ticks, ticks[1:], strict=False) for i in _ids(log, a, b)]
        assert got == list(range(1, n + 1))  # each once, in order
        assert log_db.query("SELECT count(*) FROM repl_items")[0][0] == n
    finally:
        held.close()


_SWITCHING = """
import sys
import psycopg
from syncpoint.vendors.kept import kept
from syncpoint.vendors.postgres.log import capture
capture.READER, capture.SMOOTH, capture.STREAM_BYTES = "", 1.0, 256 << 10
url = sys.argv[1]
cap = capture.PostgresLogCapture("dec01", url, "repl_")
conn = cap.connect()
w = psycopg.connect(url, autocommit=True)
held = psycopg.connect(url)
held.execute("INSERT INTO idle VALUES (1)")
with kept():
    w.execute("INSERT INTO t SELECT generate_series(1, 5000)")
    cap.tick(conn)  # the SQL functions: all of it new
    n = 5001
    while not any(r.streaming for r in capture._READING.values()) and n < 5010:
        w.execute(f"INSERT INTO t VALUES ({n})")
        n += 1
        cap.tick(conn)  # to the stream (log_reader_switch@1)
    held.commit()
    for _ in range(8):
        w.execute("CHECKPOINT")
        w.execute(f"INSERT INTO t VALUES ({n})")
        n += 1
        cap.tick(conn)  # streamed, then the SQL functions again (log_reader_switch@2)
"""


@pytest.mark.parametrize("nth", [1, 2])
def test_a_kill_at_the_switch_loses_and_repeats_nothing(log_db: Any, nth: int) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY)", "CREATE TABLE idle (id int)")
    log = LogPg(log_db)
    log.install("public.t")
    p0 = log.tick()
    env = {**os.environ, "SYNCPOINT_FAILPOINT": f"log_reader_switch@{nth}"}
    env.pop("SYNCPOINT_PG_LOG_READER", None)
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_SWITCHING), log_db.url], env=env)
    assert run.returncode == -9  # SIGKILL at the switch
    written = [r[0] for r in log_db.query("SELECT id FROM t ORDER BY id")]
    assert written[:5001] == list(range(1, 5002))
    tx(log_db, "INSERT INTO t VALUES (10000)")
    with kept():  # a follower again: whatever the killed one left, once
        p1 = log.tick()
        tx(log_db, "INSERT INTO t VALUES (10001)")
        p2 = log.tick()
    assert _ids(log, p0, p1) == [*written, 10000]
    assert _ids(log, p1, p2) == [10001]
    assert log_db.query("SELECT count(*) FROM repl_items")[0][0] == len(written) + 2


def test_a_quiet_tick_moves_the_slot_past_the_unwatched_log(log_db: Any) -> None:
    # the watched table quiet, another busy: the SQL functions would otherwise decode the
    # same unwatched WAL from the slot's position at every tick, more and more of it
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY)", "CREATE TABLE u (id integer)")
    log = LogPg(log_db)
    log.install("public.t")
    log.tick()
    tx(log_db, "INSERT INTO u SELECT generate_series(1, 1000)")
    (written,) = log_db.query("SELECT pg_current_wal_lsn()::text")[0]
    log.tick()
    log.tick()  # the slot advanced to what the last tick stored, before this tick's snapshot
    (confirmed,) = log_db.query("SELECT confirmed_flush_lsn::text FROM pg_replication_slots")[0]
    assert lsn_int(confirmed) > lsn_int(written)
    tx(log_db, "INSERT INTO t VALUES (1)")
    p = log.tick()
    assert _ids(log, 0, p) == [1]
