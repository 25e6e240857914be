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
