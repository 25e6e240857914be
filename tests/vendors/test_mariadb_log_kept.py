"""MariaDB log capture with the binary log reader a follower keeps open across its ticks
(``vendors/kept.py``): one replica connection (one registration as a replica) for
all of them, each row once, also with a writer committing while the ticks read and with
another process draining in between (the kept reader then stands behind the stored
position and is replaced, never read from)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from typing import Any

from syncpoint.config import TableConfig, TableName
from syncpoint.vendors.kept import kept
from syncpoint.vendors.mariadb.log.capture import MariadbLogCapture

T = "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB"


def _dumps(db: Any) -> set[int]:
    """The ids of the server's binary log dump threads (one per replica connection)."""
    return {
        int(r[0])
        for r in db.query("SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE "
                          "'Binlog Dump%'")  # fmt: skip
    }


def _one_dump(db: Any) -> int:
    """The one dump thread, once a closed reader's has ended (it may linger a moment)."""
    for _ in range(100):
        found = _dumps(db)
        if len(found) == 1:
            return found.pop()
        time.sleep(0.1)
    raise AssertionError(f"dump threads: {_dumps(db)}")


def _ids(cap: Any, conn: Any, after: int, upto: int) -> list[int]:
    return [int(r.row["id"]) for r in cap.changes(conn, TableName(name="t"), after, upto)
            if r.db_action == "INSERT"]  # fmt: skip


def test_one_reader_across_ticks_rows_once(log_maria_db: Any) -> None:
    db = log_maria_db
    db.execute(T)
    cap = MariadbLogCapture("m1", db.url, "repl_")
    conn = cap.connect()
    cap.install(conn, [TableConfig(name="t")])
    p0 = cap.tick(conn).context
    stop = threading.Event()
    written: list[int] = []

    def writer() -> None:
        w = db.connect(autocommit=True)
        n = 0
        while not stop.is_set() and n < 400:
            w.cursor().execute("INSERT INTO t VALUES (%s, 'w')", (n,))
            written.append(n)
            n += 1
        w.close()

    try:
        with kept():
            db.execute("INSERT INTO t VALUES (-1, 'first')")
            p = cap.tick(conn).context  # reads: the reader is made
            ours = _one_dump(db)  # the reader's connection, open between ticks
            th = threading.Thread(target=writer)
            th.start()
            seen: list[int] = []
            for _ in range(6):  # ticks while the writer commits: rows after a tick's target
                q = cap.tick(conn).context  # come in the next one
                seen += _ids(cap, conn, p, q)
                p = q
                assert _dumps(db) == {ours}
            stop.set()
            th.join()
            q = cap.tick(conn).context
            seen += _ids(cap, conn, p, q)
            p = q
            assert seen == written  # each once, in commit order
            # another process drains meanwhile: the kept reader is behind the stored
            # position, and a new one reads on from there
            db.execute("INSERT INTO t VALUES (1000, 'other')")
            code = (
                "import sys; from syncpoint.vendors.mariadb.log.capture import "
                "MariadbLogCapture as C; c = C('m1', sys.argv[1], 'repl_'); c.tick(c.connect())"
            )
            assert subprocess.run([sys.executable, "-c", code, db.url], timeout=120).returncode == 0
            db.execute("INSERT INTO t VALUES (1001, 'mine')")
            q = cap.tick(conn).context
            assert _ids(cap, conn, p, q) == [1000, 1001]
            assert _one_dump(db) != ours
        assert _ids(cap, conn, p0, q) == [-1, *written, 1000, 1001]
    finally:
        stop.set()
        conn.close()
