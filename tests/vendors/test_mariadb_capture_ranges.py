"""MariaDB ticks by key ranges: a transaction open across several ticks (and a purge) is read
once, in the tick after its commit; records stamped one by one by an earlier version of the
tick are read as before, and one such version's late transaction is not lost."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_mariadb_capture_support import Cap, install

from syncpoint.config import TableConfig
from syncpoint.vendors.mariadb import stream
from tests.private_mariadb import make_log_maria_db

T = "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB"


@pytest.fixture(params=["shared", "east of UTC"])
def cap(request: Any, maria_db: Any) -> Iterator[Cap]:
    """On the shared server, and on one whose system time zone is 5h30 ahead of UTC (the
    open transactions' start times are the system's time, not the session's)."""
    if request.param == "shared":
        maria_db.execute(T)
        yield install(maria_db, "t")
        return
    gen = make_log_maria_db(request.getfixturevalue("east_maria"))  # one server per process
    db: Any = next(gen)
    (zone,) = db.query("SELECT @@system_time_zone")[0]
    assert zone == "IST", zone
    db.execute(T)
    yield install(db, "t")
    next(gen, None)


def _keys(cap: Cap, after: int, upto: int) -> list[int]:
    return sorted(int(r[0]) for r in cap.db.query(cap.cap.changes_query(cap.ref, after, upto)))


def test_open_transaction_across_ticks_and_purge_is_read_once(cap: Cap) -> None:
    p0 = cap.tick()
    long = cap.db.connect(autocommit=False)
    seen, windows = [], []
    pos, purged = p0, 0
    try:
        long.cursor().execute("INSERT INTO t VALUES (1, 'long')")  # the lowest repl_key
        for i in range(2, 6):
            cap.tx(f"INSERT INTO t VALUES ({i}, 'short')", f"INSERT INTO t VALUES ({i}0, 'x')")
            cap.tx(f"INSERT INTO t VALUES ({i}00, 'gone')", rollback=True)  # keys never used
            upto, recs = cap.window(pos)
            assert _keys(cap, pos, upto) == [r.repl_key for r in recs]
            windows.append((pos, upto))
            seen += recs
            conn = cap.conn()
            purged += cap.cap.purge(conn, pos)  # earlier ticks purged while the long one is open
            conn.close()
            pos = upto
        long.commit()
    finally:
        long.rollback()
        long.close()
    upto, last = cap.window(pos)
    after, none = cap.window(upto)
    # one read over the last two windows (ranges far apart: the long one's key is the lowest)
    two = sorted([r.repl_key for r in seen[-2:]] + [last[0].repl_key])
    assert _keys(cap, windows[-1][0], upto) == two
    assert [r.row["id"] for r in last] == [1]
    assert none == []
    seen += last
    assert sorted(r.row["id"] for r in seen) == [1, 2, 3, 4, 5, 20, 30, 40, 50]
    assert len({r.repl_key for r in seen}) == len(seen)
    assert last[0].repl_key < min(r.repl_key for r in seen[:-1])
    assert last[0].context == upto
    conn = cap.conn()
    assert purged + cap.cap.purge(conn, after) == 9
    conn.close()
    assert cap.db.query("SELECT COUNT(*) FROM repl_items") == [(0,)]
    assert cap.db.query("SELECT COUNT(*) FROM repl_tick_ranges") == [(0,)]


@pytest.mark.parametrize("first", ["tick", "install", "tick after a half-made upgrade"])
def test_a_queue_stamped_record_by_record_reads_on(cap: Cap, monkeypatch: Any, first: str) -> None:
    """A queue of a version whose ticks stamped every record (and had no range tables),
    with a transaction that was open at its last tick and commits after the upgrade; the
    newer version's first step there is a tick, or install run again."""
    p0 = cap.tick()
    if first.startswith("tick after"):
        # an upgrade stopped after its range table was made, before its hole table: a
        # range found there is not trusted (this one would cover every key)
        cap.db.execute("DROP TABLE repl_tick_holes",
                       "INSERT INTO repl_tick_ranges VALUES (1, 1000000, 1000, 0)")  # fmt: skip
    else:
        cap.db.execute("DROP TABLE repl_tick_ranges, repl_tick_holes")
    monkeypatch.setattr(stream, "_RANGED", set())
    conn = cap.conn()
    st = cap.cap.status(conn)  # writes nothing: says what makes the tables
    conn.close()
    assert any("earlier version" in p and "syncpoint install" in p for p in st.problems), st
    long = cap.db.connect(autocommit=False)
    try:
        long.cursor().execute("INSERT INTO t VALUES (1, 'late')")
        cap.tx("INSERT INTO t VALUES (2, 'stamped')")
        # that version's tick: the committed record stamped, the open one left
        (k2,) = cap.db.query("SELECT MAX(repl_key) FROM repl_items")[0]
        cap.db.execute(
            f"UPDATE repl_items SET context = {p0 + 1} WHERE repl_key = {k2}",
            f"UPDATE repl_service_context SET context = {p0 + 1}, max_key = {k2}",
            f"INSERT INTO repl_ticks VALUES ({p0 + 1}, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), 1)",
        )
        long.commit()
    finally:
        long.rollback()
        long.close()
    if first == "install":
        conn = cap.conn()
        cap.cap.install(conn, [TableConfig(name="t")])
        conn.close()
    cap.tx("INSERT INTO t VALUES (3, 'new')")
    upto, recs = cap.window(p0 + 1)
    assert [r.row["id"] for r in recs] == [1, 3]
    conn = cap.conn()
    old = cap.cap.changes(conn, cap.ref, p0, p0 + 1)
    conn.close()
    assert [r.row["id"] for r in old] == [2]
    assert _keys(cap, p0, upto) == sorted([old[0].repl_key] + [r.repl_key for r in recs])
