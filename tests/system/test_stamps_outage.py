"""A target that ends the session while a run writes its receive stamps: the run sees a
transient error (retried at the follower's next poll), never the driver's own exception that
ends a follower. Found in a full run: the target taken away between a round and its stamps
killed the follower with psycopg's ``AdminShutdown``."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from syncpoint.config import load as load_config
from syncpoint.errors import TransientError
from syncpoint.ops.stamps import record_stamps
from tests.conftest import make_pg
from tests.system import roundkit as rk


@pytest.fixture
def pair() -> Any:
    gens = [make_pg(), make_pg()]
    dbs = [next(g) for g in gens]
    yield dbs
    for g in gens:
        next(g, None)


def test_the_target_ending_the_session_during_the_stamps_is_a_transient_error(
    pair: Any, tmp_path: Path
) -> None:
    src, dst = pair
    rk.setup_source(src)
    path = rk.write_config(
        tmp_path / "sp.yaml", {"src": src}, dst, extra={"spark": {"driver_round_max": 10**6}}
    )
    assert rk.syncpoint(path, "install").returncode == 0
    src.execute("INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v')")
    done = rk.syncpoint(path, "run", "--once")  # the driver's round, stamps written
    assert done.returncode == 0, done.stderr
    src.execute("INSERT INTO parent (id, name, ver) VALUES (2, 'b', 'v')")
    done = rk.syncpoint(path, "run", "--once", "--group", "g")  # a round, no stamps
    assert done.returncode == 0, done.stderr

    cfg = load_config(path)
    holder = psycopg.connect(dst.url)
    holder.execute('LOCK TABLE "repl_stin_shop_cen" IN ACCESS EXCLUSIVE MODE')
    raised: list[BaseException] = []

    def stamps() -> None:
        try:
            record_stamps(cfg, "cen")
        except BaseException as exc:  # noqa: BLE001 - the test reads what was raised
            raised.append(exc)

    worker = threading.Thread(target=stamps)
    worker.start()
    try:
        admin = psycopg.connect(dst.url, autocommit=True)
        deadline = time.monotonic() + 60
        while True:
            waiting = admin.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            ).fetchall()
            if waiting:
                break
            assert time.monotonic() < deadline and worker.is_alive(), raised
            time.sleep(0.05)
        admin.execute("SELECT pg_terminate_backend(%s)", (waiting[0][0],))
        admin.close()
    finally:
        holder.rollback()
        holder.close()
        worker.join(60)
    assert len(raised) == 1
    assert isinstance(raised[0], TransientError), repr(raised[0])
    assert "terminating connection" in str(raised[0])

    # the next run writes them, and the target holds every row
    done = rk.syncpoint(path, "run", "--once")
    assert done.returncode == 0, done.stderr
    assert rk.rows(dst, "parent", "id") == [("1",), ("2",)]
    ok, why = rk.same(src, dst)
    assert ok, why
