"""What a MariaDB tick may conclude from information_schema.INNODB_TRX before it gives up a
hole (keys passed but not seen): the list is a cache, so only one made during this very tick
counts (not one made during the previous tick of the same connection, which shows the same
thread); a prepared XA transaction, attached or not, keeps its keys' hole; a list the cache
may have cut proves nothing; log capture's ticks give their holes up too; a server whose
AUTO_INCREMENT steps by more than 1 is refused. On the private server (one per test
process), whose transaction list nobody else reads."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pymysql
import pytest
from test_mariadb_capture_support import Cap, install

from syncpoint.config import TableConfig
from syncpoint.errors import LocationError
from syncpoint.vendors.mariadb import stream
from tests.vendors.test_mariadb_logcapture import Log, T


@pytest.fixture
def cap(log_maria_db: Any) -> Cap:
    log_maria_db.execute(T)
    return install(log_maria_db, "t")


def _ids(recs: list[Any]) -> list[int]:
    return [r.row["id"] for r in recs]


def _holes(db: Any) -> int:
    return int(db.query("SELECT COUNT(*) FROM repl_tick_holes")[0][0])


class _Freezer:
    """Reads INNODB_TRX every 20 ms: MariaDB refreshes the cache behind it only after 0.1 s
    without a read, so the list stays as it was at the first read (as other sessions' reads
    under load keep it)."""

    def __init__(self, url: str):
        self.conn = pymysql.connect(
            host="127.0.0.1", port=int(url.rsplit(":", 1)[1].split("/")[0]), user="root"
        )
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        cur = self.conn.cursor()
        while not self.stop.is_set():
            cur.execute("SELECT COUNT(*) FROM information_schema.INNODB_TRX")
            cur.fetchall()
            self.stop.wait(0.02)

    def close(self) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()
        if self.conn.open:
            self.conn.close()


@pytest.fixture
def frozen(cap: Cap, monkeypatch: Any) -> Iterator[_Freezer]:
    """The list frozen from the next tick on, as that tick read it (the reads start before the
    tick covers anything, milliseconds after its own read)."""
    freezer = _Freezer(cap.db.url)
    cover = stream._cover

    def start_then_cover(*args: Any) -> Any:
        if not freezer.thread.is_alive() and not freezer.stop.is_set():
            freezer.thread.start()
        return cover(*args)

    monkeypatch.setattr(stream, "_cover", start_then_cover)
    yield freezer
    freezer.close()


def test_a_list_of_the_previous_tick_on_the_same_connection_keeps_the_hole(
    cap: Cap, frozen: _Freezer
) -> None:
    conn = cap.cap.connect()  # kept across ticks, as a follower keeps it
    long = cap.db.connect(autocommit=False)
    try:
        t1 = cap.cap.tick(conn)  # its list shows this connection's thread; frozen from here
        long.cursor().execute("INSERT INTO t VALUES (1, 'opened later')")  # not in the list
        cap.tx("INSERT INTO t VALUES (2, 'committed')")
        t2 = cap.cap.tick(conn)  # passes the open key: a hole
        cap.cap.tick(conn)  # the same stale list once more: the hole must stay
        holes = _holes(cap.db)
        frozen.close()
        long.commit()
        got = cap.cap.changes(conn, cap.ref, t1.context, cap.cap.tick(conn).context)
    finally:
        long.rollback()
        long.close()
        conn.close()
    assert sorted(_ids(got)) == [1, 2]
    assert len({r.repl_key for r in got}) == 2
    # the list did not show the transaction opened since: nothing new was guaranteed
    assert (holes, t2.guaranteed) == (1, t1.guaranteed)


def test_a_prepared_xa_transaction_is_read_once_after_its_commit(cap: Cap) -> None:
    """A prepared XA transaction is in INNODB_TRX with its rows modified (and thread 0 once
    its connection is gone): its keys' hole waits for XA COMMIT. Attached, then detached."""
    pos = cap.tick()
    for i, detached in ((1, False), (3, True)):
        xa = cap.db.connect(autocommit=True)
        cur = xa.cursor()
        try:
            cur.execute("XA START 'sp_tick'")
            cur.execute(f"INSERT INTO t VALUES ({i}, 'xa')")
            cur.execute("XA END 'sp_tick'")
            cur.execute("XA PREPARE 'sp_tick'")
            if detached:
                xa.close()
            cap.tx(f"INSERT INTO t VALUES ({i + 1}, 'after')")
            p1, first = cap.window(pos)
            p2, second = cap.window(p1)
            assert (_ids(first), second, _holes(cap.db)) == ([i + 1], [], 1)
        finally:  # committed (by its own session while it has one: only that one may)
            owner = xa if xa.open else cap.db.connect(autocommit=True)
            if owner.cursor().execute("XA RECOVER"):
                owner.cursor().execute("XA COMMIT 'sp_tick'")
            owner.close()
        p3, third = cap.window(p2)
        pos, fourth = cap.window(p3)
        assert (_ids(third), fourth, _holes(cap.db)) == ([i], [], 0)


