"""A round's apply transaction chosen to end a deadlock is applied again in the same round.

The deadlock is built step by step, not left to timing: the target already holds rows 1
and 2; an application transaction at the target locks row 2; the round's upsert (rows in
position order) locks row 1 and waits for row 2; once the test sees the round's session
waiting, the application transaction asks for row 1. PostgreSQL's deadlock check runs in
the session that has waited ``deadlock_timeout`` (1 s by default): the application's
session sets its own to a minute, so the round's session is the one that finds the cycle
and is rolled back (SQLSTATE 40P01). The application's transaction then gets row 1 and
commits, and the round, applying again, waits for it and then writes the source's rows
over it: the target ends equal to the source, and the round says it applied again.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from syncpoint.ops.channel import Channel
from tests.conftest import make_pg
from tests.system import roundkit as rk

pytestmark = pytest.mark.spark

WAITING = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
    "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
)


def test_a_round_rolled_back_by_a_deadlock_applies_again(
    tmp_path: Path, spark: Any, caplog: Any
) -> None:
    gens = [make_pg(), make_pg()]
    src, dst = (next(g) for g in gens)
    app = None
    try:
        src.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text)")
        path = rk.write_config(tmp_path / "dl.yaml", {"src": src}, dst, tables=["public.t"])
        ch = Channel.from_file(path)
        ch.install()
        src.execute("INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three')")
        ch.run(once=True, spark=spark)
        assert dst.query("SELECT count(*) FROM t") == [(3,)]

        # row 1 changed before row 2: the round's upsert locks them in that order
        src.execute("UPDATE t SET v = 'one again' WHERE id = 1")
        src.execute("UPDATE t SET v = 'two again' WHERE id = 2")
        app = dst.connect(autocommit=False)
        cur = app.cursor()
        cur.execute("SET deadlock_timeout = '60s'")
        cur.execute("UPDATE t SET v = 'app' WHERE id = 2")

        result: dict[str, Any] = {}

        def round_() -> None:
            try:
                result["report"] = ch.run(once=True, spark=spark)
            except BaseException as exc:  # noqa: BLE001 - reported by the assertions below
                result["error"] = exc

        with caplog.at_level(logging.WARNING, logger="syncpoint"):
            runner = threading.Thread(target=round_)
            runner.start()
            waiting = rk.wait_until(
                lambda: dst.query(WAITING)[0][0] > 0 or not runner.is_alive(), 60, 0.02
            )
            assert waiting and runner.is_alive(), ("the round never waited for row 2", result)
            # the round holds row 1 and waits for row 2: asking for row 1 closes the cycle
            cur.execute("UPDATE t SET v = 'app' WHERE id = 1")
            app.commit()
            runner.join(120)
        assert not runner.is_alive()
        assert "error" not in result, result
        assert result["report"].changes == 2
        said = " ".join(r.getMessage() for r in caplog.records)
        assert "deadlock" in said.lower() and "applying again (attempt 2 of 5)" in said, said
        rows = "SELECT id, v FROM t ORDER BY id"
        assert dst.query(rows) == src.query(rows)
        assert dst.query("SELECT v FROM t ORDER BY id") == [
            ("one again",),
            ("two again",),
            ("three",),
        ]
    finally:
        if app is not None:
            app.close()
        for g in gens:
            next(g, None)
