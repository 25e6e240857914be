"""PostgreSQL capture positions: ticks, commit-ordered windows, the late committer,
purge, the queue key, the sequence trap (docs/internals.md, "Capture on PostgreSQL"),
changes_query."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from test_postgres_capture_support import Pg, ref, rows, tx

from syncpoint.errors import LocationError, UsageError

T = "CREATE TABLE public.t (id integer PRIMARY KEY, name text)"


def _pg(db: Any) -> tuple[Pg, int]:
    db.execute(T)
    pg = Pg(db)
    pg.install("public.t")
    return pg, pg.tick()


def test_late_committer_lands_in_a_later_tick_exactly_once(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    t1 = pg_db.connect(autocommit=False)
    t1.execute("INSERT INTO t VALUES (1, 'long')")  # takes the lower repl_key, stays open
    tx(pg_db, "INSERT INTO t VALUES (2, 'short')")
    p1, first = pg.window("public.t", p0)
    assert rows(first) == [("INSERT", {"id": 2, "name": "short"}, None)]
    t1.commit()
    t1.close()
    p2, second = pg.window("public.t", p1)
    assert rows(second) == [("INSERT", {"id": 1, "name": "long"}, None)]
    assert second[0].repl_key < first[0].repl_key
    assert second[0].context == p2 and first[0].context == p1
    # the union of the two windows is the wide window, each record once, with its tick
    wide = pg.changes("public.t", p0, p2)
    assert [(r.repl_key, r.context) for r in wide] == sorted(
        (r.repl_key, r.context) for r in first + second
    )
    p3, third = pg.window("public.t", p2)
    assert third == []


def test_guaranteed_time_waits_for_open_transactions(pg_db: Any) -> None:
    pg, _ = _pg(pg_db)
    before = datetime.now(UTC)
    conn = pg.conn()
    tick = pg.cap.tick(conn)
    assert tick.guaranteed.tzinfo is not None and tick.guaranteed >= before
    t1 = pg_db.connect(autocommit=False)
    t1.execute("INSERT INTO t VALUES (1, 'open')")
    started = t1.execute("SELECT now()").fetchone()[0]
    tick = pg.cap.tick(conn)
    assert tick.guaranteed == started
    t1.rollback()
    t1.close()
    assert pg.cap.tick(conn).guaranteed > started
    row = pg_db.query("SELECT context, guaranteed FROM repl_service_context")
    assert row[0][0] == tick.context + 1
    conn.close()


def test_concurrent_tickers_never_share_a_tick(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    got: list[int] = []

    def ticker() -> None:
        conn = pg.conn()
        for _ in range(15):
            got.append(pg.cap.tick(conn).context)
        conn.close()

    threads = [threading.Thread(target=ticker) for _ in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(got) == list(range(p0 + 1, p0 + 46))
    assert pg_db.query("SELECT count(*), max(tick_id) FROM repl_ticks") == [(p0 + 46, p0 + 45)]


def test_purge_deletes_up_to_a_tick_and_keys_never_repeat(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    tx(pg_db, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    p1 = pg.tick()
    tx(pg_db, "INSERT INTO t VALUES (3, 'c')")
    p2 = pg.tick()
    conn = pg.conn()
    assert pg.cap.purge(conn, p1) == 2
    top = pg_db.query("SELECT max(repl_key) FROM repl_items")[0][0]
    assert [r.row["id"] for r in pg.changes("public.t", p1, p2)] == [3]
    with pytest.raises(LocationError) as err:
        pg.changes("public.t", p0, p2)
    assert f"tick {p0} does not exist" in str(err.value)
    assert pg.cap.purge(conn, p2) == 1
    assert pg_db.query("SELECT count(*) FROM repl_items") == [(0,)]
    with pytest.raises(UsageError):
        pg.cap.purge(conn, p2 + 1)  # beyond the horizon
    conn.close()
    tx(pg_db, "INSERT INTO t VALUES (4, 'd')")
    _, recs = pg.window("public.t", p2)
    assert [r.row["id"] for r in recs] == [4] and recs[0].repl_key > top


def test_windows_fail_closed_on_missing_ticks(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    assert pg.changes("public.t", p0, p0) == []
    with pytest.raises(LocationError) as err:
        pg.changes("public.t", p0, p0 + 5)
    assert f"tick {p0 + 5} does not exist" in str(err.value)
    with pytest.raises(UsageError):
        pg.changes("public.t", p0 + 1, p0)


def test_changes_query_reads_what_changes_returns(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    tx(pg_db, "INSERT INTO t VALUES (1, 'a')", "UPDATE t SET name = 'b'")
    pg.tick()
    tx(pg_db, "DELETE FROM t")
    p2 = pg.tick()
    text = pg.cap.changes_query(ref("public.t"), p0, p2)
    assert "%(" not in text and "--" not in text
    got = pg_db.query(f"SELECT * FROM ({text}) q")
    conn = pg_db.connect()
    names = conn.execute(f"SELECT * FROM ({text}) q LIMIT 0").description
    conn.close()
    assert [d.name for d in names] == [
        "repl_key", "context", "trans_key", "dbid", "tablename", "db_schema", "db_action",
        "content", "oldcontent", "captured_at", "version",
        "sp_captured_at",  # the time as stored, for the survey's min()
    ]  # fmt: skip
    assert all(row[9] == row[11].astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f") for row in got)
    got = [row[:11] for row in got]
    recs = pg.changes("public.t", p0, p2)
    assert [
        (r.repl_key, r.context, r.trans_key, r.dbid, r.tablename, r.db_schema, r.db_action,
         r.content, r.oldcontent, r.captured_at.strftime("%Y-%m-%d %H:%M:%S.%f"), r.version)
        for r in recs
    ] == got  # fmt: skip
    assert [g[1] for g in got] == [p0 + 1, p0 + 1, p2]


def test_sequence_cache_and_cycle_are_flagged(pg_db: Any) -> None:
    pg, _ = _pg(pg_db)
    assert pg.check("public.t") == []
    assert pg.status().problems == []
    pg_db.execute("ALTER SEQUENCE repl_repl_key_seq CACHE 20")
    problems = pg.check("public.t")
    assert len(problems) == 1 and "CACHE 20" in problems[0] and "CACHE 1" in problems[0]
    assert pg.status().problems == problems
    pg_db.execute("ALTER SEQUENCE repl_repl_key_seq CACHE 1 CYCLE")
    assert ["CYCLE" in p for p in pg.check("public.t")] == [True]
    pg_db.execute("ALTER SEQUENCE repl_repl_key_seq NO CYCLE")
    tx(pg_db, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    pg_db.execute("SELECT setval('repl_repl_key_seq', 1)")
    assert ["was reset" in p for p in pg.check("public.t")] == [True]


def test_stream_id_survives_reinstall_and_changes_after_uninstall(pg_db: Any) -> None:
    pg, _ = _pg(pg_db)
    conn = pg.conn()
    sid = pg.cap.stream_id(conn)
    pg.install("public.t")
    assert pg.cap.stream_id(conn) == sid
    pg.uninstall()
    pg.install("public.t")
    assert pg.cap.stream_id(conn) != sid
    conn.close()


def test_concurrent_writers_and_ticks_capture_each_commit_once(pg_db: Any) -> None:
    """Writers commit, roll back and roll back to savepoints while a ticker reads windows;
    every committed row is read exactly once, in the window of a tick made after its
    commit, and nothing rolled back is ever read."""
    import random

    pg, p0 = _pg(pg_db)
    committed: list[int] = []
    lock = threading.Lock()
    done = threading.Event()

    def writer(w: int) -> None:
        rnd = random.Random(w)
        conn = pg_db.connect(autocommit=False)
        for n in range(40):
            base = w * 100_000 + n * 10
            conn.execute("INSERT INTO t VALUES (%s, 'a')", (base,))
            conn.execute("SAVEPOINT s")
            conn.execute("INSERT INTO t VALUES (%s, 'b')", (base + 1,))
            kept = [base]
            if rnd.random() < 0.3:
                conn.execute("ROLLBACK TO SAVEPOINT s")
            else:
                kept.append(base + 1)
            if rnd.random() < 0.2:
                conn.rollback()
                continue
            conn.commit()
            with lock:
                committed.extend(kept)
        conn.close()

    seen: list[int] = []

    def reader() -> None:
        after = p0
        while True:
            finished = done.is_set()
            upto, recs = pg.window("public.t", after)
            seen.extend(r.row["id"] for r in recs)
            after = upto
            if finished:
                break

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    rd = threading.Thread(target=reader)
    rd.start()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    done.set()
    rd.join()
    assert sorted(seen) == sorted(committed)
    assert len(seen) == len(set(seen))
