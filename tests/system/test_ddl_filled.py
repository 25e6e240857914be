"""A column added with values in the rows already there (a default, NOT NULL): the source
gives every existing row the value without a change record, so a target that added the
column empty would differ from the source while every command succeeds. The table stops
instead, under every ``ddl_policy`` but ``ignore``, saying why and how to go on; the way
back (``snapshot --tables T --restart``) leaves the target equal to the source. A column
added empty is followed as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from syncpoint.errors import TableStopped
from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg, make_sqlite

pytestmark = pytest.mark.spark

CREATE = {
    "postgres": "CREATE TABLE t (id integer PRIMARY KEY, note text)",
    "mariadb": "CREATE TABLE t (id int PRIMARY KEY, note varchar(20)) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE t (id INTEGER PRIMARY KEY, note TEXT)",
}
# a nullable column with a default: additive by its shape alone, so it was applied empty
# under every policy; and a NOT NULL one, which ddl_policy: apply added as nullable
FILLED = {
    "postgres": "ALTER TABLE t ADD COLUMN points integer DEFAULT 7",
    "mariadb": "ALTER TABLE t ADD COLUMN points int NOT NULL DEFAULT 7",
    "sqlite": "ALTER TABLE t ADD COLUMN points INTEGER DEFAULT 7",
}


@pytest.fixture(params=["postgres", "mariadb", "sqlite"])
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    mk = {"postgres": make_pg, "mariadb": make_mariadb}
    v = request.param
    gens = [mk[v]() if v in mk else make_sqlite(tmp_path), make_pg()]
    dbs = [next(g) for g in gens]
    yield dbs
    for g in gens:
        next(g, None)


def rows(db: Any) -> list[tuple[Any, ...]]:
    cols = [r[0] for r in db.query(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 't' "
        "AND table_schema = 'public' ORDER BY ordinal_position"
    )] if db.vendor == "postgres" else None  # fmt: skip
    assert cols is not None
    return [tuple(r) for r in db.query(f"SELECT {', '.join(cols)} FROM t ORDER BY id")]


def source_rows(db: Any) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in db.query("SELECT id, note, extra, points FROM t ORDER BY id")]


def test_a_column_added_with_values_stops_the_table_and_snapshot_restart_brings_it_back(
    pair: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = pair
    src.execute(CREATE[src.vendor])
    name = "public.t" if src.vendor == "postgres" else "t"
    data = {
        "channel": "filled",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": name, "snapshot": "none", "ddl_policy": "apply"}],
    }
    (tmp_path / "f.yaml").write_text(json.dumps(data))
    ch = Channel.from_file(tmp_path / "f.yaml")
    ch.install()
    src.execute("INSERT INTO t (id, note) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    ch.run(once=True, spark=spark)
    # a column added empty is followed as before
    src.execute("ALTER TABLE t ADD COLUMN extra integer", "UPDATE t SET extra = 5 WHERE id = 1")
    ch.run(once=True, spark=spark)
    assert rows(dst) == [(1, "a", 5), (2, "b", None), (3, "c", None)]
    src.execute(FILLED[src.vendor], "INSERT INTO t (id, note, points) VALUES (4, 'd', 9)")
    with pytest.raises(TableStopped) as stopped:
        ch.run(once=True, spark=spark)
    why = str(stopped.value)
    assert "ADD COLUMN points" in why and "values in the rows already there" in why
    assert f"syncpoint snapshot --tables {name} --restart" in why
    # nothing of or after the change reached the target
    assert rows(dst) == [(1, "a", 5), (2, "b", None), (3, "c", None)]
    with pytest.raises(TableStopped):  # and it stays stopped, round after round
        ch.run(once=True, spark=spark)
    ch.snapshot([name], restart=True, spark=spark)
    ch.run(once=True, spark=spark)
    want = [(1, "a", 5, 7), (2, "b", None, 7), (3, "c", None, 7), (4, "d", None, 9)]
    assert source_rows(src) == want
    assert rows(dst) == want
    # and rows keep flowing after the way back
    src.execute("UPDATE t SET points = 8 WHERE id = 2", "DELETE FROM t WHERE id = 3")
    ch.run(once=True, spark=spark)
    assert rows(dst) == [(1, "a", 5, 7), (2, "b", None, 8), (4, "d", None, 9)]


@pytest.fixture(params=["postgres", "mariadb"])
def enum_pair(request: pytest.FixtureRequest) -> Any:
    gens = [make_pg(), make_pg() if request.param == "postgres" else make_mariadb()]
    dbs = [next(g) for g in gens]
    yield dbs
    for g in gens:
        next(g, None)


def enum_rows(db: Any) -> list[tuple[Any, ...]]:
    if db.vendor == "postgres":
        return db.query("SELECT id, m::text, ms::text FROM t ORDER BY id")
    return db.query("SELECT id, m, ms FROM t ORDER BY id")


def test_an_enum_label_renamed_stops_the_table_and_snapshot_restart_brings_it_back(
    enum_pair: Any, tmp_path: Path, spark: Any
) -> None:
    """``ALTER TYPE ... RENAME VALUE`` changes every row holding the label, with no row
    record: into PostgreSQL the target's enum type still had the old label, and MariaDB's
    text kept the old value, silently. A label added is followed."""
    src, dst = enum_pair
    src.execute(
        "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
        "CREATE TABLE t (id integer PRIMARY KEY, m mood, ms mood[])",
    )
    data = {
        "channel": "moods",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": "public.t", "snapshot": "none", "ddl_policy": "apply"}],
    }
    (tmp_path / "e.yaml").write_text(json.dumps(data))
    ch = Channel.from_file(tmp_path / "e.yaml")
    ch.install()
    src.execute("INSERT INTO t VALUES (1, 'sad', '{sad,ok}'), (2, 'ok', NULL)")
    ch.run(once=True, spark=spark)
    src.execute("ALTER TYPE mood ADD VALUE 'meh'")
    src.execute("INSERT INTO t VALUES (3, 'meh', '{meh}')")
    ch.run(once=True, spark=spark)
    assert enum_rows(dst) == enum_rows(src)
    src.execute(
        "ALTER TYPE mood RENAME VALUE 'sad' TO 'blue'", "INSERT INTO t VALUES (4, 'blue', NULL)"
    )
    with pytest.raises(TableStopped) as stopped:
        ch.run(once=True, spark=spark)
    assert "enum labels of m renamed ('sad' gone)" in str(stopped.value)
    assert "syncpoint snapshot --tables public.t --restart" in str(stopped.value)
    ch.snapshot(["public.t"], restart=True, spark=spark)
    ch.run(once=True, spark=spark)
    want = [(1, "blue", "{blue,ok}"), (2, "ok", None), (3, "meh", "{meh}"), (4, "blue", None)]
    assert enum_rows(src) == want
    assert enum_rows(dst) == want
