"""Lock semantics of the gate per vendor (docs/guarantees.md §6): the decision is made on
the locked read; serialization failures are retried, not taken for "busy"; a row lock held
too long gives up cleanly; a holder killed while holding the row lock is released by the
database with its connection."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any

import psycopg
import pytest

from syncpoint import vendors
from syncpoint.core.gate import Holder, State
from syncpoint.errors import GateBusy
from syncpoint.ops.gate import Gate, Turn

HOLDER = Holder("test-host", 1, "test holder", "0" * 32)


def store_for(db) -> Any:
    s = vendors.get(db.vendor).GateStore(db.url, "repl_")
    s.connect()
    return s


def lock_waiters(db) -> int | None:
    """Sessions of this database waiting for a lock (None where the vendor cannot tell)."""
    if db.vendor == "postgres":
        q = (
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
    elif db.vendor == "mariadb":
        q = (
            "SELECT count(*) FROM information_schema.innodb_trx t "
            "JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id "
            "WHERE t.trx_state = 'LOCK WAIT' AND p.db = DATABASE()"
        )
    else:
        return None
    return int(db.query(q)[0][0])


def wait_for_waiter(db) -> None:
    for _ in range(80):
        n = lock_waiters(db)
        if n is None:
            time.sleep(0.5)  # SQLite shows no waiters: give the waiter time to block
            return
        if n > 0:
            return
        # MariaDB refreshes its INNODB_TRX cache only when it was not read for 0.1 s: polling
        # faster than that keeps reading the same stale list forever
        time.sleep(0.25)
    pytest.fail("no session started waiting for the gate's row lock")


def take_in_thread(g: Gate, role: str, **kw: Any) -> tuple[threading.Thread, dict[str, Any]]:
    got: dict[str, Any] = {}

    def run() -> None:
        try:
            got["turn"] = g.take(role, **kw)
        except Exception as exc:  # noqa: BLE001 - handed to the test thread
            got["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    return t, got


def _decide_under_holder(db) -> Turn:
    """A holder locks the row and moves it to OperationalSysLoaded; a consumer that started
    while the row was locked must decide on the committed state, not on what it was."""
    g = Gate(db.url, "g")
    g.reset("WarehouseLoaded")
    holder = store_for(db)
    try:
        assert holder.lock("g", 30).state is State.WAREHOUSE_LOADED
        holder.set_state("g", State.OPERATIONAL_SYS_LOADED, HOLDER)
        t, got = take_in_thread(g, "consumer")
        wait_for_waiter(db)
        holder.commit()
    finally:
        holder.close()
    t.join(60)
    assert "error" not in got, got.get("error")
    turn: Turn = got["turn"]
    assert turn.found is State.OPERATIONAL_SYS_LOADED
    return turn


def test_decision_is_made_on_the_locked_read(any_db) -> None:
    turn = _decide_under_holder(any_db)
    assert turn.transient_retries == 0


def test_postgres_repeatable_read_failure_is_retried(pg_db, monkeypatch) -> None:
    from syncpoint.vendors.postgres.gate import PostgresGateStore

    monkeypatch.setattr(PostgresGateStore, "ISOLATION", psycopg.IsolationLevel.REPEATABLE_READ)
    turn = _decide_under_holder(pg_db)
    assert turn.transient_retries >= 1  # "could not serialize access", then a new attempt


def test_postgres_server_default_repeatable_read_is_overridden(pg_db) -> None:
    pg_db.execute(
        f"ALTER DATABASE \"{pg_db.name}\" SET default_transaction_isolation = 'repeatable read'"
    )
    turn = _decide_under_holder(pg_db)
    assert turn.transient_retries == 0


def test_mariadb_repeatable_read_locking_read_is_current(maria_db, monkeypatch) -> None:
    from syncpoint.vendors.mariadb.gate import MariadbGateStore

    monkeypatch.setattr(MariadbGateStore, "ISOLATION", "REPEATABLE READ")
    # The trap: a plain SELECT in REPEATABLE READ keeps showing its snapshot's state.
    Gate(maria_db.url, "g").reset("WarehouseLoaded")
    reader = maria_db.connect(autocommit=False)
    cur = reader.cursor()
    cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    cur.execute("START TRANSACTION")
    cur.execute("SELECT state FROM repl_load_state WHERE gate_name = 'g'")
    assert cur.fetchone()[0] == "WarehouseLoaded"
    turn = _decide_under_holder(maria_db)
    assert turn.transient_retries == 0
    cur.execute("SELECT state FROM repl_load_state WHERE gate_name = 'g'")
    assert cur.fetchone()[0] == "WarehouseLoaded"  # stale: why decisions use FOR UPDATE
    reader.close()


def test_row_lock_held_too_long_gives_up_with_gate_busy(any_db) -> None:
    g = Gate(any_db.url, "g", lock_timeout=0.5)
    g.reset("WarehouseLoaded")
    holder = store_for(any_db)
    try:
        assert holder.lock("g", 30) is not None
        with pytest.raises(GateBusy) as info:
            g.take("producer", wait=0)
    finally:
        holder.close()
    assert "stayed locked" in info.value.message
    st = g.status()
    assert st is not None and st.row.state is State.WAREHOUSE_LOADED


HOLD = textwrap.dedent(
    """
    import sys, time
    from syncpoint.core.gate import Holder, State
    from syncpoint import vendors
    vendor, url = sys.argv[1:3]
    s = vendors.get(vendor).GateStore(url, "repl_")
    s.connect()
    s.lock("g", 30)
    s.set_state("g", State.WAREHOUSE_LOADING, Holder("h", 1, "doomed", "1" * 32))
    print("locked", flush=True)
    time.sleep(600)
    """
)


def test_holder_killed_while_holding_the_row_lock_is_released(any_db) -> None:
    Gate(any_db.url, "g").reset("WarehouseLoaded")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, any_db.vendor, any_db.url],
        stdout=subprocess.PIPE,
        text=True,
    )
    producer = None
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        producer = subprocess.Popen(
            [sys.executable, "-m", "syncpoint.cli.main", "gate", "produce", "g", "--url",
             any_db.url, "--wait", "60", "--", "true"],
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        wait_for_waiter(any_db)
        assert producer.poll() is None  # blocked on the row lock
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(30)
        assert producer.wait(60) == 0, producer.stderr.read() if producer.stderr else ""
    finally:
        for p in (holder, producer):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    st = Gate(any_db.url, "g").status()
    # the dead holder's uncommitted WarehouseLoading was rolled back with its connection
    assert st is not None and st.row.state is State.OPERATIONAL_SYS_LOADED
    assert st.row.command == "true"
