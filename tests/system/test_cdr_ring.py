"""Three sites in a ring (``from:``: a reads c, b reads a, c reads b), one per vendor: a
change made at one site reaches the two others, the second one through the first, each
exactly once, never back where it was made; conflicting changes made around the ring end
identical everywhere by the table's rule."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.errors import ConfigError
from syncpoint.ops.cdr import setup
from syncpoint.ops.channel import Channel
from syncpoint.ops.run import RunReport, run_group
from syncpoint.ops.stamps import record_stamps
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system.test_cdr_pairs import DDL, GROUPS, ins, norm, recorded, rows, upd

pytestmark = [pytest.mark.spark, pytest.mark.slow]

NOTE = {
    "postgres": "CREATE TABLE note (id bigint PRIMARY KEY, txt text)",
    "mariadb": "CREATE TABLE note (id bigint PRIMARY KEY, txt varchar(20)) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE note (id INTEGER PRIMARY KEY, txt TEXT)",
}
RING = {"a": "c", "b": "a", "c": "b"}  # each site reads the one before it


def quiet(ch: Channel, spark: Any) -> None:
    """Exchange until a run applies nothing (a change goes round in at most two hops)."""
    for _ in range(4):
        report = ch.run(once=True, spark=spark)
        assert not report.stopped and not report.errors
        if report.changes == 0:
            return
    raise AssertionError("the ring did not go quiet")


def purged(ch: Channel, sites: dict[str, Any], spark: Any) -> dict[str, int]:
    """Exchange and purge until no site holds a tombstone (at most six times): the tombstones
    each site's purge took away in all. A purge waits for every site's stamps to pass a
    tombstone, and a MariaDB site's stamp waits for a fresh list of its open transactions,
    which other sessions reading it can hold back for a while under load."""
    took = dict.fromkeys(sites, 0)
    for _ in range(6):
        for _ in range(2):  # each site's stamp of its predecessor moves past what it forwarded
            ch.run(once=True, spark=spark)
        for n, done in ch.purge().items():
            took[n] += done["tombstones"]
        if all(db.query(TOMBS) == [] for db in sites.values()):
            break
        time.sleep(0.2)
    return took


@pytest.fixture
def ring(tmp_path: Path) -> Any:
    """A PostgreSQL, a MariaDB and a SQLite site in a ring, ``item`` under ``latest`` with
    the pricing group, ``note`` plain."""
    gens = [make_pg(), make_mariadb(), make_sqlite(tmp_path)]
    sites = dict(zip("abc", (next(g) for g in gens), strict=True))
    try:
        for db in sites.values():
            db.execute(DDL[db.vendor].format(t="item"), NOTE[db.vendor])
        data = {
            "channel": "ring",
            "application": "sync",
            "locations": {
                n: {"url": db.url, "capture": True, "integrate": True, "from": [RING[n]]}
                for n, db in sites.items()
            },
            "tables": [{"name": "item", "snapshot": "none"}, {"name": "note", "snapshot": "none"}],
            "sync_groups": {"all": ["item", "note"]},
            "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
        }
        (tmp_path / "ring.yaml").write_text(yaml.safe_dump(data))
        ch = Channel.from_file(tmp_path / "ring.yaml")
        ch.install()
        setup.add(ch.cfg, "item", "latest", GROUPS)
        yield ch, sites
    finally:
        for g in gens:
            next(g, None)


def test_ring_forwards_each_change_once_and_never_back(ring: Any, spark: Any) -> None:
    ch, sites = ring
    assert ch.cfg.origins_via("c", "b") == ["a", "b"]  # c hears of a's changes from b
    for i, (n, db) in enumerate(sites.items(), start=1):
        db.execute(f"INSERT INTO note (id, txt) VALUES ({i}, 'from {n}')")
    sites["a"].execute(ins("item", 1, "one"), ins("item", 2, "two"))
    quiet(ch, spark)
    # concurrent changes around the ring: the later wins by group, the later delete too
    sites["a"].execute(upd("item", 1, "name = 'a1'"))
    time.sleep(0.002)
    sites["c"].execute(upd("item", 1, "name = 'c1'"))
    sites["b"].execute(upd("item", 1, "price = 7.50"))
    sites["b"].execute(upd("item", 2, "qty = 20"))
    time.sleep(0.002)
    sites["c"].execute("DELETE FROM item WHERE id = 2")
    quiet(ch, spark)
    want = tuple(norm(v) for v in (1, "c1", 1, "7.5", "EUR"))
    for n, db in sites.items():
        assert rows(db, "item", 1) == want, n
        assert rows(db, "item", 2) is None, n
        assert db.query("SELECT id, txt FROM note ORDER BY id") == [
            (1, "from a"),
            (2, "from b"),
            (3, "from c"),
        ], n
        # each note captured once at every site, marked with where it was made: a change
        # that came back to its site would be captured there a second time
        notes = db.query(
            "SELECT dbid, count(*) FROM repl_items WHERE tablename = 'note' "
            "GROUP BY dbid ORDER BY dbid"
        )
        assert notes == [("a", 1), ("b", 1), ("c", 1)], n
    # earliest is refused in a ring (a change can come round before the one it was made
    # from), and the table stays under latest at every site
    with pytest.raises(ConfigError, match="resolution earliest needs sites joined without a loop"):
        setup.alter(ch.cfg, "item", "earliest", None)
    for n, db in sites.items():
        assert db.query("SELECT resolution FROM repl_cdr") == [("latest",)], n


TOMBS = "SELECT kv FROM repl_tombstones"


def run_at(ch: Channel, site: str, spark: Any) -> None:
    """One pass of the rounds of one integrate location, then its receive stamps: the
    other sites do not move meanwhile."""
    report = RunReport()
    for g, tables in ch.cfg.groups().items():
        assert run_group(ch.cfg, site, g, tables, report, spark)
    record_stamps(ch.cfg, site)


def test_ring_purges_tombstones_after_exchange(ring: Any, spark: Any) -> None:
    ch, sites = ring
    sites["a"].execute(ins("item", 1, "one"), ins("item", 2, "two"))
    quiet(ch, spark)
    sites["b"].execute("DELETE FROM item WHERE id = 1")
    quiet(ch, spark)
    assert all(db.query(TOMBS) == [(1,)] for db in sites.values())
    for _ in range(2):  # each site's stamp of its predecessor moves past what it forwarded
        ch.run(once=True, spark=spark)
    held = tombstones_shown(ch)
    for n in sites:
        assert held[n]["count"] == 1 and held[n]["age"] >= 0, (n, held)
        assert held[n]["metric"] == 1 and held[n]["metric_age"] == held[n]["age"], (n, held)
    took = {n: done["tombstones"] for n, done in ch.purge().items()}
    if any(db.query(TOMBS) for db in sites.values()):
        # a MariaDB site's stamp can wait for a fresh list of its open transactions under
        # load (``purged``): exchange and purge again
        for n, more in purged(ch, sites, spark).items():
            took[n] += more
    held = tombstones_shown(ch)
    for n, db in sites.items():
        assert db.query(TOMBS) == [], n
        assert took[n] == 1, n
        assert rows(db, "item", 1) is None and rows(db, "item", 2) is not None, n
        assert held[n] == {"count": 0, "age": None, "metric": 0, "metric_age": None}, n


def tombstones_shown(ch: Channel) -> dict[str, dict[str, Any]]:
    """Per site: the tombstones ``status --json`` reports (count, oldest age) and the
    metrics the status page exports from it."""
    from syncpoint.cli.status import collect
    from syncpoint.observe.metrics import Metrics
    from tests.operator.test_status_warnings import validate

    status = collect(ch)
    validate(status)
    metrics = Metrics(ch.cfg.channel)
    metrics.update(status)
    text = metrics.render().decode()

    def metric(name: str, site: str) -> float | None:
        for line in text.splitlines():
            # every series carries the channel label too
            if line.startswith(f"{name}{{") and f'integrate="{site}"' in line.split("}")[0]:
                return float(line.split()[-1])
        return None

    return {
        n: {
            "count": st["tombstones"]["count"],
            "age": st["tombstones"]["oldest_age_seconds"],
            "metric": metric("syncpoint_tombstones", n),
            "metric_age": metric("syncpoint_tombstone_oldest_age_seconds", n),
        }
        for n, st in status["conflicts"].items()
    }


def test_ring_keeps_tombstones_while_a_change_is_on_its_way(ring: Any, spark: Any) -> None:
    """b's update of key 1 went on to c; a deletes key 1 and every site holds the
    tombstone, but the update is still on its way from c to a: the tombstones stay, and
    the update, when it comes, loses to the delete at a as it did everywhere."""
    ch, sites = ring
    sites["a"].execute(ins("item", 1, "one"))
    quiet(ch, spark)
    for _ in range(2):
        ch.run(once=True, spark=spark)
    sites["b"].execute(upd("item", 1, "name = 'b1'"))
    run_at(ch, "c", spark)  # c applied (and captured, for a) b's update
    time.sleep(0.002)
    sites["a"].execute("DELETE FROM item WHERE id = 1")
    run_at(ch, "b", spark)  # b applies a's delete
    run_at(ch, "c", spark)  # c applies it from b
    assert all(db.query(TOMBS) == [(1,)] for db in sites.values())
    for _ in range(2):  # b and c move on; a does not read c's stream
        run_at(ch, "b", spark)
        run_at(ch, "c", spark)
    done = ch.purge()
    for n, db in sites.items():
        assert db.query(TOMBS) == [(1,)], n
        assert done[n]["tombstones"] == 0, n
    quiet(ch, spark)
    for n, db in sites.items():
        assert rows(db, "item", 1) is None, n
    purged(ch, sites, spark)
    for n, db in sites.items():
        assert db.query(TOMBS) == [], n
        assert rows(db, "item", 1) is None, n


def test_ring_delete_behind_a_newer_incarnation_leaves_its_tombstone(ring: Any, spark: Any) -> None:
    """c deletes key 1; a applies the delete and inserts the key again (key version 2); b
    gets the new incarnation before the delete of the old one, skips the delete, and still
    records its tombstone: every site holds it, so purge can take it away; a late update
    of the old incarnation loses to the new one at b."""
    ch, sites = ring
    sites["a"].execute(ins("item", 1, "one"))
    quiet(ch, spark)
    sites["c"].execute("DELETE FROM item WHERE id = 1")
    run_at(ch, "a", spark)
    sites["a"].execute(ins("item", 1, "again"))
    run_at(ch, "b", spark)
    quiet(ch, spark)
    for n, db in sites.items():
        assert db.query(TOMBS) == [(1,)], n
        assert db.query("SELECT repl_cdr_kv FROM item WHERE id = 1") == [(2,)], n
    purged(ch, sites, spark)
    for n, db in sites.items():
        assert db.query(TOMBS) == [], n
        assert rows(db, "item", 1) == tuple(norm(v) for v in (1, "again", 1, "1", "EUR")), n


def test_ring_passes_on_rows_of_several_origins_and_what_deletes_made(
    ring: Any, spark: Any
) -> None:
    """Three cases the randomized ring test found, on keys of their own, in the same rounds
    (a reads c, b reads a, c reads b):

    1. a renames key 1, c reprices it; a applies c's price, so a's stream holds both changes
       of the key, which b nets into one row: c must still get a's name through b.
    2. c reprices key 2 and deletes it, b renames it later; the delete wins at a, loses at b:
       b takes c's price, which only reaches it with the delete a passes on.
    3. a deletes key 3, inserts it again and deletes it again (key version 2); c renames the
       first incarnation after that: b ends the first incarnation's row with the second's
       delete, and c, reading b, must learn that key version 2 ended it.
    """
    ch, sites = ring
    a, b, c = sites["a"], sites["b"], sites["c"]
    a.execute(ins("item", 1, "one"), ins("item", 2, "two"), ins("item", 3, "three"))
    quiet(ch, spark)
    a.execute(upd("item", 1, "name = 'a1'"))
    c.execute(upd("item", 2, "price = 5.25"), "DELETE FROM item WHERE id = 2")
    a.execute("DELETE FROM item WHERE id = 3", ins("item", 3, "again"))
    a.execute("DELETE FROM item WHERE id = 3")
    time.sleep(0.002)
    c.execute(upd("item", 1, "price = 2.5"), upd("item", 3, "name = 'c3'"))
    b.execute(upd("item", 2, "name = 'b2'"))
    for site in "abc":
        run_at(ch, site, spark)
    quiet(ch, spark)
    for n, db in sites.items():
        assert rows(db, "item", 1) == tuple(norm(v) for v in (1, "a1", 1, "2.5", "EUR")), n
        assert rows(db, "item", 2) == tuple(norm(v) for v in (2, "b2", 1, "5.25", "EUR")), n
        assert rows(db, "item", 3) is None, n


READS = {reader: source for reader, source in RING.items()}
READ_BY = {source: reader for reader, source in RING.items()}


def tomb_versions(db: Any) -> list[tuple[int, str]]:
    found = db.query("SELECT kv, version FROM repl_tombstones")
    return sorted((int(kv), str(v)) for kv, v in found)


@pytest.mark.parametrize("x", ["a", "b", "c"], ids=["via-mariadb", "via-sqlite", "via-postgres"])
def test_ring_passes_on_a_delete_applied_where_the_row_is_gone(
    ring: Any, spark: Any, x: str
) -> None:
    """X deletes, M (reading X) is the site in between, L reads M; each vendor is M once.

    Key 1: L inserts it, then X inserts and deletes it (later), all before any round. M
    gets X's insert and delete netted into one delete, with no row of that incarnation to
    delete: capture records nothing of a delete of no row, so the apply records it. L,
    which still holds its own row of key version 1, then gets the delete from M, and it
    wins there (it is later); X keeps its delete against L's earlier insert.

    Key 2, held everywhere: M deletes it, then X (later). L applies M's delete first; then
    M gets X's delete where the row is gone already, and passes it on: L's tombstone takes
    the later delete's version, as X's and M's did.

    Key 3, held everywhere: M deletes it, X reprices and deletes it, L renames it (later
    than both). M's delete loses at L; so does X's, which comes through M, where the row is
    gone: what M passes on must still say that X's window made the price, which L's row
    takes from the delete it wins against, as X's row, made again by L's rename, keeps it.

    Every site ends with the same rows and tombstones, which ``purge`` takes away."""
    ch, sites = ring
    m, last = READ_BY[x], READ_BY[READ_BY[x]]
    assert READS[m] == x and READS[last] == m and READS[x] == last
    sites[x].execute(ins("item", 2, "two"), ins("item", 3, "three"))
    quiet(ch, spark)
    for _ in range(2):
        ch.run(once=True, spark=spark)
    sites[last].execute(ins("item", 1, "mine"))
    sites[m].execute("DELETE FROM item WHERE id = 2", "DELETE FROM item WHERE id = 3")
    time.sleep(0.002)
    sites[x].execute(ins("item", 1, "gone"), "DELETE FROM item WHERE id = 1")
    sites[x].execute("DELETE FROM item WHERE id = 2")
    sites[x].execute(upd("item", 3, "price = 3.25"), "DELETE FROM item WHERE id = 3")
    time.sleep(0.002)
    sites[last].execute(upd("item", 3, "name = 'l3'"))
    run_at(ch, last, spark)  # M's delete of key 2 reaches L
    run_at(ch, m, spark)  # X's deletes reach M, which holds no row of either key
    run_at(ch, last, spark)  # ... and L from M
    assert rows(sites[last], "item", 1) is None
    # M passed the three deletes on, as made at X (so they never go back there)
    forwarded = sites[m].query(
        "SELECT count(*) FROM repl_items WHERE tablename = 'item' AND db_action = 'DELETE' "
        f"AND dbid = '{x}'"
    )
    assert forwarded == [(3,)], forwarded
    quiet(ch, spark)
    want = tomb_versions(sites[x])
    assert [kv for kv, _ in want] == [1, 1, 1], want
    three = tuple(norm(v) for v in (3, "l3", 1, "3.25", "EUR"))
    for n, db in sites.items():
        assert rows(db, "item", 1) is None and rows(db, "item", 2) is None, n
        assert rows(db, "item", 3) == three, n
        assert tomb_versions(db) == want, n
    done = purged(ch, sites, spark)
    for n, db in sites.items():
        assert db.query(TOMBS) == [], n
        assert done[n] == 3, n
        assert rows(db, "item", 3) == three, n
    assert ch.run(once=True, spark=spark).changes == 0


def test_ring_purges_the_tombstones_of_a_delete_that_lost_on_its_way(
    ring: Any, spark: Any
) -> None:
    """a deletes key 1; b changes it later, before the delete comes: the delete loses at b,
    which keeps its tombstone and passes nothing of it on, so c never holds one; b's change
    goes round and makes the row again at a. Once every site is past b's change, purge
    takes the tombstones of a and b (they were kept for good before: purge waited for c),
    and the row stays everywhere."""
    ch, sites = ring
    sites["a"].execute(ins("item", 1, "one"), ins("item", 2, "two"))
    quiet(ch, spark)
    sites["a"].execute("DELETE FROM item WHERE id = 1")
    time.sleep(0.002)
    sites["b"].execute(upd("item", 1, "name = 'b1'"))
    quiet(ch, spark)
    want = tuple(norm(v) for v in (1, "b1", 1, "1", "EUR"))
    for n, db in sites.items():
        assert rows(db, "item", 1) == want, n
    held = {n: db.query(TOMBS) for n, db in sites.items()}
    assert held == {"a": [(1,)], "b": [(1,)], "c": []}, held
    done = purged(ch, sites, spark)
    for n, db in sites.items():
        assert db.query(TOMBS) == [], n
        assert rows(db, "item", 1) == want, n
    assert done == {"a": 1, "b": 1, "c": 0}
    quiet(ch, spark)
    for n, db in sites.items():
        assert rows(db, "item", 1) == want, n


def test_ring_purge_after_a_delete_that_lost_waits_for_the_changes_still_on_their_way(
    ring: Any, spark: Any
) -> None:
    """a deletes keys 1 and 2; b renames both later, before the deletes come: they lose at
    b, whose tombstones purge takes at once (b holds the rows). c, after b, changes them
    later still, before b's renames come: key 1's price, key 2 deleted. Those changes go
    to a (where the rows are deleted) and on to b; purge meanwhile keeps a's and c's
    tombstones: key 1 ends as the rename and the price made it, key 2 deleted, the same at
    every site, and purge then takes every tombstone."""
    ch, sites = ring
    a, b, c = sites["a"], sites["b"], sites["c"]
    a.execute(ins("item", 1, "one"), ins("item", 2, "two"))
    quiet(ch, spark)
    for _ in range(2):
        ch.run(once=True, spark=spark)
    a.execute("DELETE FROM item WHERE id = 1", "DELETE FROM item WHERE id = 2")
    time.sleep(0.002)
    b.execute(upd("item", 1, "name = 'b1'"), upd("item", 2, "name = 'b2'"))
    time.sleep(0.002)
    c.execute(upd("item", 1, "price = 7.50"), "DELETE FROM item WHERE id = 2")
    run_at(ch, "b", spark)  # a's deletes lose at b
    ch.purge()
    held = {n: db.query(TOMBS) for n, db in sites.items()}
    assert held == {"a": [(1,), (1,)], "b": [], "c": [(1,)]}, held
    run_at(ch, "c", spark)  # b's renames: key 1 takes both; key 2's loses to c's delete
    ch.purge()
    run_at(ch, "a", spark)  # c's price and b's rename (through c) make key 1 again at a
    ch.purge()
    quiet(ch, spark)
    one = tuple(norm(v) for v in (1, "b1", 1, "7.5", "EUR"))
    for n, db in sites.items():
        assert rows(db, "item", 1) == one, n
        assert rows(db, "item", 2) is None, n
    # the stamps move on with the sites' ticks, whose guarantee a busy MariaDB (a stale list
    # of open transactions) may keep back a round or two: purge takes every tombstone once
    # they have passed them
    purged(ch, sites, spark)
    for n, db in sites.items():
        assert db.query(TOMBS) == [], n
        assert rows(db, "item", 1) == one and rows(db, "item", 2) is None, n
    assert ch.run(once=True, spark=spark).changes == 0


@pytest.mark.parametrize("x", ["a", "b", "c"], ids=["via-mariadb", "via-sqlite", "via-postgres"])
def test_ring_delete_where_the_row_is_gone_passes_on_the_row_deleted_here(
    ring: Any, spark: Any, x: str
) -> None:
    """X deletes, M (reading X) is the site in between, L reads M; each vendor is M once.
    What the randomized ring test found: X renames key 1 and M and L take the name; X
    deletes the key; M renames it again (from X's name) and deletes it, later; L reprices
    it, later than both deletes. X's delete reaches M where M's own delete took the row
    already, and M passes it on; L reads M's two deletes of the incarnation in one round,
    which net into the one passed on last, X's. L's repricing beats both deletes, so the
    row is made again everywhere, and it must be M's name everywhere: M's rename was made
    from X's, later. The delete passed on must carry the row M deleted (with what X's
    delete's window made merged into it), not X's row, which lacks M's rename."""
    ch, sites = ring
    m, last = READ_BY[x], READ_BY[READ_BY[x]]
    sites[x].execute(ins("item", 1, "one"))
    quiet(ch, spark)
    sites[x].execute(upd("item", 1, "name = 'x1'"))
    run_at(ch, m, spark)
    run_at(ch, last, spark)
    time.sleep(0.002)
    sites[x].execute("DELETE FROM item WHERE id = 1")
    time.sleep(0.002)
    sites[m].execute(upd("item", 1, "name = 'm1'"), "DELETE FROM item WHERE id = 1")
    time.sleep(0.002)
    sites[last].execute(upd("item", 1, "price = 4.25"))
    run_at(ch, m, spark)  # X's delete reaches M, whose own delete took the row
    run_at(ch, last, spark)  # L reads M's delete and X's, passed on, in one round
    quiet(ch, spark)
    want = tuple(norm(v) for v in (1, "m1", 1, "4.25", "EUR"))
    for n, db in sites.items():
        assert rows(db, "item", 1) == want, n
    book = "SELECT repl_cdr_kv, repl_cdr_v, repl_cdr_v_pricing FROM item WHERE id = 1"
    versions = {n: tuple(map(str, db.query(book)[0])) for n, db in sites.items()}
    assert len(set(versions.values())) == 1, versions
    assert versions[m][1].endswith(f"|{m}"), versions


@pytest.mark.parametrize("x", ["a", "b", "c"], ids=["via-mariadb", "via-sqlite", "via-postgres"])
def test_ring_delete_that_wins_records_the_group_it_took_from_the_row(
    ring: Any, spark: Any, x: str
) -> None:
    """The other case the randomized ring test found: M reprices key 1; X reprices it too,
    later, and deletes it. X's delete wins at M, and first takes X's price into the row it
    deletes: M's price is lost, a conflict of the pricing group that M must record (besides
    the delete's own), as it would for X's repricing alone."""
    ch, sites = ring
    m = READ_BY[x]
    sites[x].execute(ins("item", 1, "one"))
    quiet(ch, spark)
    sites[m].execute(upd("item", 1, "price = 2.5"))
    time.sleep(0.002)
    sites[x].execute(upd("item", 1, "price = 3.25"), "DELETE FROM item WHERE id = 1")
    run_at(ch, m, spark)
    assert rows(sites[m], "item", 1) is None
    assert sorted(recorded(sites[m], "item", 1)) == [("*", "remote"), ("pricing", "remote")]
    quiet(ch, spark)
    for n, db in sites.items():
        assert rows(db, "item", 1) is None, n


@pytest.mark.parametrize("x", ["a", "b", "c"], ids=["via-mariadb", "via-sqlite", "via-postgres"])
def test_ring_passes_on_a_change_that_lost_to_the_delete_in_between(
    ring: Any, spark: Any, x: str
) -> None:
    """The third case the randomized ring test found: X reprices key 1; M deletes it, later,
    before X's change reaches it; L renames it, later than the delete. X's change loses to
    M's delete at M and goes into M's deleted row; M's delete loses to L's row at L. The
    rename makes the row again at M with X's price, and reaches X, which keeps its price:
    L must get X's price too, which only M can pass on."""
    ch, sites = ring
    m, last = READ_BY[x], READ_BY[READ_BY[x]]
    sites[x].execute(ins("item", 1, "one"))
    quiet(ch, spark)
    sites[x].execute(upd("item", 1, "price = 3.25"))
    time.sleep(0.002)
    sites[m].execute("DELETE FROM item WHERE id = 1")
    time.sleep(0.002)
    sites[last].execute(upd("item", 1, "name = 'l1'"))
    run_at(ch, m, spark)  # X's price loses to M's delete
    run_at(ch, last, spark)  # M's delete loses to L's rename
    quiet(ch, spark)
    want = tuple(norm(v) for v in (1, "l1", 1, "3.25", "EUR"))
    for n, db in sites.items():
        assert rows(db, "item", 1) == want, n
