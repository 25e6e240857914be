"""Conflict resolution between two sites, written once as a table of cases and run over
vendor pairs: PostgreSQL with PostgreSQL, PostgreSQL with MariaDB, SQLite with SQLite.

Every case works on keys of its own in one of two tables (``item`` under ``latest``,
``itemx`` under ``earliest``, both with the column group ``pricing``). The cases run side
by side in phases: each phase makes the case's writes at the sites, in the order listed
(one write after the other, so times are in that order), then one ``run --once`` exchanges
them both ways. At the end both sites hold what the case expects, identically, and each
site recorded the conflicts it decided, with the winner seen from there.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.ops.cdr import setup
from syncpoint.ops.channel import Channel
from syncpoint.vendors.postgres.names import Names
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system.roundkit import norm

pytestmark = pytest.mark.spark

DDL = {
    "postgres": "CREATE TABLE {t} (id bigint PRIMARY KEY, name varchar(40), qty integer, "
    "price numeric(10,2), currency varchar(3))",
    "mariadb": "CREATE TABLE {t} (id bigint PRIMARY KEY, name varchar(40), qty int, "
    "price decimal(10,2), currency varchar(3)) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE {t} (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER, "
    "price NUMERIC, currency TEXT)",
}
GROUPS = {"pricing": ["price", "currency"]}


def ins(t: str, i: int, name: str, qty: int = 1) -> str:
    return (
        f"INSERT INTO {t} (id, name, qty, price, currency) "
        f"VALUES ({i}, '{name}', {qty}, 1.00, 'EUR')"
    )


def upd(t: str, i: int, sets: str) -> str:
    return f"UPDATE {t} SET {sets} WHERE id = {i}"


def dele(t: str, i: int) -> str:
    return f"DELETE FROM {t} WHERE id = {i}"


SKEWED = "2020-01-01T00:00:00.000000|b"  # what b's trigger writes with its clock years behind


@dataclass
class Case:
    """Writes per phase ((site, SQL or ("skew", SQL)), in order), what both sites end with
    for the case's key, and the conflicts each site records: (group, winner)."""

    name: str
    table: str
    key: int
    phases: list[list[tuple[str, Any]]]
    row: tuple[Any, ...] | None
    conflicts: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    kv: int | None = None


def cases() -> list[Case]:
    it, ix = "item", "itemx"
    return [
        Case("update/update, latest wins", it, 1,
             [[("a", ins(it, 1, "one"))],
              [("a", upd(it, 1, "name = 'a1'")), ("b", upd(it, 1, "name = 'b1'"))]],
             (1, "b1", 1, "1", "EUR"),
             {"a": [("default", "remote")], "b": [("default", "local")]}),
        Case("update/update, earliest wins", ix, 1,
             [[("a", ins(ix, 1, "one"))],
              [("a", upd(ix, 1, "price = 2.00, currency = 'USD'")),
               ("b", upd(ix, 1, "price = 3.00"))]],
             (1, "one", 1, "2", "USD"),
             {"a": [("pricing", "local")], "b": [("pricing", "remote")]}),
        Case("different groups, both kept", it, 2,
             [[("b", ins(it, 2, "two"))],
              [("a", upd(it, 2, "name = 'a2'")), ("b", upd(it, 2, "price = 9.99"))]],
             (2, "a2", 1, "9.99", "EUR")),
        Case("update then a later delete: the delete wins", it, 3,
             [[("a", ins(it, 3, "three"))],
              [("a", upd(it, 3, "qty = 30")), ("b", dele(it, 3))]],
             None,
             {"a": [("*", "remote")], "b": [("*", "local")]}),
        Case("delete then a later update: the update wins", it, 4,
             [[("a", ins(it, 4, "four"))],
              [("a", dele(it, 4)), ("b", upd(it, 4, "qty = 40"))]],
             (4, "four", 40, "1", "EUR"),
             {"a": [("*", "remote")], "b": [("*", "local")]}),
        Case("insert/insert of one key: the later insert wins", it, 5,
             [[("a", ins(it, 5, "a5")), ("b", ins(it, 5, "b5", 2))]],
             (5, "b5", 2, "1", "EUR"),
             {"a": [("default", "remote"), ("pricing", "remote")],
              "b": [("default", "local"), ("pricing", "local")]}),
        Case("re-insert after the delete arrived (key version 2)", it, 6,
             [[("a", ins(it, 6, "six"))], [("b", dele(it, 6))], [("a", ins(it, 6, "again"))]],
             (6, "again", 1, "1", "EUR"), kv=2),
        Case("re-insert while the other site's delete is in flight", it, 7,
             [[("a", ins(it, 7, "seven"))],
              [("b", dele(it, 7)), ("a", dele(it, 7)), ("a", ins(it, 7, "again"))]],
             (7, "again", 1, "1", "EUR"),
             {"a": [("*", "local")], "b": []}, kv=2),
        Case("re-insert beats an earlier delete whatever the rule", ix, 8,
             [[("b", ins(ix, 8, "eight"))],
              [("a", dele(ix, 8)), ("b", dele(ix, 8)), ("b", ins(ix, 8, "again"))]],
             (8, "again", 1, "1", "EUR"),
             {"a": [], "b": [("*", "local")]}, kv=2),
        Case("clock skew: the recorded times decide", it, 9,
             [[("a", ins(it, 9, "nine"))],
              [("a", upd(it, 9, "name = 'a9'")),
               ("b", ("skew", upd(it, 9, f"name = 'b9', repl_cdr_v = '{SKEWED}'")))]],
             (9, "a9", 1, "1", "EUR"),
             {"a": [("default", "local")], "b": [("default", "remote")]}),
    ]  # fmt: skip


