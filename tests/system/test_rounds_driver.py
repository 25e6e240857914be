"""Small rounds netted by the driver (``spark.driver_round_max``) and the same rounds through
Spark give identical targets, for every vendor pair: typed values, hostile table and column
names, updates, a key move and deletes, over two rounds. At a PostgreSQL target, Spark's
staging is written both ways too: by each partition's COPY and by JDBC batches; PostgreSQL
to PostgreSQL, the direct path (records copied database to database, netted at the
target) besides the Spark job's JDBC read (``SYNCPOINT_ROUND_PATH=spark``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system import test_rounds_names as names
from tests.system import test_rounds_values as vals

pytestmark = pytest.mark.spark
PAIRS = vals.PAIRS


# engine -> (driver_round_max, stage_copy, what the round reports as engine and staging)
ENGINES = {
    "driver": (1_000_000, "auto", "driver"),
    "direct": (0, "auto", "spark"),
    "spark": (0, "always", "spark"),
    "jdbc": (0, "never", "spark"),
}


def engines(src: str, dst: str) -> list[str]:
    if dst == "mariadb" and src in ("postgres", "mariadb"):
        # PostgreSQL's COPY, or MariaDB's unbuffered read, netted into LOAD DATA
        return ["driver", "direct", "spark"]
    if dst != "postgres":
        return ["driver", "spark"]
    # the direct path reads a MariaDB source row by row into PostgreSQL's COPY
    if src in ("postgres", "mariadb"):
        return ["driver", "direct", "spark", "jdbc"]
    return ["driver", "spark", "jdbc"]


@pytest.fixture
def trio(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A source and a target of the pair's vendors for each engine."""
    mk = {"postgres": make_pg, "mariadb": make_mariadb}
    src, dst = request.param
    vs = [src] + [dst] * len(engines(src, dst))
    gens = [mk[v]() if v in mk else make_sqlite(tmp_path) for v in vs]
    dbs = [next(g) for g in gens]
    yield dbs
    for g in gens:
        next(g, None)


def channel(src: Any, dst: Any, tmp: Path, engine: str) -> Channel:
    qname = names.q("postgres", names.TABLE)
    data = {
        "channel": engine,
        "application": engine,
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [
            {"name": n if src.vendor != "postgres" else f"public.{n}", "snapshot": "none"}
            for n in ("vals", qname)
        ],
        # every round by the driver, or every round by Spark
        "spark": {"driver_round_max": ENGINES[engine][0], "stage_copy": ENGINES[engine][1]},
    }
    (tmp / f"{engine}.yaml").write_text(json.dumps(data))
    return Channel.from_file(tmp / f"{engine}.yaml")


def table(db: Any, name: str) -> list[tuple[Any, ...]]:
    return list(db.query(f"SELECT * FROM {names.q(db.vendor, name)} ORDER BY 1"))


@pytest.mark.parametrize("trio", PAIRS, indirect=True, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_driver_and_spark_rounds_give_identical_targets(
    trio: Any, tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    src, *targets = trio
    v = src.vendor
    src.execute(vals.TABLE[v])
    names.create(src)
    pairs = zip(engines(v, targets[0].vendor), targets, strict=True)
    channels = {e: (channel(src, t, tmp_path, e), t) for e, t in pairs}
    bulk = targets[0].vendor == "postgres"
    staging = {"driver": "bulk" if bulk else "batched", "spark": "bulk" if bulk else "batched"}
    staging["jdbc"], staging["direct"] = "batched", "bulk"
    for ch, _ in channels.values():
        ch.install()
    hostile = names.q(v, names.TABLE)
    cols = ", ".join(names.q(v, c) for c in names.COLS)
    key = names.q(v, "select")
    ins = f"INSERT INTO {hostile} ({cols}) VALUES (%s, %s, %s, %s, %s, %s)"
    batches = [
        [
            (ins, (1, "it's", 'say "hi"', "a.b", "Mixed", "`tick`")),
            (ins, (2, "two", None, ";", "--", "DROP TABLE canary")),
            (ins, (3, "three", "é ✓ 😀", "", " ", "\\")),
        ],
        [
            (f"UPDATE {hostile} SET {names.q(v, 'x.y')} = %s WHERE {key} = %s", ("z", 1)),
            (f"UPDATE {hostile} SET {key} = %s WHERE {key} = %s", (30, 3)),
            (f"DELETE FROM {hostile} WHERE {key} = %s", (2,)),
            ("UPDATE vals SET i8 = i8 - 1 WHERE id = %s", (1,)),
            ("UPDATE vals SET id = %s WHERE id = %s", (20, 2)),
            ("DELETE FROM vals WHERE id = %s", (3,)),
        ],
    ]
    vals.insert(src)
    for batch in batches:
        names.write(src, batch)
        for engine, (ch, _) in channels.items():
            # PostgreSQL to PostgreSQL: "spark" and "jdbc" leave the direct path aside
            monkeypatch.setenv("SYNCPOINT_ROUND_PATH", "" if engine == "direct" else "spark")
            report = ch.run(once=True, spark=spark)
            assert {r["engine"] for r in report.rounds} == {ENGINES[engine][2]}
            assert {r["staging"] for r in report.rounds} == {staging[engine]}
            assert {r["direct"] for r in report.rounds} == {engine == "direct"}
            assert report.changes > 0
    _, by_driver = channels["driver"]
    for name in ("vals", names.TABLE):
        for engine, (_, other) in channels.items():
            assert table(other, name) == table(by_driver, name), engine
    assert [r[0] for r in table(by_driver, names.TABLE)] == [1, 30]
    assert [r[0] for r in table(by_driver, "vals")] == [1, 20]
