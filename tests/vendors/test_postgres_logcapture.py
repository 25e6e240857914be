"""PostgreSQL log capture (``capture: log``) at the vendor level, on a private server with
``wal_level = logical``: records equal to the trigger capture's, TOAST values an UPDATE
left alone, TRUNCATE, DDL in commit order, origins, exactly-once across a kill between
decoding and commit, a lost slot, install/uninstall, and what validate says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from dataclasses import asdict
from typing import Any

import pytest
from test_postgres_capture_support import Pg, listing, tx
from test_postgres_capture_types import INSERT, ODD_SESSION, SETUP

from syncpoint.config import TableConfig, WarningsConfig
from syncpoint.errors import LocationError, UsageError
from syncpoint.observe.warnings import status_warnings
from syncpoint.vendors.postgres.log.capture import PostgresLogCapture


class LogPg(Pg):
    def __post_init__(self) -> None:
        self.cap = PostgresLogCapture(self.location, self.db.url, self.prefix)


def _queue(db: Any, prefix: str) -> list[tuple[Any, ...]]:
    return db.query(
        f"SELECT tablename, db_schema, db_action, content, oldcontent, version, dbid "
        f"FROM {prefix}items ORDER BY repl_key"
    )


def test_records_equal_the_trigger_captures_for_every_type(log_db: Any) -> None:
    log_db.execute(*SETUP, "ALTER TABLE m REPLICA IDENTITY FULL")
    trg, log = Pg(log_db, prefix="trg_"), LogPg(log_db, prefix="log_")
    trg.install("public.m")
    log.install("public.m")
    tx(log_db, INSERT)
    tx(log_db, *ODD_SESSION, INSERT.replace("(\n    1,", "(\n    2,"))
    tx(log_db, *ODD_SESSION, "UPDATE m SET f8 = -0.0, tstz = now(), iv = '1 day', t = NULL")
    tx(log_db, "UPDATE m SET id = id + 10 WHERE id = 1")
    tx(log_db, "DELETE FROM m WHERE id = 2")
    tx(log_db, "TRUNCATE m")
    log.tick()
    want, got = _queue(log_db, "trg_"), _queue(log_db, "log_")
    assert len(want) == 8
    assert got == want


def test_default_replica_identity_keeps_the_old_key(log_db: Any) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY, name text, qty integer)")
    log = LogPg(log_db)
    log.install("public.t")
    p0 = log.tick()
    tx(log_db, "INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2)")
    tx(log_db, "UPDATE t SET qty = 5 WHERE id = 1", "UPDATE t SET id = 3 WHERE id = 2")
    tx(log_db, "DELETE FROM t WHERE id = 1")
    p1 = log.tick()
    got = [(r.db_action, r.row, r.old) for r in log.changes("public.t", p0, p1)]
    assert got == [
        ("INSERT", {"id": 1, "name": "a", "qty": 1}, None),
        ("INSERT", {"id": 2, "name": "b", "qty": 2}, None),
        ("UPDATE", {"id": 1, "name": "a", "qty": 5}, {"id": 1}),
        ("DELETE", None, {"id": 2}),
        ("INSERT", {"id": 3, "name": "b", "qty": 2}, None),
        ("DELETE", None, {"id": 1}),
    ]


def test_an_unchanged_toasted_value_is_kept(log_db: Any) -> None:
    big = "x" * 300_000  # stored out of line (TOAST), not sent when an UPDATE leaves it
    log_db.execute(
        "CREATE TABLE t (id integer PRIMARY KEY, doc text, qty integer)",
        "ALTER TABLE t ALTER doc SET STORAGE EXTERNAL",
    )
    log = LogPg(log_db)
    log.install("public.t")
    p0 = log.tick()
    log_db.execute("INSERT INTO t VALUES (1, %s, 1)", params=(big,))
    tx(log_db, "UPDATE t SET qty = 2 WHERE id = 1")
    p1 = log.tick()
    recs = log.changes("public.t", p0, p1)
    assert [r.db_action for r in recs] == ["INSERT", "UPDATE"]
    assert recs[1].row == {"id": 1, "doc": big, "qty": 2}


def test_ddl_in_commit_order_and_truncate(log_db: Any) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
    log = LogPg(log_db)
    log.install("public.t")
    p0 = log.tick()
    tx(
        log_db,
        "INSERT INTO t VALUES (1, 'a')",
        "ALTER TABLE t ADD COLUMN qty integer",
        "INSERT INTO t VALUES (2, 'b', 7)",
    )
    tx(log_db, "TRUNCATE t")
    p1 = log.tick()
    recs = log.changes("public.t", p0, p1)
    assert [(r.db_action, r.version) for r in recs] == [
        ("INSERT", 1),
        ("ALTER", 2),
        ("INSERT", 2),
        ("TRUNCATE", 2),
    ]
    assert [c["name"] for c in recs[1].row["columns"]] == ["id", "name", "qty"]
    assert recs[2].row == {"id": 2, "name": "b", "qty": 7}


def test_origin_marks_the_transactions_changes(log_db: Any) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
    log = LogPg(log_db)
    log.install("public.t")
    p0 = log.tick()
    conn = log.conn()
    try:
        conn.execute("INSERT INTO t VALUES (1, 'mine')")
        log.cap.set_origin(conn, "other")
        conn.execute("INSERT INTO t VALUES (2, 'applied')")
        log.cap.set_origin(conn, None)
        conn.execute("INSERT INTO t VALUES (3, 'mine again')")
        conn.commit()
    finally:
        conn.close()
    p1 = log.tick()
    assert [(r.row["id"], r.dbid) for r in log.changes("public.t", p0, p1)] == [
        (1, "dec01"),
        (2, "other"),
        (3, "dec01"),
    ]


_KILLED = """
import sys
from syncpoint.vendors.postgres.log.capture import PostgresLogCapture
cap = PostgresLogCapture("dec01", sys.argv[1], "repl_")
conn = cap.connect()
cap.tick(conn)
"""


def test_a_kill_between_decoding_and_commit_loses_and_repeats_nothing(log_db: Any) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
    log = LogPg(log_db)
    log.install("public.t")
    p0 = log.tick()
    for i in range(5):
        tx(log_db, f"INSERT INTO t VALUES ({i}, 'r{i}')")
    env = {**os.environ, "SYNCPOINT_FAILPOINT": "log_before_commit"}
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(_KILLED), log_db.url], env=env)
    assert run.returncode == -9  # SIGKILL at the failpoint
    assert log_db.query("SELECT count(*) FROM repl_items")[0][0] == 0
    tx(log_db, "INSERT INTO t VALUES (5, 'r5')")
    p1 = log.tick()
    assert [r.row["id"] for r in log.changes("public.t", p0, p1)] == list(range(6))
    # the slot confirmed past what is stored: nothing is decoded twice later either
    p2 = log.tick()
    assert log.changes("public.t", p1, p2) == []


def test_records_stored_but_slot_not_moved_are_skipped(log_db: Any) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
    log = LogPg(log_db)
    log.install("public.t")
    p0 = log.tick()
    before = log_db.query("SELECT confirmed_flush_lsn::text FROM pg_replication_slots")[0][0]
    tx(log_db, "INSERT INTO t VALUES (1, 'a')")
    p1 = log.tick()
    # as after a kill between the queue's commit and the slot's advance (or a server crash
    # that lost the slot's confirmed position): the slot goes back
    (slot,) = log_db.query("SELECT slot_name FROM pg_replication_slots")[0]
    log_db.execute("SELECT pg_drop_replication_slot(%s)", params=(slot,))
    log_db.query(f"SELECT pg_create_logical_replication_slot('{slot}', 'pgoutput')")
    log_db.execute("UPDATE repl_log_state SET lost = NULL")
    tx(log_db, "INSERT INTO t VALUES (2, 'b')")
    p2 = log.tick()
    assert before is not None
    assert [r.row["id"] for r in log.changes("public.t", p0, p2)] == [1, 2]
    assert p1 < p2
    # the tick itself moved the slot to what the queue stores (status's retained log and
    # its age are the slot's, so a run does not leave the slot behind its own records)
    stored = log_db.query("SELECT decoded::text FROM repl_log_state")[0][0]
    confirmed = log_db.query("SELECT confirmed_flush_lsn::text FROM pg_replication_slots")[0][0]
    assert confirmed == stored


def test_a_tick_hands_the_connection_back_as_it_got_it(log_db: Any) -> None:
    # the tick runs its own transactions in autocommit mode: the caller's connection comes
    # back in its own mode and without an open transaction, after a failed tick too
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
    log = LogPg(log_db)
    log.install("public.t")
    conn = log.cap.connect()
    try:
        tx(log_db, "INSERT INTO t VALUES (1, 'a')")
        log.cap.tick(conn)
        assert conn.autocommit is False
        assert conn.info.transaction_status == 0  # idle
        log_db.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots")
        with pytest.raises(LocationError, match="dropped"):
            log.cap.tick(conn)
        assert conn.autocommit is False
        assert conn.info.transaction_status == 0
        # and the drain's lock was let go: another session takes it at once
        key = "syncpoint:log:public.repl_"
        assert log_db.query("SELECT pg_try_advisory_lock(hashtext(%s))", params=(key,))[0][0]
    finally:
        conn.close()


def test_a_dropped_slot_stops_capture_with_the_way_back(log_db: Any) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
    log = LogPg(log_db)
    log.install("public.t")
    log.tick()
    log_db.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots")
    with pytest.raises(LocationError, match="snapshot"):
        log.tick()
    conn = log.conn()
    try:
        st = log.cap.status(conn)
        sid = st.stream_id
    finally:
        conn.close()
    assert st.tables[0].status.startswith("ERROR") and "snapshot" in st.tables[0].status
    assert st.log is not None and "dropped" in st.log["lost"]
    (warning,) = status_warnings({"capture": {"dec01": asdict(st)}}, WarningsConfig())
    assert warning["kind"] == "log_lost" and "syncpoint snapshot" in warning["message"]
    with pytest.raises(LocationError, match="dropped"):
        log.tick()  # never skips on
    log.install("public.t")  # a new slot and a new stream
    conn = log.conn()
    try:
        st = log.cap.status(conn)
    finally:
        conn.close()
    assert st.stream_id != sid and st.tables[0].status == "OK"
    log.tick()


def test_install_refuses_a_table_without_replica_identity(log_db: Any) -> None:
    log_db.execute("CREATE TABLE k (id integer, name text)", "CREATE TABLE t (id int PRIMARY KEY)")
    before = listing(log_db)
    log = LogPg(log_db)
    with pytest.raises(UsageError, match="replica identity"):
        log.install("public.t", TableConfig(name="public.k", key=["id"]))
    assert listing(log_db) == before
    assert log_db.query("SELECT count(*) FROM pg_publication")[0][0] == 0
    tx(log_db, "INSERT INTO k VALUES (1, 'a')", "UPDATE k SET name = 'b'")  # still works


def test_install_then_uninstall_leaves_nothing(log_db: Any) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
    before = listing(log_db)
    log = LogPg(log_db)
    conn = log.conn()
    try:
        plan = "\n".join(log.cap.plan(conn, [TableConfig(name="public.t")]))
    finally:
        conn.close()
    assert listing(log_db) == before  # plan changes nothing
    assert plan.index('CREATE PUBLICATION "repl_pub"') < plan.index(
        "pg_create_logical_replication_slot('repl_slot_"
    )
    assert 'ALTER PUBLICATION "repl_pub" SET TABLE "public"."t"' in plan
    log.install("public.t")
    log.install("public.t")  # idempotent
    ((slot, plugin),) = log_db.query("SELECT slot_name, plugin FROM pg_replication_slots")
    assert slot.startswith("repl_slot_") and plugin == "pgoutput"
    assert log_db.query("SELECT pubname, pubviaroot FROM pg_publication") == [("repl_pub", True)]
    assert log_db.query("SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal")[0][0] == 0
    conn = log.conn()
    try:
        assert "pg_drop_replication_slot" in log.cap.uninstall_plan(conn)[0]
    finally:
        conn.close()
    log.uninstall()
    assert listing(log_db) == before
    assert log_db.query("SELECT count(*) FROM pg_replication_slots")[0][0] == 0
    assert log_db.query("SELECT count(*) FROM pg_publication")[0][0] == 0


def test_validate_names_what_the_shared_server_lacks(pg_db: Any) -> None:
    pg_db.execute(
        "CREATE TABLE t (id integer PRIMARY KEY)",
        "CREATE TABLE k (id integer)",
        "CREATE TABLE p (id integer PRIMARY KEY) PARTITION BY RANGE (id)",
        "CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (10)",
    )
    Pg(pg_db).install("public.t")  # trigger capture of the same prefix
    cap = PostgresLogCapture("dec01", pg_db.url, "repl_")
    conn = cap.connect()
    try:
        problems = cap.check(
            conn,
            [TableConfig(name=n) for n in ("public.t", "public.p1")]
            + [TableConfig(name="public.k", key=["id"])],
        )
    finally:
        conn.close()
    text = json.dumps(problems)
    wal = os.environ.get("SYNCPOINT_TEST_PG_WAL_LEVEL")
    if pg_db.query("SHOW wal_level")[0][0] != "logical" or wal:
        assert "wal_level = logical" in text
    assert "list the partitioned table public.p instead" in text
    assert "public.k" in text and "no usable replica identity" in text
    assert "trigger capture of prefix repl_ is installed" in text


def test_status_shows_the_retained_log_with_a_warning_over_the_threshold(log_db: Any) -> None:
    # a foreign key gives the table the server's own triggers
    log_db.execute(
        "CREATE TABLE t (id integer PRIMARY KEY, name text, up integer REFERENCES t (id))"
    )
    log = LogPg(log_db)
    log.install("public.t")
    tx(log_db, "INSERT INTO t SELECT g, repeat('x', 100), NULL FROM generate_series(1, 2000) g")
    conn = log.conn()
    try:
        st = log.cap.status(conn)
        assert log.cap.status_tick(conn) is None  # status writes nothing, drains nothing
    finally:
        conn.close()
    assert st.log is not None and st.log["retained_bytes"] > 100_000
    assert st.log["unread_bytes"] > 100_000  # the WAL's own distance: nothing drained it
    assert st.log["wal_status"] == "reserved" and not st.log.get("lost")
    doc = {"capture": {"dec01": asdict(st)}}
    assert status_warnings(doc, WarningsConfig()) == []
    (w,) = status_warnings(doc, WarningsConfig(retained_log_bytes=100_000))
    assert w["kind"] == "log_retained" and w["value"] == st.log["retained_bytes"]
    assert log_db.query("SELECT count(*) FROM repl_items")[0][0] == 0


def non_superuser(log_db: Any) -> tuple[str, Any]:
    """A role that may replicate and create in the database, not a superuser (no event
    triggers), and the database as that role sees it."""
    role = f"sp_repl_{uuid.uuid4().hex[:8]}"
    log_db.execute(
        f"CREATE ROLE {role} LOGIN REPLICATION",
        f"GRANT CREATE ON DATABASE {log_db.name} TO {role}",
        f"GRANT ALL ON SCHEMA public TO {role}",
    )
    url = log_db.url.replace("postgres@", f"{role}@", 1)
    return role, type(log_db)(log_db.vendor, url, log_db.name)


def test_without_superuser_ddl_comes_from_the_relation_messages(log_db: Any) -> None:
    role, user = non_superuser(log_db)
    user.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
    log = LogPg(user)
    conn = log.conn()
    try:
        assert log.cap.check(conn, [TableConfig(name="public.t")]) == []
    finally:
        conn.close()
    log.install("public.t")
    assert log_db.query("SELECT count(*) FROM pg_event_trigger")[0][0] == 0
    p0 = log.tick()
    conn = log.conn()
    try:
        conn.execute("INSERT INTO t VALUES (1, 'a')")
        log.cap.set_origin(conn, "elsewhere")
        conn.execute("INSERT INTO t VALUES (2, 'b')")
        conn.commit()
    finally:
        conn.close()
    tx(
        user,
        "ALTER TABLE t ADD COLUMN qty integer NOT NULL DEFAULT 0",
        "INSERT INTO t VALUES (3, 'c', 7)",
    )
    p1 = log.tick()
    recs = log.changes("public.t", p0, p1)
    assert [(r.db_action, r.version, r.dbid) for r in recs] == [
        ("INSERT", 1, "dec01"),
        ("INSERT", 1, "elsewhere"),
        ("ALTER", 2, "dec01"),
        ("INSERT", 2, "dec01"),
    ]
    assert recs[2].row["columns"][-1] == {
        "name": "qty",
        "type": "integer",
        "nullable": False,
        "pk": None,
        "filled": True,  # the rows already there hold its default
    }
    assert recs[2].old["columns"] == [c for c in recs[2].row["columns"] if c["name"] != "qty"]
    log.uninstall()
    log_db.execute(f"DROP OWNED BY {role}", f"DROP ROLE {role}")


def test_a_dropped_table_made_again_is_followed(log_db: Any) -> None:
    log_db.execute("CREATE TABLE t (id integer PRIMARY KEY, name text)")
    log = LogPg(log_db)
    log.install("public.t")
    p0 = log.tick()
    tx(log_db, "INSERT INTO t VALUES (1, 'a')")
    tx(log_db, "DROP TABLE t")
    pd = log.tick()  # drained while the table is dropped: its rows before the DROP count
    assert [r.db_action for r in log.changes("public.t", p0, pd)] == ["INSERT", "DROP"]
    tx(
        log_db,
        "CREATE TABLE t (id integer PRIMARY KEY, name text, n int)",
        "INSERT INTO t VALUES (2, 'b', 3)",
    )
    tx(log_db, "ALTER TABLE t RENAME TO t2", "INSERT INTO t2 VALUES (4, 'd', 5)")
    p1 = log.tick()
    recs = log.changes("public.t", p0, p1)
    assert [(r.db_action, r.version) for r in recs] == [
        ("INSERT", 1),
        ("DROP", 2),
        ("CREATE", 3),
        ("INSERT", 3),
        ("ALTER", 4),
    ]
    assert recs[3].row == {"id": 2, "name": "b", "n": 3}
    assert [(r.db_action, r.row) for r in log.changes("public.t2", p0, p1)] == [
        ("INSERT", {"id": 4, "name": "d", "n": 5})
    ]


def test_a_partitioned_table_through_its_partitions(log_db: Any) -> None:
    log_db.execute(
        "CREATE TABLE ev (id integer, day date, v text, PRIMARY KEY (id, day)) "
        "PARTITION BY RANGE (day)",
        "CREATE TABLE ev_a PARTITION OF ev FOR VALUES FROM ('2024-01-01') TO ('2024-07-01')",
    )
    log = LogPg(log_db)
    log.install("public.ev")
    p0 = log.tick()
    tx(log_db, "INSERT INTO ev VALUES (1, '2024-02-01', 'parent')")
    log_db.execute(
        "CREATE TABLE ev_b (id integer NOT NULL, day date NOT NULL, v text)",
        "ALTER TABLE ev ATTACH PARTITION ev_b FOR VALUES FROM ('2024-07-01') TO ('2025-01-01')",
    )
    tx(log_db, "INSERT INTO ev_b VALUES (2, '2024-08-01', 'attached')")
    tx(log_db, "UPDATE ev SET day = '2024-09-01' WHERE id = 1")  # to the other partition
    tx(log_db, "TRUNCATE ev_b")  # one partition: its rows are deleted, as the root's
    log_db.execute("ALTER TABLE ev DETACH PARTITION ev_a")
    tx(log_db, "INSERT INTO ev_a VALUES (3, '2024-03-01', 'detached')", "TRUNCATE ev_a")
    p1 = log.tick()
    got = [(r.db_action, (r.row or r.old)["id"]) for r in log.changes("public.ev", p0, p1)]
    assert got[:4] == [("INSERT", 1), ("INSERT", 2), ("DELETE", 1), ("INSERT", 1)]
    assert sorted(got[4:]) == [("DELETE", 1), ("DELETE", 2)]
    assert log_db.query("SELECT count(*) FROM ev_a")[0][0] == 0  # its TRUNCATE is its own
    assert log_db.query("SELECT tgrelid::regclass::text FROM pg_trigger") == [("ev_b",)]


def test_without_superuser_an_enum_label_renamed_stops_the_table(log_db: Any) -> None:
    """RENAME VALUE changes every row holding the label, and neither the log nor a relation
    message says so: the tick's check finds the label gone from the table's shape and
    stops the table (a STOP record); a label only added is no stop, and is kept."""
    role, user = non_superuser(log_db)
    user.execute(
        "CREATE TYPE mood AS ENUM ('sad', 'ok')",
        "CREATE TABLE t (id integer PRIMARY KEY, m mood)",
    )
    log = LogPg(user)
    log.install("public.t")
    p0 = log.tick()
    tx(user, "INSERT INTO t VALUES (1, 'sad')")
    user.execute("ALTER TYPE mood ADD VALUE 'meh'")

    def round_tick() -> int:  # as a round does: the check, then the tick
        conn = log.conn()
        try:
            log.cap.poll_ddl(conn)
        finally:
            conn.close()
        return log.tick()

    p1 = round_tick()
    assert [r.db_action for r in log.changes("public.t", p0, p1)] == ["INSERT"]
    user.execute("ALTER TYPE mood RENAME VALUE 'meh' TO 'fine'")
    p2 = round_tick()
    (stop,) = log.changes("public.t", p1, p2)
    assert stop.db_action == "STOP"
    assert "enum labels renamed (m: 'meh' gone)" in (stop.content or "")
    log.uninstall()
    log_db.execute(f"DROP OWNED BY {role}", f"DROP ROLE {role}")
