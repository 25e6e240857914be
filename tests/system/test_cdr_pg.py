"""Conflict resolution between two PostgreSQL sites: each case of the rules, as a user
sees it (rows at both sites, conflicts recorded), and ``cdr remove`` putting the catalog
back exactly."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.cli.status import collect
from syncpoint.errors import ConfigError
from syncpoint.ops.cdr import setup
from syncpoint.ops.channel import Channel
from tests.conftest import make_pg
from tests.operator.test_status_warnings import validate
from tests.system.test_cdr_pairs import sites_channel

pytestmark = pytest.mark.spark

DDL = (
    "CREATE TABLE item (id bigint PRIMARY KEY, name text, qty integer, "
    "price numeric(10,2), currency text)"
)


@pytest.fixture
def sites(tmp_path: Path) -> Any:
    gens = [make_pg(), make_pg()]
    a, b = (next(g) for g in gens)
    for db in (a, b):
        db.execute(DDL)
    data = {
        "channel": "bi",
        "application": "sync",
        "locations": {
            "a": {"url": a.url, "capture": True, "integrate": True},
            "b": {"url": b.url, "capture": True, "integrate": True},
        },
        "tables": [{"name": "public.item", "snapshot": "none"}],
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    (tmp_path / "bi.yaml").write_text(yaml.safe_dump(data))
    ch = Channel.from_file(tmp_path / "bi.yaml")
    ch.install()
    yield ch, a, b
    for g in gens:
        next(g, None)


def rows(db: Any) -> list[tuple[Any, ...]]:
    return db.query("SELECT id, name, qty, price::text, currency FROM item ORDER BY id")


def conflicts(db: Any) -> list[tuple[Any, ...]]:
    return db.query("SELECT key, column_group, winner, resolution FROM repl_conflicts ORDER BY id")


def exchange(ch: Channel, spark: Any) -> None:
    ch.run(once=True, spark=spark)


def test_update_update_latest_then_earliest_and_column_groups(sites: Any, spark: Any) -> None:
    ch, a, b = sites
    a.execute("INSERT INTO item VALUES (1, 'one', 1, 1.00, 'EUR')")
    setup.add(ch.cfg, "item", "latest", {"pricing": ["price", "currency"]})
    exchange(ch, spark)
    assert rows(a) == rows(b) == [(1, "one", 1, "1.00", "EUR")]
    # the same group changed at both sites: the later change wins at both
    a.execute("UPDATE item SET name = 'a-name' WHERE id = 1")
    time.sleep(0.01)
    b.execute("UPDATE item SET name = 'b-name' WHERE id = 1")
    exchange(ch, spark)
    assert rows(a) == rows(b) == [(1, "b-name", 1, "1.00", "EUR")]
    assert conflicts(a) == [("[1]", "default", "remote", "latest")]
    assert conflicts(b) == [("[1]", "default", "local", "latest")]
    # different groups: both changes kept, no conflict
    a.execute("UPDATE item SET price = 2.50, currency = 'USD' WHERE id = 1")
    b.execute("UPDATE item SET qty = 7 WHERE id = 1")
    exchange(ch, spark)
    assert rows(a) == rows(b) == [(1, "b-name", 7, "2.50", "USD")]
    assert len(conflicts(a)) == len(conflicts(b)) == 1
    # earliest: the first change wins
    setup.alter(ch.cfg, "item", "earliest", None)
    a.execute("UPDATE item SET price = 3.00 WHERE id = 1")
    time.sleep(0.01)
    b.execute("UPDATE item SET price = 4.00, currency = 'GBP' WHERE id = 1")
    exchange(ch, spark)
    assert rows(a) == rows(b) == [(1, "b-name", 7, "3.00", "USD")]
    assert conflicts(b)[-1] == ("[1]", "pricing", "remote", "earliest")
    doc = collect(ch)
    validate(doc)  # the status document keeps its published shape
    st = doc["conflicts"]
    assert st["a"]["total"] == len(conflicts(a)) and st["b"]["total"] == len(conflicts(b))
    latest = st["b"]["tables"]["public.item"]["latest"]
    assert (latest["column_group"], latest["winner"]) == ("pricing", "remote")


def test_deletes_inserts_and_reinsert_with_a_newer_key_version(sites: Any, spark: Any) -> None:
    ch, a, b = sites
    setup.add(ch.cfg, "public.item", "latest", None)
    a.execute("INSERT INTO item VALUES (1, 'one', 1, 1.00, 'EUR'), (2, 'two', 2, 2.00, 'EUR')")
    # insert/insert of one key: the later insert wins at both
    a.execute("INSERT INTO item VALUES (3, 'a3', 3, 3.00, 'EUR')")
    time.sleep(0.01)
    b.execute("INSERT INTO item VALUES (3, 'b3', 3, 3.00, 'EUR')")
    exchange(ch, spark)
    assert rows(a) == rows(b)
    assert [r[1] for r in rows(a)] == ["one", "two", "b3"]
    # update/delete: the delete is later and wins; delete/update: the update is later, wins
    a.execute("UPDATE item SET qty = 10 WHERE id = 1")
    b.execute("DELETE FROM item WHERE id = 2")
    time.sleep(0.01)
    b.execute("DELETE FROM item WHERE id = 1")
    a.execute("UPDATE item SET qty = 20 WHERE id = 2")
    exchange(ch, spark)
    assert rows(a) == rows(b) == [(2, "two", 20, "2.00", "EUR"), (3, "b3", 3, "3.00", "EUR")]
    groups = {(k, g, w) for k, g, w, _ in conflicts(a)}
    assert ("[1]", "*", "remote") in groups and ("[2]", "*", "local") in groups
    # delete then re-insert: a inserted 3 (kv1), b deletes it, a (having seen the delete)
    # inserts it again (kv2): both sites end with the new row, whatever the rule
    b.execute("DELETE FROM item WHERE id = 3")
    exchange(ch, spark)
    assert [r[0] for r in rows(a)] == [2]
    a.execute("INSERT INTO item VALUES (3, 'again', 1, 1.00, 'EUR')")
    setup.alter(ch.cfg, "item", "earliest", None)
    exchange(ch, spark)
    assert rows(a) == rows(b) == [(2, "two", 20, "2.00", "EUR"), (3, "again", 1, "1.00", "EUR")]
    assert b.query("SELECT repl_cdr_kv FROM item WHERE id = 3") == [(2,)]
    # the other order: b deletes 3 (kv2) while a deletes and re-inserts it (kv3) first
    a.execute("DELETE FROM item WHERE id = 3")
    a.execute("INSERT INTO item VALUES (3, 'third', 1, 1.00, 'EUR')")
    b.execute("DELETE FROM item WHERE id = 3")
    exchange(ch, spark)
    assert rows(a) == rows(b) == [(2, "two", 20, "2.00", "EUR"), (3, "third", 1, "1.00", "EUR")]


CATALOG = [
    "SELECT table_name, column_name, data_type, is_nullable, column_default "
    "FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2",
    "SELECT tgname FROM pg_trigger WHERE tgrelid = 'item'::regclass ORDER BY 1",
    "SELECT proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY 1",
    "SELECT relname, relkind FROM pg_class WHERE relnamespace = 'public'::regnamespace ORDER BY 1",
]


def test_remove_restores_the_catalog_and_bad_input_changes_nothing(sites: Any, spark: Any) -> None:
    ch, a, b = sites
    a.execute("INSERT INTO item VALUES (1, 'one', 1, 1.00, 'EUR')")
    exchange(ch, spark)  # the control tables of integrate exist from here on
    before = [[db.query(s) for s in CATALOG] for db in (a, b)]
    for groups, msg in [
        ({"p": ["price"], "q": ["price"]}, "in two column groups"),
        ({"p": ["id"]}, "key column 'id'"),
        ({"p": ["nope"]}, "missing column 'nope'"),
    ]:
        with pytest.raises(ConfigError, match=msg):
            setup.add(ch.cfg, "item", "latest", groups)
    with pytest.raises(ConfigError, match="not replicated"):
        setup.add(ch.cfg, "other", "latest", None)
    assert [[db.query(s) for s in CATALOG] for db in (a, b)] == before
    plan = setup.plan_add(ch.cfg, "item", "latest", {"p": ["price"]})
    assert set(plan) == {"a", "b"} and any("repl_cdr_v_p" in s for s in plan["a"])
    assert [[db.query(s) for s in CATALOG] for db in (a, b)] == before
    setup.add(ch.cfg, "item", "latest", {"p": ["price"]})
    assert b.query("SELECT repl_cdr_kv, repl_cdr_v, repl_cdr_v_p FROM item") == [(1, "", "")]
    a.execute("UPDATE item SET price = 5 WHERE id = 1")
    exchange(ch, spark)
    assert rows(a) == rows(b)
    setup.remove(ch.cfg, "item")
    assert [[db.query(s) for s in CATALOG] for db in (a, b)] == before
    assert rows(a) == rows(b) == [(1, "one", 1, "5.00", "EUR")]
    # replication goes on as before, and the removal was no schema change to stop on
    b.execute("UPDATE item SET qty = 2 WHERE id = 1")
    report = ch.run(once=True, spark=spark)
    assert not report.stopped and rows(a) == rows(b) == [(1, "one", 2, "5.00", "EUR")]


@pytest.mark.slow
def test_three_site_mesh_converges_by_group(tmp_path: Path, spark: Any) -> None:
    gens = [make_pg(), make_pg(), make_pg()]
    a, b, c = dbs = [next(g) for g in gens]
    try:
        for db in dbs:
            db.execute(DDL)
        ch = sites_channel(tmp_path, dict(zip("abc", dbs, strict=True)), "mesh", "public.item")
        setup.add(ch.cfg, "item", "latest", {"pricing": ["price", "currency"]})
        a.execute("INSERT INTO item VALUES (1, 'one', 1, 1.00, 'EUR'), (2, 'two', 2, 2.00, 'EUR')")
        exchange(ch, spark)
        a.execute("UPDATE item SET name = 'from a' WHERE id = 1")
        time.sleep(0.01)
        b.execute("UPDATE item SET name = 'from b' WHERE id = 1")
        c.execute("UPDATE item SET price = 9.99 WHERE id = 1")
        c.execute("DELETE FROM item WHERE id = 2")
        exchange(ch, spark)
        exchange(ch, spark)
        want = [(1, "from b", 1, "9.99", "EUR")]
        assert rows(a) == rows(b) == rows(c) == want
        assert ch.run(once=True, spark=spark).changes == 0
        writes = {"a": 3, "b": 1, "c": 2}
        for name, db in zip("abc", dbs, strict=True):
            # each site's own changes once; another's at most once (a change that lost
            # everywhere here changed nothing, so nothing was captured of it)
            made = dict(
                db.query(
                    "SELECT dbid, count(*) FROM repl_items "
                    "WHERE db_action IN ('INSERT', 'UPDATE', 'DELETE') GROUP BY dbid"
                )
            )
            assert made[name] == writes[name]
            assert all(n <= writes[d] for d, n in made.items()), made
    finally:
        for g in gens:
            next(g, None)


def test_clock_skew_the_rule_follows_the_recorded_times(sites: Any, spark: Any) -> None:
    """Site b's clock is years behind: its change, made after a's in real time, carries the
    earlier time. The rule goes by the recorded times, the same way at both sites."""
    ch, a, b = sites
    setup.add(ch.cfg, "item", "latest", None)
    a.execute("INSERT INTO item VALUES (1, 'one', 1, 1.00, 'EUR')")
    exchange(ch, spark)
    a.execute("UPDATE item SET name = 'a-name' WHERE id = 1")
    # what b's triggers would write with a clock behind: a replicated-looking write keeps
    # the version it is given, and its change record is b's own (origin b)
    conn = b.connect(autocommit=False)
    cur = conn.cursor()
    cur.execute("SELECT set_config('syncpoint.repl_origin', 'b', true)")
    cur.execute(
        "UPDATE item SET name = 'b-name', repl_cdr_v = '2020-01-01T00:00:00.000000|b' WHERE id = 1"
    )
    conn.commit()
    conn.close()
    exchange(ch, spark)
    assert rows(a) == rows(b) == [(1, "a-name", 1, "1.00", "EUR")]
    assert [c[2] for c in conflicts(a)] == ["local"] and [c[2] for c in conflicts(b)] == ["remote"]


def test_purge_keeps_tombstones_until_every_site_is_past_them(sites: Any, spark: Any) -> None:
    ch, a, b = sites
    setup.add(ch.cfg, "item", "latest", None)
    a.execute("INSERT INTO item VALUES (1, 'one', 1, 1.00, 'EUR'), (2, 'two', 2, 2.00, 'EUR')")
    exchange(ch, spark)
    a.execute("DELETE FROM item WHERE id = 1")
    tombs = "SELECT key, kv FROM repl_tombstones"
    ch.purge()  # b has not applied the delete: the tombstone stays
    assert a.query(tombs) == [("[1]", 1)] and b.query(tombs) == []
    exchange(ch, spark)
    assert b.query(tombs) == [("[1]", 1)]
    for _ in range(3):  # each site's receive stamp of the other moves past its tombstone
        exchange(ch, spark)
    done = ch.purge()
    assert a.query(tombs) == b.query(tombs) == []
    assert done["a"]["tombstones"] == done["b"]["tombstones"] == 1
    assert rows(a) == rows(b) == [(2, "two", 2, "2.00", "EUR")]


def test_a_delete_that_loses_leaves_its_tombstone_at_both_sites_for_purge(
    sites: Any, spark: Any
) -> None:
    """a deletes key 1, b renames it later: the rename wins at both sites. a's delete
    trigger wrote a tombstone; b, where the delete lost, keeps one too, so both hold it and
    purge takes it away (a tombstone only one site holds is never purged)."""
    ch, a, b = sites
    setup.add(ch.cfg, "item", "latest", None)
    a.execute("INSERT INTO item VALUES (1, 'one', 1, 1.00, 'EUR')")
    exchange(ch, spark)
    a.execute("DELETE FROM item WHERE id = 1")
    time.sleep(0.002)
    b.execute("UPDATE item SET name = 'b1' WHERE id = 1")
    for _ in range(2):
        exchange(ch, spark)
    assert rows(a) == rows(b) == [(1, "b1", 1, "1.00", "EUR")]
    tombs = "SELECT key, kv FROM repl_tombstones"
    assert a.query(tombs) == b.query(tombs) == [("[1]", 1)]
    for _ in range(3):
        exchange(ch, spark)
    done = ch.purge()
    assert a.query(tombs) == b.query(tombs) == []
    assert done["a"]["tombstones"] == done["b"]["tombstones"] == 1
    assert rows(a) == rows(b) == [(1, "b1", 1, "1.00", "EUR")]
    assert ch.run(once=True, spark=spark).changes == 0


def test_mesh_delete_behind_a_newer_incarnation_leaves_its_tombstone(
    tmp_path: Path, spark: Any
) -> None:
    """b updates key 1; c deletes it; a applies the delete and inserts the key again (key
    version 2). b then gets a's new incarnation and c's delete in one round: the new
    incarnation replaces its row, the delete of the old one is skipped and still leaves
    its tombstone. b's update of the old incarnation loses to the new one at a and to the
    delete at c; every site holds the tombstone, and purge takes it away."""
    from tests.system.test_cdr_ring import run_at

    gens = [make_pg(), make_pg(), make_pg()]
    a, b, c = dbs = [next(g) for g in gens]
    try:
        for db in dbs:
            db.execute(DDL)
        ch = sites_channel(tmp_path, dict(zip("abc", dbs, strict=True)), "mesh", "public.item")
        setup.add(ch.cfg, "item", "latest", None)
        a.execute("INSERT INTO item VALUES (1, 'one', 1, 1.00, 'EUR')")
        exchange(ch, spark)
        b.execute("UPDATE item SET name = 'from b' WHERE id = 1")
        time.sleep(0.01)
        c.execute("DELETE FROM item WHERE id = 1")
        run_at(ch, "a", spark)
        a.execute("INSERT INTO item VALUES (1, 'again', 2, 2.00, 'EUR')")
        run_at(ch, "b", spark)
        tombs = "SELECT key, kv FROM repl_tombstones"
        assert b.query(tombs) == [("[1]", 1)]
        assert b.query("SELECT name, repl_cdr_kv FROM item") == [("again", 2)]
        exchange(ch, spark)
        for db in dbs:
            assert rows(db) == [(1, "again", 2, "2.00", "EUR")]
            assert db.query(tombs) == [("[1]", 1)]
            assert db.query("SELECT repl_cdr_kv FROM item") == [(2,)]
        for _ in range(2):
            exchange(ch, spark)
        done = ch.purge()
        for name, db in zip("abc", dbs, strict=True):
            assert db.query(tombs) == [], name
            assert done[name]["tombstones"] == 1
            assert rows(db) == [(1, "again", 2, "2.00", "EUR")]
    finally:
        for g in gens:
            next(g, None)
