"""A SQLite site's local write to a table under conflict resolution is two change records
(SQLite triggers cannot change the row being written: the versions are stamped by an
UPDATE of the row, which capture records too). The pair is written by one statement, so
in one transaction, and a round's tick needs SQLite's write lock: no tick falls between
them. This shows it for every kind of write, with a round at the other site after each
write (every boundary a round can have between them) and one started while an
application transaction is open: each pair lands in one tick, and the other site applies
it as one change, stamped, never the unstamped row first."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from syncpoint.ops.cdr import setup
from tests.conftest import make_pg, make_sqlite
from tests.system.test_cdr_pairs import DDL, GROUPS, sites_channel
from tests.system.test_cdr_random import final_rows
from tests.system.test_cdr_ring import run_at

pytestmark = pytest.mark.spark

# each write, and how many rows it changes
WRITES = [
    ("INSERT INTO item (id, name, qty, price, currency) VALUES (1, 'one', 1, 1.25, 'EUR')", 1),
    ("UPDATE item SET name = 'one!' WHERE id = 1", 1),
    ("UPDATE item SET price = 2.5, currency = 'USD' WHERE id = 1", 1),
    (
        "INSERT INTO item (id, name, qty, price, currency) "
        "VALUES (2, 'two', 2, 2.0, 'EUR'), (3, 'three', 3, 3.0, 'EUR')",
        2,
    ),
    ("UPDATE item SET qty = qty + 10 WHERE id IN (2, 3)", 2),
    ("UPDATE item SET name = name || '?', price = price + 1 WHERE id >= 1", 3),
    ("DELETE FROM item WHERE id = 2", 1),
    ("INSERT INTO item (id, name, qty, price, currency) VALUES (2, 'again', 4, 4.0, 'GBP')", 1),
]


@pytest.fixture
def sites(tmp_path: Path) -> Any:
    """a on SQLite, b on PostgreSQL, ``item`` under ``latest`` with the pricing group."""
    gens = [make_sqlite(tmp_path), make_pg()]
    a, b = (next(g) for g in gens)
    try:
        for db in (a, b):
            db.execute(DDL[db.vendor].format(t="item"))
        ch = sites_channel(tmp_path, {"a": a, "b": b}, "bi")
        setup.add(ch.cfg, "item", "latest", GROUPS)
        yield ch, a, b
    finally:
        for g in gens:
            next(g, None)


def ticks_of_pairs(a: Any) -> list[tuple[Any, ...]]:
    """a's own records, each with its tick: (record number, action, tick)."""
    return a.query(
        "SELECT repl_key, db_action, context FROM repl_items "
        "WHERE tablename = 'item' AND dbid = 'a' ORDER BY repl_key"
    )


def test_each_write_and_its_stamp_are_read_and_applied_as_one(sites: Any, spark: Any) -> None:
    ch, a, b = sites
    seen = 0
    for sql, n in WRITES:
        a.execute(sql)
        run_at(ch, "b", spark)
        mine = ticks_of_pairs(a)
        new, seen = mine[seen:], len(mine)
        # the write's records, the application's and (but for a delete) the stamps: all
        # in the one tick b's round read
        assert len(new) == (n if sql.startswith("DELETE") else 2 * n), (sql, new)
        assert len({tick for _rk, _act, tick in new}) == 1, (sql, new)
        assert final_rows(b) == final_rows(a), sql
        assert all(r[6] and r[7] for r in final_rows(b)), sql  # stamped, never ''
    # b applied each write of a row as one change (it captures what it applies: one
    # record each), and found no conflict in a's own succession of writes
    applied = b.query("SELECT count(*) FROM repl_items WHERE tablename = 'item' AND dbid = 'a'")
    assert applied == [(sum(n for _sql, n in WRITES),)]
    assert b.query("SELECT count(*) FROM repl_conflicts") == [(0,)]

    # a round started while an application transaction at a is open waits for it: the
    # transaction's writes and their stamps all come in one tick after it
    app = a.connect()
    try:
        app.execute("BEGIN IMMEDIATE")
        app.execute("UPDATE item SET name = 'in a transaction' WHERE id = 1")
        result: dict[str, Any] = {}

        def round_() -> None:
            try:
                run_at(ch, "b", spark)
            except BaseException as exc:  # noqa: BLE001 - reported by the assertions below
                result["error"] = exc

        runner = threading.Thread(target=round_)
        runner.start()
        time.sleep(1.0)  # lets the round reach a's lock (it works either way)
        app.execute("UPDATE item SET price = 9.75 WHERE id = 3")
        app.execute("COMMIT")
        runner.join(120)
    finally:
        app.close()
    assert not runner.is_alive() and "error" not in result, result
    run_at(ch, "b", spark)
    new = ticks_of_pairs(a)[seen:]
    assert len(new) == 4 and len({tick for *_x, tick in new}) == 1, new
    assert final_rows(b) == final_rows(a)
    assert b.query("SELECT count(*) FROM repl_conflicts") == [(0,)]