def skewed(db: Any, site: str, sql: str) -> None:
    """A write as ``site``'s own triggers would make it with the version given in ``sql``:
    marked with the site's own name as origin, the triggers keep the version written."""
    conn = db.connect(autocommit=db.vendor != "postgres")
    cur = conn.cursor()
    if db.vendor == "postgres":
        cur.execute("SELECT set_config(%s, %s, true)", (Names("repl_").origin_setting, site))
        cur.execute(sql)
        conn.commit()
    elif db.vendor == "mariadb":
        cur.execute("SET @repl_origin = %s", (site,))
        cur.execute(sql)
        cur.execute("SET @repl_origin = NULL")
    else:
        cur.execute("BEGIN IMMEDIATE")
        cur.execute("INSERT INTO repl_origin (dbid) VALUES (?)", (site,))
        cur.execute(sql)
        cur.execute("DELETE FROM repl_origin")
        cur.execute("COMMIT")
    conn.close()


def make(vendor: str, tmp: Path) -> Any:
    return (
        {"postgres": make_pg, "mariadb": make_mariadb}[vendor]()
        if vendor != "sqlite"
        else (make_sqlite(tmp))
    )


def channel(tmp: Path, a: Any, b: Any, name: str = "bi") -> Channel:
    data = {
        "channel": name,
        "application": "sync",
        "locations": {
            "a": {"url": a.url, "capture": True, "integrate": True},
            "b": {"url": b.url, "capture": True, "integrate": True},
        },
        "tables": [{"name": "item", "snapshot": "none"}, {"name": "itemx", "snapshot": "none"}],
        "sync_groups": {"items": ["item", "itemx"]},  # one round per direction
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return Channel.from_file(path)


def sites_channel(tmp: Path, sites: dict[str, Any], name: str, table: str = "item") -> Channel:
    """An installed channel of one table (no snapshot) between ``sites`` (name -> database),
    each capturing and integrating and reading every other; ``cdr add`` is the caller's."""
    data = {
        "channel": name,
        "application": "sync",
        "locations": {
            n: {"url": db.url, "capture": True, "integrate": True} for n, db in sites.items()
        },
        "tables": [{"name": table, "snapshot": "none"}],
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    ch = Channel.from_file(path)
    ch.install()
    return ch


@pytest.fixture
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    gens = [make(v, tmp_path) for v in request.param]
    a, b = (next(g) for g in gens)
    try:
        for db in (a, b):
            db.execute(*(DDL[db.vendor].format(t=t) for t in ("item", "itemx")))
        ch = channel(tmp_path, a, b)
        ch.install()
        yield ch, a, b
    finally:
        for g in gens:
            next(g, None)


def rows(db: Any, table: str, key: int) -> tuple[Any, ...] | None:
    found = db.query(f"SELECT id, name, qty, price, currency FROM {table} WHERE id = {key}")
    return tuple(norm(v) for v in found[0]) if found else None


def recorded(db: Any, table: str, key: int) -> list[tuple[str, str]]:
    col = "`key`" if db.vendor == "mariadb" else "key"
    found = db.query(
        f"SELECT column_group, winner FROM repl_conflicts "
        f"WHERE table_name = '{table}' AND {col} = '[{key}]'"
    )
    return sorted((str(g), str(w)) for g, w in found)


PAIRS = [("postgres", "postgres"), ("postgres", "mariadb"), ("sqlite", "sqlite")]


@pytest.mark.parametrize("pair", PAIRS, indirect=True, ids=lambda p: "-".join(p))
def test_conflict_cases_end_identical_at_both_sites(pair: Any, spark: Any) -> None:
    ch, a, b = pair
    sites = {"a": a, "b": b}
    setup.add(ch.cfg, "item", "latest", GROUPS)
    setup.add(ch.cfg, "itemx", "earliest", GROUPS)
    table = cases()
    for phase in range(max(len(c.phases) for c in table)):
        for c in table:
            for site, sql in c.phases[phase] if phase < len(c.phases) else []:
                if isinstance(sql, tuple):
                    skewed(sites[site], site, sql[1])
                else:
                    sites[site].execute(sql)
                time.sleep(0.002)  # the next write's time is later at either site
        report = ch.run(once=True, spark=spark)
        assert not report.stopped and not report.errors
    wrong = []
    for c in table:
        got = {s: rows(db, c.table, c.key) for s, db in sites.items()}
        want = tuple(norm(v) for v in c.row) if c.row else None
        if got["a"] != want or got["b"] != want:
            wrong.append(f"{c.name}: rows {got}, expected {c.row}")
        for s, db in sites.items():
            found = recorded(db, c.table, c.key)
            if found != sorted(c.conflicts.get(s, [])):
                wrong.append(f"{c.name}: conflicts at {s} {found}, expected {c.conflicts.get(s)}")
            if c.kv is not None:
                kv = db.query(f"SELECT repl_cdr_kv FROM {c.table} WHERE id = {c.key}")
                if kv != [(c.kv,)]:
                    wrong.append(f"{c.name}: key version at {s} {kv}, expected {c.kv}")
    assert not wrong, "\n".join(wrong)
    # quiet: nothing left to exchange, nothing echoed
    assert ch.run(once=True, spark=spark).changes == 0
    for db in (a, b):
        made = {str(d) for (d,) in db.query("SELECT DISTINCT dbid FROM repl_items")}
        assert made <= {"a", "b"}


CATALOG = {
    "postgres": [
        "SELECT table_name, column_name, data_type, is_nullable, column_default "
        "FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2",
        "SELECT tgrelid::regclass::text, tgname, pg_get_triggerdef(oid) FROM pg_trigger "
        "WHERE NOT tgisinternal ORDER BY 1, 2",
        "SELECT proname, prosrc FROM pg_proc WHERE pronamespace = 'public'::regnamespace "
        "ORDER BY 1",
        "SELECT relname, relkind FROM pg_class WHERE relnamespace = 'public'::regnamespace "
        "ORDER BY 1",
    ],
    "mariadb": [
        "SELECT TABLE_NAME, ORDINAL_POSITION, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, "
        "COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() "
        "ORDER BY 1, 2",
        "SELECT TRIGGER_NAME, EVENT_OBJECT_TABLE, EVENT_MANIPULATION, ACTION_TIMING, "
        "ACTION_STATEMENT FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() "
        "ORDER BY 1",
        "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES "
        "WHERE TABLE_SCHEMA = DATABASE() ORDER BY 1",
    ],
    "sqlite": [
        "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name",
        'SELECT m.name, p.cid, p.name, p.type, p."notnull", p.dflt_value, p.pk '
        "FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' "
        "ORDER BY 1, 2",
    ],
}


def catalog(db: Any) -> list[list[tuple[Any, ...]]]:
    return [db.query(q) for q in CATALOG[db.vendor]]


@pytest.mark.parametrize(
    "pair", [("postgres", "mariadb"), ("sqlite", "sqlite")], indirect=True, ids="-".join
)
def test_remove_puts_every_catalog_back_exactly(pair: Any, spark: Any) -> None:
    """Columns, triggers (capture's too, to the letter), functions and tables are as
    before ``cdr add``; the data stays, and replication goes on without a schema event."""
    ch, a, b = pair
    a.execute(ins("item", 1, "one"))
    ch.run(once=True, spark=spark)  # the control tables exist from here on
    before = [catalog(db) for db in (a, b)]
    plan = setup.plan_add(ch.cfg, "item", "latest", GROUPS)
    assert set(plan) == {"a", "b"} and any("repl_cdr_v_pricing" in s for s in plan["b"])
    assert [catalog(db) for db in (a, b)] == before
    setup.add(ch.cfg, "item", "latest", GROUPS)
    assert [catalog(db) for db in (a, b)] != before
    b.execute(upd("item", 1, "price = 5.00"))
    a.execute(ins("item", 2, "two"))
    report = ch.run(once=True, spark=spark)
    assert not report.stopped and rows(a, "item", 1) == rows(b, "item", 1)
    setup.remove(ch.cfg, "item")
    assert [catalog(db) for db in (a, b)] == before
    assert (
        rows(a, "item", 1)
        == rows(b, "item", 1)
        == tuple(norm(v) for v in (1, "one", 1, "5", "EUR"))
    )
    b.execute(upd("item", 2, "qty = 2"))
    report = ch.run(once=True, spark=spark)
    assert not report.stopped and rows(a, "item", 2) == rows(b, "item", 2)
    assert rows(a, "item", 2) == tuple(norm(v) for v in (2, "two", 2, "1", "EUR"))
