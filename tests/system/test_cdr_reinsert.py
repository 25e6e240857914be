"""A delete that loses to a concurrent update, step by step, between two sites a and b
(``item`` under ``latest`` with the group ``pricing``), over vendor pairs: the site that
deleted and the one that kept its row are each of every vendor in some case.

b changes the pricing, then deletes the row; a changes the name later than b's delete, but
before b's pricing change reaches it, which it does in a round of its own, before b's
delete does. The update wins at both sites: a keeps its row (with b's pricing), and b makes
the row again from a's update, which carries the pricing a had when it wrote the name.
Both sites must end with the same row, and the pricing a writes after that is no conflict
at b: it was made from b's own pricing change.

What happened before the fix (the flake of test_cdr_random.py): b made the row again from
a's name change whole, so its pricing was P0, the version a had when it wrote the name, not
P1, b's own later pricing, which b had when it deleted the row and a has now. Nothing
brought P1 back to b (a applied it marked as b's), so the sites differed for good; and when
a then changed the pricing from P1, b recorded a conflict of P0 against it that is none.
Now b's tombstone keeps the row it deleted, and the row made again keeps the groups a's
change did not make.

The second test is the same with b's pricing change and delete in one window of b's: P1
never reaches a on its own. b makes the row again with its P1 (the group a's change did not
make), and a, whose row the delete loses to, takes P1 from the delete (the deleted row's
pricing, which the delete's window made from the P0 a has).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from syncpoint.ops.cdr import setup
from syncpoint.ops.channel import Channel
from syncpoint.ops.run import RunReport, run_group
from syncpoint.ops.stamps import record_stamps
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system.roundkit import wait_until
from tests.system.test_cdr_mariadb import WAITING
from tests.system.test_cdr_pairs import DDL, GROUPS, ins, norm, sites_channel

pytestmark = [pytest.mark.spark]

ROW = "SELECT id, name, qty, price, currency, repl_cdr_kv, repl_cdr_v, repl_cdr_v_pricing FROM item"


# (a, b): a holds a row lock in the first test (PostgreSQL or MariaDB); b deletes
PAIRS = [("postgres", "mariadb"), ("mariadb", "postgres"), ("postgres", "sqlite")]


def make(vendor: str, tmp_path: Path) -> Any:
    if vendor == "postgres":
        return make_pg()
    if vendor == "mariadb":
        return make_mariadb()
    return make_sqlite(tmp_path)


@pytest.fixture(params=PAIRS, ids=["-".join(p) for p in PAIRS])
def sites(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    gens = [make(v, tmp_path) for v in request.param]
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


def run_at(ch: Channel, site: str, spark: Any) -> None:
    """One pass of the rounds of one integrate location: the other site does not read."""
    report = RunReport()
    for g, tables in ch.cfg.groups().items():
        assert run_group(ch.cfg, site, g, tables, report, spark)
    record_stamps(ch.cfg, site)


def row(db: Any) -> tuple[Any, ...] | None:
    found = db.query(ROW + " WHERE id = 1")
    return tuple(norm(v) for v in found[0]) if found else None


def waiting_for_a_lock(db: Any) -> bool:
    if db.vendor == "mariadb":
        # innodb_trx alone misses a waiting locking read now and then; and any statement
        # of another session here still running after half a second waits too (tables of
        # a few rows: a purge's locking statement waited out innodb_lock_wait_timeout
        # unseen by both, in a full run)
        sql = (
            f"SELECT ({WAITING}) + (SELECT count(*) FROM information_schema.processlist "
            "WHERE db = DATABASE() AND command = 'Query' AND time_ms > 500 "
            "AND id <> CONNECTION_ID())"
        )
    else:
        sql = (
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
    return bool(db.query(sql)[0][0])


def pricing_conflicts(db: Any) -> list[Any]:
    return db.query(
        "SELECT local_version, remote_version FROM repl_conflicts WHERE column_group = 'pricing'"
    )


def test_a_row_made_again_over_its_own_tombstone_keeps_what_the_deleting_site_had(
    sites: Any, spark: Any
) -> None:
    ch, a, b = sites
    b.execute(ins("item", 1, "one"))  # both groups at b's P0
    run_at(ch, "a", spark)
    b.execute("UPDATE item SET price = 2.00 WHERE id = 1")  # b's pricing P1, made from P0
    # a's round reads b's pricing change, and waits for the row, which a writer holds
    holder = a.connect(autocommit=False)
    hold = holder.cursor()
    hold.execute("SELECT 1 FROM item WHERE id = 1 FOR UPDATE")
    failed: list[BaseException] = []

    def round_at_a() -> None:
        try:
            run_at(ch, "a", spark)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            failed.append(exc)

    r1 = threading.Thread(target=round_at_a)
    r1.start()
    try:
        assert wait_until(lambda: waiting_for_a_lock(a), 120, 0.05), "a's round never waited"
        b.execute("DELETE FROM item WHERE id = 1")  # after b's pricing change, in a later window
        time.sleep(0.002)
        hold.execute("UPDATE item SET name = 'a1' WHERE id = 1")  # later than b's delete
        holder.commit()
    finally:
        holder.close()
        r1.join()
    assert not failed, failed
    run_at(ch, "b", spark)  # a's name change beats b's delete: b makes the row again
    run_at(ch, "a", spark)  # b's delete loses to a's name change: a keeps its row
    after_delete = {"a": row(a), "b": row(b)}

    a.execute("UPDATE item SET price = 3.00 WHERE id = 1")  # made from b's P1
    run_at(ch, "b", spark)
    run_at(ch, "a", spark)
    assert row(a) == row(b)
    pricing = pricing_conflicts(b)
    assert (after_delete["a"] == after_delete["b"], pricing) == (True, []), (
        "the sites must hold the same row once the delete lost, and a's pricing, made from "
        f"b's own, is no conflict at b: rows {after_delete}, b's pricing conflicts {pricing}"
    )


def test_a_row_made_again_from_a_window_that_changed_it_and_deleted_it(
    sites: Any, spark: Any
) -> None:
    ch, a, b = sites
    b.execute(ins("item", 1, "one"))  # both groups at b's P0
    run_at(ch, "a", spark)
    b.execute("UPDATE item SET price = 2.00 WHERE id = 1")  # P1, made from P0
    b.execute("DELETE FROM item WHERE id = 1")  # in the same window: a gets the delete only
    time.sleep(0.002)
    a.execute("UPDATE item SET name = 'a1' WHERE id = 1")  # later than b's delete
    run_at(ch, "b", spark)  # a's name change beats b's delete: b makes its row again
    run_at(ch, "a", spark)  # b's delete loses to a's name change: a takes b's P1 from it
    assert row(a) == row(b)
    assert row(a)[:5] == ("1", "a1", "1", "2", "EUR")  # type: ignore[index]
    a.execute("UPDATE item SET price = 3.00 WHERE id = 1")  # made from b's P1
    run_at(ch, "b", spark)
    run_at(ch, "a", spark)
    assert row(a) == row(b)
    assert (pricing_conflicts(a), pricing_conflicts(b)) == ([], [])


def test_a_site_whose_tombstones_keep_no_deleted_row_is_brought_up_to_date(
    sites: Any, spark: Any
) -> None:
    """Bookkeeping made before tombstones kept the deleted row, or where a delete ended
    without being passed on: the next run adds the columns and makes the delete trigger
    again (SQLite: here, one taken away stands for the old trigger), then the window that
    changed and deleted the row is resolved as above, and the site where the delete lost
    marks its tombstone so."""
    ch, a, b = sites
    for db in (a, b):
        if db.vendor == "sqlite":
            (trg,) = db.query(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%\\_ad' "
                "ESCAPE '\\' AND name LIKE 'repl\\_cdr\\_%' ESCAPE '\\'"
            )[0]
            db.execute(f'DROP TRIGGER "{trg}"')
        db.execute("ALTER TABLE repl_tombstones DROP COLUMN deleted_row")
        db.execute("ALTER TABLE repl_tombstones DROP COLUMN ended_here")
    b.execute(ins("item", 1, "one"))
    run_at(ch, "a", spark)
    run_at(ch, "b", spark)
    b.execute("UPDATE item SET price = 2.00 WHERE id = 1")
    b.execute("DELETE FROM item WHERE id = 1")
    assert b.query("SELECT count(*) FROM repl_tombstones WHERE deleted_row IS NOT NULL") == [(1,)]
    time.sleep(0.002)
    a.execute("UPDATE item SET name = 'a1' WHERE id = 1")
    run_at(ch, "b", spark)
    run_at(ch, "a", spark)
    assert row(a) == row(b)
    assert row(a)[:5] == ("1", "a1", "1", "2", "EUR")  # type: ignore[index]
    ended = "SELECT kv FROM repl_tombstones WHERE ended_here = version"
    assert (a.query(ended), b.query(ended)) == ([(1,)], [])


def test_a_change_that_loses_to_the_delete_still_counts_when_a_later_one_wins(
    sites: Any, spark: Any
) -> None:
    """a's pricing change (X) is earlier than b's delete and loses to it at b; a's later name
    change beats the delete. At a, the row never went away: X stands there (against b's own
    pricing P1, which the delete brings, X is later). b merges X into the row it deleted
    when X loses to the delete, so the row it makes again has X too."""
    ch, a, b = sites
    b.execute(ins("item", 1, "one"))
    run_at(ch, "a", spark)
    b.execute("UPDATE item SET price = 2.00 WHERE id = 1")  # P1, made from P0
    time.sleep(0.002)
    a.execute("UPDATE item SET price = 5.00 WHERE id = 1")  # X, made from P0, later than P1
    time.sleep(0.002)
    b.execute("DELETE FROM item WHERE id = 1")  # later than X: X loses to it at b
    run_at(ch, "b", spark)
    assert row(b) is None
    time.sleep(0.002)
    a.execute("UPDATE item SET name = 'a1' WHERE id = 1")  # later than b's delete
    run_at(ch, "b", spark)  # beats the delete: b makes its row again, with X
    run_at(ch, "a", spark)  # the delete loses at a; P1, which it brings, loses to X
    assert row(a) == row(b)
    assert row(a)[:5] == ("1", "a1", "1", "5", "EUR")  # type: ignore[index]
    assert len(pricing_conflicts(a)) == 1



def test_purge_bounds_a_tombstone_written_again_by_its_last_delete(
    sites: Any, spark: Any
) -> None:
    """a deletes key 1, b renames it later: the delete loses, both hold the row again and
    the tombstone. b renames it again (on its way to a); a deletes it, later: the rename
    loses to that delete at both sites. Purge must wait for the rename to reach a: it was
    captured at b before b wrote its tombstone of this delete, after the first one (b's
    apply kept the first delete's time: purge took the tombstones, and the rename made the
    deleted row again at a)."""
    ch, a, b = sites
    a.execute(ins("item", 1, "one"))
    run_at(ch, "b", spark)
    a.execute("DELETE FROM item WHERE id = 1")
    time.sleep(0.002)
    b.execute("UPDATE item SET name = 'b1' WHERE id = 1")
    for _ in range(3):  # the delete loses at both; each site's stamp of the other moves on
        run_at(ch, "b", spark)
        run_at(ch, "a", spark)
    tombs = "SELECT kv FROM repl_tombstones"
    assert row(a) == row(b) and row(a)[:2] == ("1", "b1")  # type: ignore[index]
    assert a.query(tombs) == b.query(tombs) == [(1,)]
    b.execute("UPDATE item SET name = 'b2' WHERE id = 1")  # on its way to a
    time.sleep(0.002)
    a.execute("DELETE FROM item WHERE id = 1")
    run_at(ch, "b", spark)  # the delete wins over b2 at b
    assert row(b) is None
    ch.purge()
    for _ in range(2):
        run_at(ch, "a", spark)
        run_at(ch, "b", spark)
    assert (row(a), row(b)) == (None, None)


@pytest.mark.parametrize("vendor", ["postgres", "mariadb"])
def test_purge_keeps_the_tombstone_of_a_delete_made_while_it_decides(
    tmp_path: Path, spark: Any, vendor: str
) -> None:
    """Three sites that read each other (b of each vendor, a and c PostgreSQL): a deletes
    key 1, b renames it later; the delete loses at b, and b's rename makes the row again at
    a. Both hold the row and its tombstone, which decides nothing while the row is there,
    so purge takes them without waiting for c (which has not run). a renames the row again
    (on its way to b), then b deletes it, later, in a transaction still open while purge
    decides: purge saw b's row, and must not take the tombstone that delete is writing.
    The delete is the latest change of the key and wins everywhere; without its tombstone,
    b passed it on without its version (so it lost at a) and made the row again from a's
    rename: the deleted row came back at every site."""
    gens = [make_pg(), make(vendor, tmp_path), make_pg()]
    a, b, c = dbs = [next(g) for g in gens]
    try:
        for db in dbs:
            db.execute(DDL[db.vendor].format(t="item"))
        ch = sites_channel(tmp_path, dict(zip("abc", dbs, strict=True)), "mesh")
        setup.add(ch.cfg, "item", "latest", GROUPS)
        a.execute(ins("item", 1, "one"))
        ch.run(once=True, spark=spark)
        a.execute("DELETE FROM item WHERE id = 1")
        time.sleep(0.002)
        b.execute("UPDATE item SET name = 'b1' WHERE id = 1")
        run_at(ch, "b", spark)  # a's delete loses at b
        run_at(ch, "a", spark)  # b's rename makes the row again at a
        tombs = "SELECT kv FROM repl_tombstones"
        for db in (a, b):
            assert row(db)[:5] == ("1", "b1", "1", "1", "EUR")  # type: ignore[index]
            assert db.query(tombs) == [(1,)]
        a.execute("UPDATE item SET name = 'a2' WHERE id = 1")  # on its way to b
        time.sleep(0.002)
        deleting = b.connect(autocommit=False)
        failed: list[BaseException] = []

        def purge() -> None:
            try:
                ch.purge()
            except BaseException as exc:  # noqa: BLE001 - reported by the test
                failed.append(exc)

        try:
            deleting.cursor().execute("DELETE FROM item WHERE id = 1")  # later than a2
            purging = threading.Thread(target=purge)
            purging.start()
            try:
                # purge either takes the tombstone the delete is writing, and so waits for
                # the delete, or keeps it and is done
                def waits_or_done() -> bool:
                    return waiting_for_a_lock(b) or not purging.is_alive()

                assert wait_until(waits_or_done, 120, 0.05), "purge neither waited nor finished"
                deleting.commit()
            finally:
                purging.join()
        finally:
            deleting.close()
        assert not failed, failed
        assert b.query(tombs) == [(1,)]  # the delete's, as b wrote it
        for _ in range(2):
            ch.run(once=True, spark=spark)
        for name, db in zip("abc", dbs, strict=True):
            assert row(db) is None, name
    finally:
        for g in gens:
            next(g, None)
