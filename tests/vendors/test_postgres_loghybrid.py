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
    # a transaction 0.2 s old holds the restart position back; any WAL behind it counts
    monkeypatch.setattr(capture, "READER", "")
    monkeypatch.setattr(capture, "OLD_S", 0.2)
    monkeypatch.setattr(capture, "STREAM_BYTES", 1)
    monkeypatch.setattr(capture, "STUCK_S", 3600.0)
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


def test_sql_functions_then_the_stream_while_a_transaction_is_open_then_back(
    log_db: Any,
) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY)", "CREATE TABLE idle (id int)")
    log = LogPg(log_db)
    log.install("public.t")
    held = psycopg.connect(log_db.url)
    try:
        with kept():
            p0 = log.tick()
            tx(log_db, "INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (2)")
            p1 = log.tick()
            assert _unstreamed(log_db)  # read with the SQL functions: no session kept
            held.execute("INSERT INTO idle VALUES (1)")  # an xid: the restart stays behind it
            threading.Event().wait(0.3)
            tx(log_db, "INSERT INTO t VALUES (3)")
            p2 = log.tick()  # still the SQL functions: this tick finds the transaction old
            tx(log_db, "INSERT INTO t VALUES (4)")
            p3 = log.tick()
            pid = _streamer(log_db)
            assert pid is not None  # the stream from now on
            tx(log_db, "INSERT INTO t VALUES (5)")
            p4 = log.tick()
            assert _streamer(log_db) == pid  # the same session
            held.commit()
            tx(log_db, "INSERT INTO t VALUES (6)")
            p5 = log.tick()  # streamed: this tick finds no transaction open
            tx(log_db, "INSERT INTO t VALUES (7)")
            p6 = log.tick()
            assert _unstreamed(log_db)  # the SQL functions again, the session closed
            tx(log_db, "INSERT INTO t VALUES (8)")
            p7 = log.tick()
            assert _unstreamed(log_db)
        got = [_ids(log, a, b) for a, b in ((p0, p1), (p1, p2), (p2, p3), (p3, p4), (p4, p5),
                                             (p5, p6), (p6, p7))]  # fmt: skip
        assert got == [[1, 2], [3], [4], [5], [6], [7], [8]]
        assert log_db.query("SELECT count(*) FROM repl_items")[0][0] == 8
    finally:
        held.close()


_SWITCHING = """
import sys, time
import psycopg
from syncpoint.vendors.kept import kept
from syncpoint.vendors.postgres.log import capture
capture.READER, capture.OLD_S, capture.STREAM_BYTES, capture.STUCK_S = "", 0.2, 1, 3600.0
url, base = sys.argv[1], int(sys.argv[2])
cap = capture.PostgresLogCapture("dec01", url, "repl_")
conn = cap.connect()
w = psycopg.connect(url, autocommit=True)
held = psycopg.connect(url)
held.execute("INSERT INTO idle VALUES (1)")
time.sleep(0.3)
with kept():
    w.execute(f"INSERT INTO t VALUES ({base})")
    cap.tick(conn)  # the SQL functions, which find the transaction old
    w.execute(f"INSERT INTO t VALUES ({base + 1})")
    cap.tick(conn)  # to the stream (log_reader_switch@1)
    held.commit()
    w.execute(f"INSERT INTO t VALUES ({base + 2})")
    cap.tick(conn)  # streamed, no transaction open any more
    w.execute(f"INSERT INTO t VALUES ({base + 3})")
    cap.tick(conn)  # back to the SQL functions (log_reader_switch@2)
"""


@pytest.mark.parametrize("nth", [1, 2])
def test_a_kill_at_the_switch_loses_and_repeats_nothing(log_db: Any, nth: int) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY)", "CREATE TABLE idle (id int)")
    log = LogPg(log_db)
    log.install("public.t")
    p0 = log.tick()
    env = {**os.environ, "SYNCPOINT_FAILPOINT": f"log_reader_switch@{nth}"}
    env.pop("SYNCPOINT_PG_LOG_READER", None)
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_SWITCHING), log_db.url, "10"], env=env
    )
    assert run.returncode == -9  # SIGKILL at the switch
    written = [r[0] for r in log_db.query("SELECT id FROM t ORDER BY id")]
    assert written == list(range(10, 10 + 2 * nth))
    tx(log_db, "INSERT INTO t VALUES (100)")
    with kept():  # a follower again: whatever the killed one left, once
        p1 = log.tick()
        tx(log_db, "INSERT INTO t VALUES (101)")
        p2 = log.tick()
    assert _ids(log, p0, p1) == [*written, 100]
    assert _ids(log, p1, p2) == [101]
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
