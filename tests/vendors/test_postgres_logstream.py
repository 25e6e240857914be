"""PostgreSQL log capture through one decoding session kept open across ticks (what
``run --follow`` does, ``vendors/kept.py``): the session stays the same server process
while a transaction stays open at the source, the slot's confirmed position moves past that
transaction's start at every tick, the rows come exactly once; the records equal the SQL
reader's; a kill between the queue's commit and the feedback loses and repeats nothing; a
process that cannot read the slot (a follower streams it) waits for the follower's drain."""

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
from test_postgres_capture_types import INSERT, ODD_SESSION, SETUP

from syncpoint.vendors.kept import kept
from syncpoint.vendors.postgres.log import capture
from syncpoint.vendors.postgres.log.capture import PostgresLogCapture
from syncpoint.vendors.postgres.log.pgoutput import lsn_int


@pytest.fixture(autouse=True)
def _streamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are the stream's: a follower's ticks read through the kept session at
    every tick (else the SQL functions while nothing holds the slot's restart position)."""
    monkeypatch.setattr(capture, "READER", "stream")
    monkeypatch.setenv("SYNCPOINT_PG_LOG_READER", "stream")


class LogPg(Pg):
    def __post_init__(self) -> None:
        self.cap = PostgresLogCapture(self.location, self.db.url, self.prefix)


def _slot(db: Any) -> tuple[Any, ...]:
    """The slot's streaming server process, confirmed position and restart position."""
    pid, flushed, restart = db.query(
        "SELECT active_pid, confirmed_flush_lsn::text, restart_lsn::text FROM pg_replication_slots"
    )[0]
    return pid, lsn_int(flushed), lsn_int(restart)


def _ids(log: LogPg, after: int, upto: int) -> list[int]:
    return [int(r.row["id"]) for r in log.changes("public.t", after, upto)]


def test_one_session_decodes_past_a_transaction_left_open(log_db: Any) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
    log = LogPg(log_db)
    log.install("public.t")
    assert _slot(log_db)[0] is None
    # a transaction left open at the source: the slot's restart position cannot pass it
    held = psycopg.connect(log_db.url)
    held.execute("INSERT INTO t VALUES (1000, 'open')")
    open_at = lsn_int(held.execute("SELECT pg_current_wal_lsn()::text").fetchone()[0])
    try:
        with kept():
            p0 = log.tick()
            pid = _slot(log_db)[0]
            assert pid is not None  # the slot is streamed, and stays so between ticks
            last, confirmed, seen = p0, [], []
            for n in range(4):
                tx(log_db, *(f"INSERT INTO t VALUES ({n * 10 + i}, 'r')" for i in range(3)))
                p = log.tick()
                active, flushed, restart = _slot(log_db)
                assert active == pid  # the same decoding session: nothing decoded again
                assert restart <= open_at < flushed
                confirmed.append(flushed)
                seen += _ids(log, last, p)
                last = p
            assert confirmed == sorted(set(confirmed))  # confirmed at every tick
            assert seen == [n * 10 + i for n in range(4) for i in range(3)]  # each once
            held.commit()
            p = log.tick()
            assert _ids(log, last, p) == [1000]
            assert _slot(log_db)[0] == pid
            p2 = log.tick()
            assert _ids(log, p, p2) == []
        # the block ended: the session with it
        for _ in range(50):
            if _slot(log_db)[0] is None:
                break
            threading.Event().wait(0.1)
        assert _slot(log_db)[0] is None
    finally:
        held.close()


def test_records_equal_the_sql_readers(log_db: Any) -> None:
    log_db.execute(*SETUP, "ALTER TABLE m REPLICA IDENTITY FULL")
    sql_reader, streamed = LogPg(log_db, prefix="sql_"), LogPg(log_db, prefix="str_")
    sql_reader.install("public.m")
    streamed.install("public.m")
    with kept():
        streamed.tick()  # the session starts before the changes: they come streamed
        tx(log_db, INSERT)
        tx(log_db, *ODD_SESSION, INSERT.replace("(\n    1,", "(\n    2,"))
        tx(log_db, *ODD_SESSION, "UPDATE m SET f8 = -0.0, tstz = now(), iv = '1 day', t = NULL")
        tx(log_db, "ALTER TABLE m ADD COLUMN extra integer DEFAULT 7")
        tx(log_db, "UPDATE m SET id = id + 10 WHERE id = 1")
        tx(log_db, "DELETE FROM m WHERE id = 2")
        tx(log_db, "TRUNCATE m")
        streamed.tick()
    sql_reader.tick()
    q = (
        "SELECT tablename, db_schema, db_action, content, oldcontent, version, dbid "
        "FROM {}items ORDER BY repl_key"
    )
    want, got = log_db.query(q.format("sql_")), log_db.query(q.format("str_"))
    assert len(want) == 9
    assert got == want


def test_records_copied_in_equal_the_trigger_captures(log_db: Any) -> None:
    """Numbers, strings, booleans and timestamps: the decoder makes their JSON itself and
    copies the records in; they equal the trigger capture's character for character (odd
    strings and names, NULLs, padding), and a timestamp only the server writes (BC,
    infinity, under a DateStyle the writer's session changed) still comes right; with the
    default replica identity (the old key only) they equal the SQL reader's, and so does a
    float the server writes, whatever the database's own extra_float_digits."""
    log_db.execute(
        "CREATE TABLE f (id bigint PRIMARY KEY, i2 smallint, i4 integer, t text, "
        'vc varchar(20), c char(5), b boolean, ts timestamp, "we""ird\\ é" text)',
        "ALTER TABLE f REPLICA IDENTITY FULL",
        "CREATE TABLE k (id integer PRIMARY KEY, t text, f8 double precision)",
    )
    # the log's text is written under the walsender's settings: pinned, whatever these
    (db,) = log_db.query("SELECT quote_ident(current_database())")[0]
    log_db.execute(f"ALTER DATABASE {db} SET extra_float_digits = -3",
                   f"ALTER DATABASE {db} SET TimeZone = 'Asia/Kolkata'")  # fmt: skip
    trg, log = Pg(log_db, prefix="trg_"), LogPg(log_db, prefix="log_")
    sql_reader = LogPg(log_db, prefix="sql_")
    for cap in (trg, log, sql_reader):
        cap.install("public.f", "public.k")
    odd = "E'q\"uote \\\\ back\\nline\\ttab\\x01\\x1f é 😀 \\u2028 /'"
    with kept():
        log.tick()  # the session starts before the changes: they come streamed
        tx(
            log_db,
            f"INSERT INTO f VALUES (1, -32768, 2147483647, {odd}, 'v', 'ab', true, "
            "'2026-11-27 21:49:29.217155', 'x')",
            "INSERT INTO f VALUES (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
            "INSERT INTO f VALUES (3, 0, -1, '', ' ', 'abcde', false, '2000-01-01', '')",
            "INSERT INTO f VALUES (4, 1, 1, 'bc', 'w', 'z', true, '0044-03-15 12:00:00 BC', 'y')",
            "INSERT INTO f VALUES (5, 1, 1, 'inf', 'w', 'z', true, 'infinity', 'y')",
            "INSERT INTO f VALUES (6, 1, 1, 'far', 'w', 'z', true, '10000-01-01 00:00:01.5', 'y')",
            "INSERT INTO k VALUES (1, 'one', 0.1::float8 + 0.2::float8), (2, NULL, NULL)",
        )
        tx(log_db, "SET DateStyle = 'SQL, DMY'", "UPDATE f SET ts = ts + interval '1 day', "
           "b = NOT b, t = t || '!' WHERE id <> 2")  # fmt: skip
        tx(log_db, "UPDATE k SET t = 'uno' WHERE id = 1", "UPDATE k SET id = 3 WHERE id = 2")
        tx(log_db, "DELETE FROM f WHERE id IN (1, 4)", "DELETE FROM k WHERE id = 1")
        log.tick()
    sql_reader.tick()
    got = _queue(log_db, "log_")
    assert len(got) == 19
    assert [r for r in got if r[0] == "f"] == [r for r in _queue(log_db, "trg_") if r[0] == "f"]
    assert got == _queue(log_db, "sql_")


def _queue(db: Any, prefix: str) -> list[tuple[Any, ...]]:
    return db.query(
        f"SELECT tablename, db_schema, db_action, content, oldcontent, version, dbid "
        f"FROM {prefix}items ORDER BY repl_key"
    )


_KILLED = """
import sys
from syncpoint.vendors.kept import kept
from syncpoint.vendors.postgres.log.capture import PostgresLogCapture
cap = PostgresLogCapture("dec01", sys.argv[1], "repl_")
conn = cap.connect()
with kept():
    cap.tick(conn)
"""


def test_a_kill_between_the_queue_commit_and_the_feedback_repeats_nothing(log_db: Any) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
    log = LogPg(log_db)
    log.install("public.t")
    p0 = log.tick()
    for i in range(5):
        tx(log_db, f"INSERT INTO t VALUES ({i}, 'r{i}')")
    env = {**os.environ, "SYNCPOINT_FAILPOINT": "log_before_feedback"}
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_KILLED), log_db.url], env=env)
    assert run.returncode == -9  # SIGKILL at the failpoint
    # stored, and the slot not told: its confirmed position is behind what is stored
    assert log_db.query("SELECT count(*) FROM repl_items")[0][0] == 5
    (stored, flushed) = log_db.query(
        "SELECT decoded::text, confirmed_flush_lsn::text FROM repl_log_state, pg_replication_slots"
    )[0]
    assert lsn_int(flushed) < lsn_int(stored)
    tx(log_db, "INSERT INTO t VALUES (5, 'r5')")
    with kept():  # a new session: the server sends the stored transactions again
        p1 = log.tick()
        tx(log_db, "INSERT INTO t VALUES (6, 'r6')")
        p2 = log.tick()
    assert _ids(log, p0, p1) == list(range(6))
    assert _ids(log, p1, p2) == [6]
    assert log_db.query("SELECT count(*) FROM repl_items")[0][0] == 7
    # again, and then a tick of the SQL functions at once (run --once after a follower's
    # kill: the killed session's server process may still hold the slot a moment)
    for i in range(7, 10):
        tx(log_db, f"INSERT INTO t VALUES ({i}, 'r{i}')")
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_KILLED), log_db.url], env=env)
    assert run.returncode == -9
    p3 = log.tick()
    assert _ids(log, p2, p3) == [7, 8, 9]
    assert log_db.query("SELECT count(*) FROM repl_items")[0][0] == 10


def test_a_tick_elsewhere_waits_for_the_streaming_session(log_db: Any) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
    log = LogPg(log_db)
    log.install("public.t")
    p0 = log.tick()
    with kept():
        log.tick()  # the session holds the slot from now on
        tx(log_db, "INSERT INTO t VALUES (1, 'a')")
        # a tick of another process (run --once, snapshot) cannot read the slot: it waits
        # for the follower's next drain
        other = LogPg(log_db)
        code = textwrap.dedent(
            """
            import sys
            from syncpoint.vendors.postgres.log.capture import PostgresLogCapture
            cap = PostgresLogCapture("dec01", sys.argv[1], "repl_")
            print(cap.tick(cap.connect()).context)
            """
        )
        proc = subprocess.Popen(
            [sys.executable, "-c", code, log_db.url], stdout=subprocess.PIPE, text=True
        )
        while proc.poll() is None:  # the follower ticks on, as run --follow does
            log.tick()
            threading.Event().wait(0.3)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0
        p_other = int(out.strip())
    assert [int(r.row["id"]) for r in other.changes("public.t", p0, p_other)] == [1]
