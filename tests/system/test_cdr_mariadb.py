"""Conflict resolution at a MariaDB site against the application's own writers: a deadlock
with an application transaction is applied again within the round, and rows the
application writes while ``cdr add`` changes the table get their versions.

The deadlock is built step by step, not left to timing (as the PostgreSQL round's test
does): rows 1 and 2 exist at both sites; a (PostgreSQL) changes row 1, then row 2; at b
(MariaDB) an application transaction writes many rows of a table of its own, then row 2;
b's round locks the incoming keys' rows in position order (``d_lock``): row 1, then waits
for row 2. Once the test sees the round's session waiting, the application asks for row
1. InnoDB finds the cycle at once and rolls back the transaction that changed fewer rows:
the round's (the application's wrote a hundred). The application's transaction then gets
row 1 and commits, and the round, applying again, decides a's changes against it.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from syncpoint.ops.cdr import setup
from tests.conftest import make_mariadb, make_pg
from tests.system import roundkit as rk
from tests.system.roundkit import norm
from tests.system.test_cdr_pairs import DDL, GROUPS, ins, rows, sites_channel, upd
from tests.system.test_cdr_ring import run_at

pytestmark = pytest.mark.spark

# sessions of this database waiting for a row lock (the server is shared: only ours count)
WAITING = (
    "SELECT (SELECT count(*) FROM information_schema.innodb_trx x "
    "JOIN information_schema.processlist p ON p.id = x.trx_mysql_thread_id "
    "WHERE x.trx_state = 'LOCK WAIT' AND p.db = DATABASE()) + "
    # innodb_trx does not always list the round's transaction while its locking read waits:
    # the round's row-locking statement still running after half a second is waiting too
    "(SELECT count(*) FROM information_schema.processlist WHERE db = DATABASE() "
    "AND info LIKE 'SELECT STRAIGHT_JOIN 1 FROM%FOR UPDATE' AND time_ms > 500)"
)


@pytest.fixture
def sites(tmp_path: Path) -> Any:
    """a on PostgreSQL, b on MariaDB, ``item`` under ``latest`` with the pricing group."""
    gens = [make_pg(), make_mariadb()]
    a, b = (next(g) for g in gens)
    try:
        for db in (a, b):
            db.execute(DDL[db.vendor].format(t="item"))
        ch = sites_channel(tmp_path, {"a": a, "b": b}, "bi")
        yield ch, a, b
    finally:
        for g in gens:
            next(g, None)


def test_a_deadlock_with_the_application_is_applied_again_in_the_round(
    sites: Any, spark: Any, caplog: Any
) -> None:
    ch, a, b = sites
    setup.add(ch.cfg, "item", "latest", GROUPS)
    a.execute(ins("item", 1, "one"), ins("item", 2, "two"))
    ch.run(once=True, spark=spark)
    assert rows(b, "item", 2) is not None
    b.execute("CREATE TABLE pad (id int PRIMARY KEY) ENGINE=InnoDB")

    # row 1 changed before row 2: b's round locks them in that order
    a.execute(upd("item", 1, "name = 'a1'"), upd("item", 2, "name = 'a2'"))
    time.sleep(0.002)
    app = b.connect(autocommit=False)
    try:
        cur = app.cursor()
        # the heavier transaction: InnoDB rolls back the other one of a deadlock
        cur.executemany("INSERT INTO pad VALUES (%s)", [(i,) for i in range(100)])
        cur.execute(upd("item", 2, "qty = 22"))
        result: dict[str, Any] = {}

        def round_() -> None:
            try:
                run_at(ch, "b", spark)
            except BaseException as exc:  # noqa: BLE001 - reported by the assertions below
                result["error"] = exc

        with caplog.at_level(logging.WARNING, logger="syncpoint"):
            runner = threading.Thread(target=round_)
            runner.start()
            waiting = rk.wait_until(
                lambda: b.query(WAITING)[0][0] > 0 or not runner.is_alive(), 60, 0.02
            )
            assert waiting and runner.is_alive(), ("the round never waited for row 2", result)
            # the round holds row 1 and waits for row 2: asking for row 1 closes the cycle
            cur.execute(upd("item", 1, "qty = 11"))
            app.commit()
            runner.join(120)
    finally:
        app.close()
    assert not runner.is_alive()
    assert "error" not in result, result
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "deadlock" in said.lower() and "applying again (attempt 2 of 5)" in said, said
    # a's names and the application's quantities: one group changed at both sites, the
    # application's later: its rows win at b (the round applied again decided against
    # them) and then at a
    ch.run(once=True, spark=spark)
    for db in (a, b):
        assert rows(db, "item", 1) == tuple(norm(v) for v in (1, "one", 11, "1", "EUR"))
        assert rows(db, "item", 2) == tuple(norm(v) for v in (2, "two", 22, "1", "EUR"))


# sessions of this database waiting for a table's lock (cdr add's)
LOCKED = (
    "SELECT count(*) FROM information_schema.processlist "
    "WHERE db = DATABASE() AND state LIKE 'Waiting for table%'"
)


def test_a_write_while_cdr_add_alters_the_table_gets_its_versions(
    sites: Any, spark: Any, monkeypatch: Any
) -> None:
    """The application changes a row at b right after ``cdr add``'s ALTER there (the
    ALTER commits by itself; the triggers come after it), later than a's change of the
    same row: b's change must carry its version and win at both sites, not count as the
    oldest and lose."""
    from syncpoint.vendors.mariadb.cdr import MariadbCdr

    ch, a, b = sites
    a.execute(ins("item", 1, "one"))
    ch.run(once=True, spark=spark)
    plain = MariadbCdr.execute_all
    wrote: dict[str, Any] = {}

    def write_at_b() -> None:
        try:
            b.execute(upd("item", 1, "name = 'b1'"))
        except BaseException as exc:  # noqa: BLE001 - reported by the assertions below
            wrote["error"] = exc

    def written_or_waiting(writer: threading.Thread) -> bool:
        return not writer.is_alive() or b.query(LOCKED)[0][0] > 0

    def execute_all(self: Any, cur: Any, statements: list[str], params: Any) -> None:
        for s in statements:
            plain(self, cur, [s], params)
            if "ALTER TABLE" in s and "writer" not in wrote:
                # a (done already) changes the row, then b's application, after the ALTER
                a.execute(upd("item", 1, "name = 'a1'"))
                time.sleep(0.002)
                wrote["writer"] = writer = threading.Thread(target=write_at_b)
                writer.start()
                # done, or waiting for the table: either way it was written after the ALTER
                assert rk.wait_until(lambda w=writer: written_or_waiting(w), 60, 0.02)

    monkeypatch.setattr(MariadbCdr, "execute_all", execute_all)
    setup.add(ch.cfg, "item", "latest", GROUPS)
    monkeypatch.undo()
    assert "writer" in wrote, "cdr add ran no ALTER at b"
    wrote["writer"].join(60)
    assert not wrote["writer"].is_alive() and "error" not in wrote, wrote
    version = b.query("SELECT repl_cdr_v FROM item WHERE id = 1")[0][0]
    assert version.endswith("|b"), version
    ch.run(once=True, spark=spark)
    for db in (a, b):
        assert rows(db, "item", 1) == tuple(norm(v) for v in (1, "b1", 1, "1", "EUR")), db.vendor
