"""``snapshot --restart`` leaves the target holding exactly the source's rows: a row the
source deleted while its table was stopped (its delete record comes before the new t0,
so no round ever applies it) or before capture saw it goes, in whichever chunk's range
it lies, below the first bound, above the last or at a NULL partition value. Before, the
copy only upserted, and such rows stayed at the target for good while every command
succeeded (``verify``: "extra")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from syncpoint.errors import TableStopped
from syncpoint.ops.channel import Channel
from syncpoint.ops.snapshot import SnapshotIncomplete, copy
from tests.conftest import make_mariadb, make_pg, make_sqlite

pytestmark = pytest.mark.spark

CREATE = {
    "postgres": [
        "CREATE TABLE k (id integer PRIMARY KEY, note text)",
        "CREATE TABLE g (id integer PRIMARY KEY, grp integer, note text)",
        "INSERT INTO k SELECT x, 'k' || x FROM generate_series(10, 69) x",
        "INSERT INTO g SELECT x, x + 10, 'g' || x FROM generate_series(1, 60) x",
    ],
    "mariadb": [
        "CREATE TABLE k (id int PRIMARY KEY, note varchar(20)) ENGINE=InnoDB",
        "CREATE TABLE g (id int PRIMARY KEY, grp int, note varchar(20)) ENGINE=InnoDB",
        "INSERT INTO k SELECT seq, CONCAT('k', seq) FROM seq_10_to_69",
        "INSERT INTO g SELECT seq, seq + 10, CONCAT('g', seq) FROM seq_1_to_60",
    ],
}
# the documented stop: a column added with values in the rows already there
FILLED = {
    "postgres": "ALTER TABLE {t} ADD COLUMN points integer DEFAULT 7",
    "mariadb": "ALTER TABLE {t} ADD COLUMN points int NOT NULL DEFAULT 7",
}
# (source, target, copied by): this process (tables of at most DRIVER_ROWS rows), whose
# chunks are applied at each target vendor as Spark's JDBC path applies them; or Spark:
# PostgreSQL to PostgreSQL by the direct path, MariaDB to PostgreSQL by the JDBC path
CASES = [
    ("postgres", "postgres", "driver"),
    ("postgres", "mariadb", "driver"),
    ("postgres", "sqlite", "driver"),
    ("postgres", "postgres", "spark"),
    ("mariadb", "postgres", "spark"),
]


@pytest.fixture(params=CASES, ids=["-".join(c) for c in CASES])
def case(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    source, target, path = request.param
    mk = {"postgres": make_pg, "mariadb": make_mariadb}
    gens = [mk[source](), mk[target]() if target in mk else make_sqlite(tmp_path)]
    dbs = [next(g) for g in gens]
    yield (*dbs, path)
    for g in gens:
        next(g, None)


def rows(db: Any, table: str, cols: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in db.query(f"SELECT {cols} FROM {table} ORDER BY id")]


def test_restart_deletes_the_target_rows_the_source_no_longer_has(
    case: Any, tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    src, dst, path = case
    # several chunks a table: rows in the first, the middle (on the driver) and the last
    # chunk's ranges (a Spark job a chunk: fewer there)
    monkeypatch.setattr(copy, "CHUNK_ROWS", 20 if path == "driver" else 30)
    src.execute(*CREATE[src.vendor])
    names = ["public.k", "public.g"] if src.vendor == "postgres" else ["k", "g"]
    data = {
        "channel": "clean",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [
            {"name": names[0], "ddl_policy": "apply"},
            # chunks by a column that is not the key and may be NULL
            {"name": names[1], "ddl_policy": "apply", "snapshot_partition": "grp"},
        ],
    }
    (tmp_path / "c.yaml").write_text(json.dumps(data))
    ch = Channel.from_file(tmp_path / "c.yaml")
    ch.install()
    src.execute("INSERT INTO g (id, grp, note) VALUES (61, NULL, 'null grp')")
    ch.snapshot(spark=spark)
    ch.run(once=True, spark=spark)
    assert rows(dst, "k", "id") == [(i,) for i in range(10, 70)]
    # the tables stop; while they are stopped the source deletes rows of every range: the
    # lowest and highest partition values (below and above the next copy's bounds), the
    # middle, and the NULL one
    src.execute(
        FILLED[src.vendor].format(t="k"),
        FILLED[src.vendor].format(t="g"),
        "DELETE FROM k WHERE id IN (10, 30, 31, 32, 33, 34, 69)",
        "DELETE FROM g WHERE id IN (1, 20, 21, 22, 23, 24, 60, 61)",
        "UPDATE g SET grp = NULL WHERE id = 40",  # a row whose partition value moves
        "INSERT INTO g (id, grp, note) VALUES (70, 5, 'below')",
    )
    with pytest.raises(TableStopped):
        ch.run(once=True, spark=spark)
    # and rows the source never had, which capture could not have seen go (written
    # straight into the target): below the first bound, above the last, NULL partition
    dst.execute(
        "INSERT INTO k (id, note) VALUES (1, 'stray'), (500, 'stray')",
        "INSERT INTO g (id, grp, note) VALUES (900, NULL, 's'), (901, -5, 's'), (902, 999, 's')",
    )
    # the first load above was copied by this process; the copy again by the path asked for
    monkeypatch.setattr(copy, "DRIVER_ROWS", 0 if path == "spark" else 20_000)
    ch.snapshot(names, restart=True, spark=spark)
    ch.run(once=True, spark=spark)
    for table, cols in (("k", "id, note, points"), ("g", "id, grp, note, points")):
        assert rows(dst, table, cols) == rows(src, table, cols), table
    assert rows(dst, "k", "id")[:2] == [(11,), (12,)]
    assert ch.verify(spark=spark).differences == 0
    # rounds go on from the hand-over
    src.execute("DELETE FROM k WHERE id = 11", "UPDATE g SET grp = 3 WHERE id = 2")
    ch.run(once=True, spark=spark)
    assert rows(dst, "k", "id, note, points") == rows(src, "k", "id, note, points")
    assert rows(dst, "g", "id, grp, note, points") == rows(src, "g", "id, grp, note, points")


@pytest.fixture
def pg_pair() -> Any:
    gens = [make_pg(), make_pg()]
    yield [next(g) for g in gens]
    for g in gens:
        next(g, None)


def test_a_parent_row_children_still_refer_to_fails_the_snapshot_naming_the_table(
    pg_pair: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = pg_pair
    parent = "CREATE TABLE parent (id integer PRIMARY KEY, note text)"
    child = "CREATE TABLE child (id integer PRIMARY KEY, pid integer REFERENCES parent (id))"
    src.execute(
        parent, child, "INSERT INTO parent VALUES (1, 'a')", "INSERT INTO child VALUES (1, 1)"
    )
    dst.execute(parent, child)
    data = {
        "channel": "fk",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": "public.parent"}, {"name": "public.child"}],
    }
    (tmp_path / "c.yaml").write_text(json.dumps(data))
    ch = Channel.from_file(tmp_path / "c.yaml")
    ch.install()
    ch.snapshot(spark=spark)
    # a parent and its child the source does not have: the parent's copy (parents first)
    # cannot delete the parent while the child still refers to it, and says so
    dst.execute("INSERT INTO parent VALUES (2, 'b')", "INSERT INTO child VALUES (2, 2)")
    with pytest.raises(SnapshotIncomplete) as failed:
        ch.snapshot(["public.parent", "public.child"], restart=True, spark=spark)
    why = str(failed.value)
    assert "failed: public.parent" in why and "foreign key" in why, why
    assert "the source no longer has" in why and "--truncate --restart" in why, why
    assert rows(dst, "parent", "id") == [(1,), (2,)]


def test_a_source_table_now_empty_leaves_its_target_empty(
    pg_db: Any, sqlite_db: Any, tmp_path: Path, spark: Any
) -> None:
    pg_db.execute("CREATE TABLE e (id integer PRIMARY KEY, note text)")
    data = {
        "channel": "empty",
        "application": "wh",
        "locations": {
            "src": {"url": pg_db.url, "capture": True},
            "cen": {"url": sqlite_db.url, "integrate": True},
        },
        "tables": [{"name": "public.e"}],
    }
    (tmp_path / "c.yaml").write_text(json.dumps(data))
    ch = Channel.from_file(tmp_path / "c.yaml")
    ch.install()  # recorded as loaded: it was empty
    # rows the source does not have: an empty source table is still one chunk, over every
    # partition value, whose transaction deletes them
    sqlite_db.execute(
        "CREATE TABLE e (id INTEGER PRIMARY KEY, note TEXT)",
        "INSERT INTO e (id, note) VALUES (-3, 'x'), (4, 'y'), (1000, 'z')",
    )
    ch.snapshot(["public.e"], restart=True, spark=spark)
    assert rows(sqlite_db, "e", "id") == []
    assert ch.verify(spark=spark).differences == 0