def test_a_list_the_cache_may_have_cut_keeps_the_holes(cap: Cap, monkeypatch: Any) -> None:
    """MariaDB cuts the list at its cache's size without a sign (no warning): what the cache
    holds is measured, and a list near the limit is treated as a stale one. Here the limit
    is made tiny, so that this server's short list counts as cut."""
    p0 = cap.tick()
    cap.tx("INSERT INTO t VALUES (1, 'gone')", rollback=True)  # a key never used
    cap.tx("INSERT INTO t VALUES (2, 'x')")
    conn = cap.cap.connect()
    try:
        before = cap.cap.tick(conn)  # records the hole
        monkeypatch.setattr(stream, "TRX_CACHE_LIMIT", 1, raising=False)
        after = cap.cap.tick(conn)
        assert (_holes(cap.db), after.guaranteed) == (1, before.guaranteed)
        monkeypatch.undo()
        cap.cap.tick(conn)
        assert _holes(cap.db) == 0
    finally:
        conn.close()
    assert _ids(cap.window(p0)[1]) == [2]


def test_log_capture_gives_up_its_holes(log_maria_db: Any) -> None:
    """Log capture's ticks take their guarantee from the drain, and read the list only to
    give up holes (here a key of a rolled-back transaction that wrote the queue)."""
    log_maria_db.execute(T)
    log = Log(log_maria_db, "t")
    try:
        log.db.execute("INSERT INTO t VALUES (1, 'a')")
        assert _ids(log.window()) == [1]
        log.db.execute(
            "START TRANSACTION",
            "INSERT INTO repl_items (trans_key, dbid, tablename, db_catalog, db_schema, guid,"
            " db_action, content, oldcontent, version, captured_at)"
            " SELECT trans_key, dbid, tablename, db_catalog, db_schema, UUID(), db_action,"
            " content, oldcontent, version, captured_at FROM repl_items LIMIT 1",
            "ROLLBACK",
        )
        log.db.execute("INSERT INTO t VALUES (2, 'b')")
        assert _ids(log.window()) == [2]  # the rolled-back key passed: a hole
        assert _holes(log.db) == 1
        assert log.window() == []
        assert _holes(log.db) == 0
    finally:
        log.close()


def test_a_server_stepping_its_keys_is_refused(cap: Cap, monkeypatch: Any) -> None:
    """auto_increment_increment (Galera sets it, as multi-source setups do): keys of other
    servers would interleave, with open transactions this one cannot see."""
    monkeypatch.setattr(stream, "_KEYS_CHECKED", set(), raising=False)
    cap.tick()
    cap.db.execute("SET GLOBAL auto_increment_increment = 2")
    try:
        conn = cap.cap.connect()
        try:
            with pytest.raises(LocationError, match="auto_increment_increment = 1"):
                cap.cap.tick(conn)
            st = cap.cap.status(conn)
            assert any("steps of 2" in p for p in st.problems), st.problems
            assert any("steps of 2" in p for p in cap.cap.check(conn, [TableConfig(name="t")]))
        finally:
            conn.close()
    finally:
        cap.db.execute("SET GLOBAL auto_increment_increment = 1")
    # a session stepping its own keys only leaves keys unused: their holes are given up
    pos = cap.tick()
    cap.tx("SET SESSION auto_increment_increment = 3",
           "INSERT INTO t VALUES (1, 'x'), (2, 'y')", "INSERT INTO t VALUES (3, 'z')")  # fmt: skip
    upto, recs = cap.window(pos)
    assert (_ids(recs), cap.window(upto)[1], _holes(cap.db)) == ([1, 2, 3], [], 0)
    assert [recs[i + 1].repl_key - recs[i].repl_key for i in range(2)] == [3, 3]
