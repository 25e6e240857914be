"""MariaDB capture from the binary log (capture: log), against a private MariaDB with the
binary log on: install/plan/uninstall, ticks that drain whole transactions in commit order,
exactly-once across a kill before the drain commits and between the drain and its tick,
origins, DDL and TRUNCATE in log order, cascaded foreign-key changes, what validate asks of
the server, a purged binary log, and events that must stop capture rather than be
skipped."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

import pymysql
import pytest

from syncpoint.config import TableConfig, TableName
from syncpoint.core.model import ChangeRecord
from syncpoint.errors import LocationError, TableStopped
from syncpoint.vendors.mariadb.capture import MariadbCapture
from syncpoint.vendors.mariadb.log import drain
from syncpoint.vendors.mariadb.log.capture import MariadbLogCapture
from tests.private_mariadb import binlog_head, tables_logged

T = "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB"


class Log:
    """A log capture installed on a test database, with helpers."""

    def __init__(self, db: Any, *tables: str, prefix: str = "repl_", location: str = "m1"):
        self.db = db
        self.tables = [TableConfig(name=t) for t in tables]
        self.cap = MariadbLogCapture(location, db.url, prefix)
        self.conn = self.cap.connect()
        self.cap.install(self.conn, self.tables)
        self.last = self.tick()

    def tick(self) -> int:
        return self.cap.tick(self.conn).context

    def window(self, table: str = "t") -> list[ChangeRecord]:
        """The records of ``table`` since the previous call (a new tick first)."""
        after, self.last = self.last, self.tick()
        from syncpoint.config import TableName

        return self.cap.changes(self.conn, TableName(name=table), after, self.last)

    def close(self) -> None:
        self.conn.close()


def rows(recs: list[ChangeRecord]) -> list[tuple[str, Any, Any]]:
    return [(r.db_action, r.row, r.old) for r in recs]


@pytest.fixture
def log(log_maria_db: Any) -> Any:
    log_maria_db.execute(T)
    cap = Log(log_maria_db, "t")
    yield cap
    cap.close()


def test_plan_install_uninstall(log_maria_db: Any) -> None:
    db = log_maria_db
    db.execute(T)
    cap = MariadbLogCapture("m1", db.url, "repl_")
    conn = cap.connect()
    plan = "\n".join(cap.plan(conn, [TableConfig(name="t")]))
    assert "`repl_log_state`" in plan and "`repl_origin_marks`" in plan
    assert "TRIGGER" not in plan
    cap.install(conn, [TableConfig(name="t")])
    assert db.query("SELECT COUNT(*) FROM information_schema.TRIGGERS "
                    "WHERE TRIGGER_SCHEMA = DATABASE()") == [(0,)]  # fmt: skip
    gtid = db.query("SELECT gtid FROM repl_log_state")[0][0]
    assert gtid and gtid.count("-") == 2
    cap.install(conn, [TableConfig(name="t")])  # again: keeps the position
    assert db.query("SELECT gtid FROM repl_log_state")[0][0] == gtid
    drops = cap.uninstall_plan(conn)
    cap.uninstall(conn)
    conn.close()
    assert any("repl_log_state" in s for s in drops)
    left = db.query("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                    "DATABASE() AND TABLE_NAME LIKE 'repl%'")  # fmt: skip
    assert left == []


def test_tick_drains_whole_committed_transactions_in_commit_order(log: Log) -> None:
    a = log.db.connect(autocommit=False)
    b = log.db.connect(autocommit=False)
    a.cursor().execute("INSERT INTO t VALUES (1, 'a-first')")  # opened first, commits last
    b.cursor().execute("INSERT INTO t VALUES (2, 'b')")
    b.cursor().execute("UPDATE t SET name = 'b2' WHERE id = 2")
    b.commit()
    assert rows(log.window()) == [
        ("INSERT", {"id": 2, "name": "b"}, None),
        ("UPDATE", {"id": 2, "name": "b2"}, {"id": 2, "name": "b"}),
    ]
    a.cursor().execute("DELETE FROM t WHERE id = 2")
    a.commit()
    recs = log.window()
    assert rows(recs) == [
        ("INSERT", {"id": 1, "name": "a-first"}, None),
        ("DELETE", None, {"id": 2, "name": "b2"}),
    ]
    assert recs[0].trans_key == recs[1].trans_key  # one source transaction
    a.rollback()
    b.cursor().execute("INSERT INTO t VALUES (3, 'rolled back')")
    b.rollback()
    assert log.window() == []
    a.close()
    b.close()


def test_guarantee_is_the_sampled_time_and_never_goes_back(log: Log) -> None:
    t1 = log.cap.tick(log.conn)
    t2 = log.cap.tick(log.conn)
    assert t1.guaranteed <= t2.guaranteed
    assert t2.sampled_at is not None and t2.guaranteed <= t2.sampled_at
    assert log.cap.status_tick(log.conn) is None


def test_kill_before_the_drain_commits_then_rerun_captures_once(log: Log) -> None:
    log.db.execute("INSERT INTO t VALUES (1, 'x'), (2, 'y')", "UPDATE t SET name = 'z'")
    code = (
        "import sys; from syncpoint.vendors.mariadb.log.capture import MariadbLogCapture as C;"
        "c = C('m1', sys.argv[1], 'repl_'); c.tick(c.connect())"
    )
    env = {**os.environ, "SYNCPOINT_FAILPOINT": "log_before_commit"}
    done = subprocess.run([sys.executable, "-c", code, log.db.url], env=env, timeout=120)
    assert done.returncode == -9  # killed itself at the failpoint
    assert log.db.query("SELECT COUNT(*) FROM repl_items WHERE db_action <> 'TRUNCATE'") == [(0,)]
    got = rows(log.window())
    assert [a for a, _, _ in got] == ["INSERT", "INSERT", "UPDATE", "UPDATE"]
    assert log.window() == []  # and never again


def test_records_drained_into_a_tick_not_yet_made_are_read_once(log: Log) -> None:
    log.db.execute("INSERT INTO t VALUES (1, 'x')")
    # a drain that committed, and no tick after it (as a kill between the two leaves it)
    drain.drain(log.conn, log.cap._site(log.conn), log.cap.url)
    log.conn.commit()
    assert log.db.query("SELECT context FROM repl_items WHERE tablename = 't'") == [
        (log.last + 1,)  # written in the next tick, which is not made yet
    ]
    assert log.cap.changes(log.conn, TableName(name="t"), 0, log.last) == []
    log.db.execute("INSERT INTO t VALUES (2, 'y')")
    got = rows(log.window())  # the next tick: both drains' records, once
    assert [(a, new["id"]) for a, new, _ in got] == [("INSERT", 1), ("INSERT", 2)]
    assert log.window() == []


def test_origin_marks_tag_the_transaction_and_own_tables_are_not_captured(log: Log) -> None:
    conn = log.db.connect(autocommit=False)
    cur = conn.cursor()
    cur.execute("INSERT INTO t VALUES (1, 'local')")
    log.cap.set_origin(conn, "far")
    cur.execute("INSERT INTO t VALUES (2, 'applied')")
    log.cap.set_origin(conn, None)
    cur.execute("INSERT INTO t VALUES (3, 'local again')")
    conn.commit()
    log.cap.set_origin(conn, "far")  # the same origin twice: still marked
    cur.execute("INSERT INTO t VALUES (4, 'applied again')")
    conn.commit()
    conn.close()
    recs = log.window()
    assert [(r.row["id"], r.dbid) for r in recs] == [(1, "m1"), (2, "far"), (3, "m1"), (4, "far")]
    tables = {t for (t,) in log.db.query("SELECT DISTINCT tablename FROM repl_items")}
    assert tables == {"t"}


def _admin(db: Any) -> Any:
    return pymysql.connect(host="127.0.0.1", port=int(db.url.split(":")[-1].split("/")[0]),
                           user="root", autocommit=True)  # fmt: skip


def test_ticks_and_purges_write_nothing_of_syncpoint_to_the_binary_log(log: Log) -> None:
    admin = _admin(log.db)
    since = binlog_head(admin)
    log.db.execute("INSERT INTO t VALUES (1, 'x'), (2, 'y')", "UPDATE t SET name = 'z'")
    assert [(a, new["id"]) for a, new, _ in rows(log.window())] == [
        ("INSERT", 1), ("INSERT", 2), ("UPDATE", 1), ("UPDATE", 2),
    ]  # fmt: skip
    assert log.cap.purge(log.conn, log.last) >= 4
    assert log.db.query("SELECT COUNT(*) FROM repl_items WHERE tablename = 't'") == [(0,)]
    # the application's two transactions are in the log; the drain, ticks and purge are not
    assert tables_logged(admin, log.db.name, since) == {"t": 2}
    # the capture's session writes to the log again: an origin mark on it still tags
    cur = log.conn.cursor()
    log.cap.set_origin(log.conn, "far")
    cur.execute("INSERT INTO t VALUES (3, 'applied')")
    log.cap.set_origin(log.conn, None)
    log.conn.commit()
    assert [(r.row["id"], r.dbid) for r in log.window()] == [(3, "far")]
    said = "queue writes kept out of the binary log: yes (ALL PRIVILEGES)"
    assert log.cap.notes(log.conn) == [said]
    assert log.cap.plan(log.conn, log.tables)[0] == f"-- {said}"
    admin.close()


def test_without_binlog_admin_the_writes_stay_in_the_log_and_capture_works(
    log_maria_db: Any,
) -> None:
    db = log_maria_db
    db.execute(T)
    user = f"u{db.name[-8:]}"
    db.execute(
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT ALL ON `{db.name}`.* TO '{user}'@'%'",
        f"GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO '{user}'@'%'",
    )
    admin = _admin(db)
    try:
        log = Log(db, "t")  # installed by root: its stored function needs SUPER here
        log.close()
        # ticks and purges as the user without BINLOG ADMIN
        log.cap = MariadbLogCapture("m1", db.url.replace("root@", f"{user}:pw@"), "repl_")
        log.conn = log.cap.connect()
        assert log.cap.check(log.conn, log.tables) == []
        said = log.cap.notes(log.conn)
        assert said == [
            f"queue writes kept out of the binary log: no: grant BINLOG ADMIN to '{user}'@'%' "
            f"(GRANT BINLOG ADMIN ON *.* TO '{user}'@'%'), else each captured row is written "
            "to the binary log twice more, queued and purged"
        ]
        since = binlog_head(admin)
        db.execute("INSERT INTO t VALUES (1, 'x'), (2, 'y')", "DELETE FROM t WHERE id = 1")
        got = [(a, (new or old)["id"]) for a, new, old in rows(log.window())]
        assert got == [("INSERT", 1), ("INSERT", 2), ("DELETE", 1)]
        assert log.cap.purge(log.conn, log.last) >= 3
        assert log.window() == []
        logged = tables_logged(admin, db.name, since)
        assert logged["t"] == 2 and logged["repl_items"] >= 2  # queued, purged: as before
        log.close()
    finally:
        db.execute(f"DROP USER '{user}'@'%'")
        admin.close()


def test_ddl_and_truncate_records_in_log_order(log: Log) -> None:
    log.db.execute(
        "INSERT INTO t VALUES (1, 'before')",
        "ALTER TABLE t ADD COLUMN extra INT NULL",
        "INSERT INTO t VALUES (2, 'after', 7)",
        "TRUNCATE TABLE t",
        "INSERT INTO t VALUES (3, 'refilled', NULL)",
    )
    recs = log.window()
    assert [r.db_action for r in recs] == ["INSERT", "ALTER", "INSERT", "TRUNCATE", "INSERT"]
    assert recs[0].row == {"id": 1, "name": "before"}
    assert [c["name"] for c in recs[1].row["columns"]] == ["id", "name", "extra"]
    assert recs[2].row == {"id": 2, "name": "after", "extra": 7}
    assert recs[0].version < recs[1].version == recs[2].version < recs[3].version


def test_cascaded_changes_are_not_in_the_binary_log_so_rounds_make_them(
    log_maria_db: Any,
) -> None:
    db = log_maria_db
    db.execute(
        "CREATE TABLE p (id INT PRIMARY KEY, code INT UNIQUE) ENGINE=InnoDB",
        "CREATE TABLE c (id INT PRIMARY KEY, pcode INT NULL, pid INT NULL,"
        " FOREIGN KEY (pcode) REFERENCES p (code) ON UPDATE CASCADE,"
        " FOREIGN KEY (pid) REFERENCES p (id) ON DELETE SET NULL) ENGINE=InnoDB",
    )
    tables = [TableConfig(name="p"), TableConfig(name="c")]
    for cap in (MariadbCapture("m1", db.url, "trg_"), MariadbLogCapture("m1", db.url, "log_")):
        conn = cap.connect()
        # with its parent replicated, the child's cascades are made by the rounds; without,
        # nothing could make them: refused, saying why
        followed = cap.check(conn, tables)
        refused = cap.check(conn, tables[1:])
        conn.close()
        assert not [p for p in followed if "foreign key" in p], followed
        assert any("ON UPDATE CASCADE" in p and "binary log" in p for p in refused)
        assert any("ON DELETE SET NULL" in p for p in refused)
    # why: MariaDB 10.11 maps the child table in the parent's transaction but writes none
    # of the rows its cascades change
    db.execute("INSERT INTO p VALUES (1, 10), (2, 20)", "INSERT INTO c VALUES (1, 10, 2)")
    admin = db.connect(autocommit=True)
    cur = admin.cursor()
    cur.execute("FLUSH BINARY LOGS")
    cur.execute("SHOW MASTER STATUS")
    current = cur.fetchone()[0]
    admin.close()
    db.execute("UPDATE p SET code = 11 WHERE id = 1", "DELETE FROM p WHERE id = 2")
    assert db.query("SELECT * FROM c") == [(1, 11, None)]
    events = db.query(f"SHOW BINLOG EVENTS IN '{current}'")
    mapped = [e[5] for e in events if e[2] == "Table_map"]
    assert any(f"({db.name}.c)" in m for m in mapped)
    changed = {e[5].split("table_id: ")[1].split()[0] for e in events if e[2].endswith("_rows_v1")}
    child = {m.split("table_id: ")[1].split()[0] for m in mapped if f"({db.name}.c)" in m}
    assert changed and not changed & child


def test_validate_names_every_missing_server_setting_and_privilege(
    log_maria_db: Any, maria_db: Any
) -> None:
    # the shared server: no binary log, and not the settings log capture needs
    maria_db.execute(T)
    cap = MariadbLogCapture("shared", maria_db.url, "repl_")
    conn = cap.connect()
    found = "\n".join(cap.check(conn, [TableConfig(name="t")]))
    conn.close()
    for needle in ("log_bin", "binlog_row_metadata", "ROW"):
        assert needle in found
    # a user without the replication privileges on the private server
    db = log_maria_db
    db.execute(T)
    user = f"u{db.name[-8:]}"
    db.execute(
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'",
        f"GRANT ALL ON `{db.name}`.* TO '{user}'@'%'",
    )
    try:
        url = db.url.replace("root@", f"{user}:pw@")
        cap = MariadbLogCapture("m1", url, "repl_")
        conn = cap.connect()
        found = "\n".join(cap.check(conn, [TableConfig(name="t")]))
        conn.close()
        assert "GRANT REPLICATION SLAVE ON *.*" in found
        assert "GRANT BINLOG MONITOR ON *.*" in found
        assert "PROCESS" not in found  # ticks of log capture read no transaction list
    finally:
        db.execute(f"DROP USER '{user}'@'%'")


def test_statement_based_and_compressed_events_stop_capture(log: Log) -> None:
    admin = log.db.connect(autocommit=True)
    cur = admin.cursor()
    cur.execute("SET SESSION binlog_format = 'STATEMENT'")
    cur.execute("INSERT INTO t VALUES (1, 'statement')")
    admin.close()
    with pytest.raises(LocationError, match="binlog_format must be ROW"):
        log.tick()
    with pytest.raises(LocationError, match="binlog_format must be ROW"):
        log.tick()  # and again: never skipped


def test_compressed_events_stop_capture(log_maria_db: Any) -> None:
    log_maria_db.execute(T)
    log = Log(log_maria_db, "t")
    try:
        log_maria_db.execute("SET GLOBAL log_bin_compress = ON",
                             "SET GLOBAL log_bin_compress_min_len = 10")  # fmt: skip
        assert any("log_bin_compress" in p for p in log.cap.check(log.conn, log.tables))
        conn = log_maria_db.connect(autocommit=True)
        conn.cursor().execute("INSERT INTO t VALUES (1, REPEAT('x', 20))")
        conn.close()
    finally:
        log_maria_db.execute("SET GLOBAL log_bin_compress = OFF")
    with pytest.raises(LocationError, match="log_bin_compress=OFF"):
        log.tick()
    log.close()


def test_status_shows_retained_binlog(log: Log) -> None:
    log.db.execute("INSERT INTO t VALUES (1, 'x')")
    st = log.cap.status(log.conn)
    held = st.log or {}
    assert held["retained_bytes"] > 0 and held["retained_files"] >= 1
    assert held["unread_bytes"] > 0  # the insert, not drained yet
    assert not held.get("lost")


def test_an_idle_source_caught_up_does_not_age_and_one_change_behind_does(log: Log) -> None:
    log.db.execute("INSERT INTO t VALUES (1, 'x')")
    log.tick()
    admin = _admin(log.db)
    cur = admin.cursor()
    cur.execute("SET SESSION sql_log_bin = 0")  # as the ticks: nothing after the position
    cur.execute(f"UPDATE `{log.db.name}`.repl_log_state SET event_at = event_at - "
                "INTERVAL 1 HOUR, drained_at = drained_at - INTERVAL 1 HOUR")  # fmt: skip
    admin.close()
    # an hour without a change, every tick logging nothing: nothing waits
    held = log.cap.status(log.conn).log or {}
    assert held["age_seconds"] == 0.0 and held["unread_bytes"] == 0
    log.db.execute("INSERT INTO t VALUES (2, 'y')")  # not drained yet: the position ages
    assert (log.cap.status(log.conn).log or {})["age_seconds"] >= 3600


def test_purged_binlog_stops_the_tables_with_snapshot_as_the_way_back(log: Log) -> None:
    log.db.execute("INSERT INTO t VALUES (1, 'x')")
    assert len(log.window()) == 1  # the stored position is the INSERT's
    log.db.execute("INSERT INTO t VALUES (2, 'never read')")
    stream = log.cap.stream_id(log.conn)
    admin = log.db.connect(autocommit=True)
    cur = admin.cursor()
    for _ in range(50):  # a file stays until InnoDB has checkpointed its transactions
        cur.execute("FLUSH BINARY LOGS")
        cur.execute("SHOW MASTER STATUS")
        current = cur.fetchone()[0]
        cur.execute(f"PURGE BINARY LOGS TO '{current}'")
        cur.execute("SHOW BINARY LOGS")
        if len(cur.fetchall()) == 1:
            break
        time.sleep(0.2)
    admin.close()
    assert log.cap.status(log.conn).problems  # status already says the position is gone
    with pytest.raises(TableStopped, match="syncpoint snapshot"):
        log.tick()
    st = log.cap.status(log.conn)
    assert all(t.status.startswith("ERROR") and "snapshot" in t.status for t in st.tables)
    assert st.stream_id != stream  # positions of the old stream are refused from now on
    log.db.execute("INSERT INTO t VALUES (3, 'y')")
    assert [r.row["id"] for r in log.window()] == [3]


def test_user_errors_are_not_swallowed(log: Log) -> None:
    with pytest.raises(pymysql.err.Error):
        log.db.execute("INSERT INTO t VALUES (1, 'a'), (1, 'b')")
    assert log.window() == []


def test_a_large_transaction_is_drained_whole(log_maria_db: Any) -> None:
    # MariaDB 10.11 resets a non-blocking binary log dump in the middle of one like this
    log_maria_db.execute("CREATE TABLE big (id INT PRIMARY KEY, c LONGTEXT, k INT) ENGINE=InnoDB")
    log = Log(log_maria_db, "big")
    log_maria_db.execute(
        "INSERT INTO big SELECT seq, REPEAT('x', 300), 0 FROM seq_1_to_400",
        "UPDATE big SET k = k + 1",
    )
    recs = log.window("big")
    assert [r.db_action for r in recs] == ["INSERT"] * 400 + ["UPDATE"] * 400
    assert recs[-1].row == {"id": 400, "c": "x" * 300, "k": 1}
    log.close()
