"""``verify`` compares values the way the target column stores them: blank-padded
``char(n)`` text (PostgreSQL pads it, MariaDB drops the trailing blanks) is equal in both
directions, a planted difference in such a column is found and repaired for good, and a
repair the target cannot keep (a value its column type changes) is never counted as
repaired: it is reported with the reason. A passing ``verify`` prints nothing on stderr."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg
from tests.system import roundkit as rk

pytestmark = pytest.mark.spark

DDL = {
    "postgres": "CREATE TABLE codes (id bigint PRIMARY KEY, code char(20), note varchar(40))",
    "mariadb": "CREATE TABLE codes (id bigint PRIMARY KEY, code char(20), note varchar(40)) "
    "ENGINE=InnoDB",
}
ROWS = "INSERT INTO codes VALUES (1, 'abc', 'one'), (2, 'x y', 'two '), (3, NULL, NULL)"
TABLE = {"postgres": "public.codes", "mariadb": "codes"}


@pytest.fixture
def pair(request: pytest.FixtureRequest) -> Any:
    make = {"postgres": make_pg, "mariadb": make_mariadb}
    gens = [make[v]() for v in request.param]
    yield [next(g) for g in gens]
    for g in gens:
        next(g, None)


def channel(src: Any, dst: Any, tmp: Path, snapshot: str = "required") -> Path:
    data = {
        "channel": "pad",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": TABLE[src.vendor], "snapshot": snapshot}],
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    path = tmp / "syncpoint.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


DIRECTIONS = [("postgres", "mariadb"), ("mariadb", "postgres")]


@pytest.mark.parametrize("pair", DIRECTIONS, indirect=True, ids=["pg-maria", "maria-pg"])
def test_char_columns_compare_as_the_target_stores_them(
    pair: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = pair
    src.execute(DDL[src.vendor], ROWS)
    path = channel(src, dst, tmp_path)
    ch = Channel.from_file(path)
    ch.install()
    ch.snapshot(spark=spark)
    # the target's char(20) holds 'abc' as its vendor does (padded, or blanks dropped)
    done = rk.syncpoint(path, "verify", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["differences"] == 0
    assert done.stderr == ""  # syncpoint's own lines only, and a passing verify has none
    if src.vendor == "postgres":  # Spark's path, on the shared session: no pyspark warning
        from syncpoint.ops.verify import sides

        with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            mp.setattr(sides, "DRIVER_ROWS", 0)
            assert ch.verify(spark=spark).differences == 0
        assert [str(w.message) for w in seen] == []
    dst.execute("UPDATE codes SET code = 'abd' WHERE id = 1")
    report = ch.verify(spark=spark, repair=True)
    found = [(d["key"], d["kind"], d["columns"]) for d in report.tables[0]["differences"]]
    assert found == [(["1"], "different", ["code"])]
    assert report.repaired == 1 and report.tables[0]["not_repaired"] == []
    assert ch.verify(spark=spark).differences == 0


def test_a_repair_the_target_cannot_keep_is_not_counted(pg_db: Any, tmp_path: Path) -> None:
    from tests.conftest import make_pg as mk

    gen = mk()
    dst = next(gen)
    try:
        pg_db.execute(
            "CREATE TABLE codes (id bigint PRIMARY KEY, code char(20), note varchar(40))",
            "INSERT INTO codes VALUES (1, 'abc', 'one'), (2, 'x', 'longer')",
        )
        # the target's own table keeps only 3 characters of a note (the user made it so)
        dst.execute(
            "CREATE TABLE codes (id bigint PRIMARY KEY, code char(20), note varchar(40))",
            "CREATE FUNCTION cut() RETURNS trigger LANGUAGE plpgsql AS "
            "$$BEGIN NEW.note := left(NEW.note, 3); RETURN NEW; END$$",
            "CREATE TRIGGER cut BEFORE INSERT OR UPDATE ON codes "
            "FOR EACH ROW EXECUTE FUNCTION cut()",
            "INSERT INTO codes VALUES (1, 'abc', 'one'), (2, 'x', 'two')",
        )
        path = channel(pg_db, dst, tmp_path, snapshot="none")
        Channel.from_file(path).install()
        done = rk.syncpoint(path, "verify", "--repair")
        assert done.returncode == 1, done.stdout + done.stderr
        assert "repaired" not in done.stdout.replace("not repaired", "")
        assert "not repaired: key ['2']: still different in note after the repair" in done.stdout
        assert dst.query("SELECT note FROM codes WHERE id = 2") == [("lon",)]
    finally:
        next(gen, None)


def test_range_sums_in_the_database_find_each_planted_difference(
    pg_db: Any, tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from syncpoint.ops.verify import sides
    from tests.system import snapkit as sk
    from tests.system.test_verify import plant

    gen = make_pg()
    dst = next(gen)
    try:
        sk.seed(pg_db, 3000)
        path = sk.config(tmp_path / "syncpoint.yaml", {"src": pg_db}, dst)
        ch = Channel.from_file(path)
        ch.install()
        ch.snapshot(spark=spark)
        # a table above the driver's size: figures per range summed by PostgreSQL itself
        monkeypatch.setattr(sides, "DRIVER_ROWS", 500)
        assert ch.verify(spark=spark).differences == 0
        plant(dst)
        report = ch.verify(spark=spark, repair=True)
        found = {(tuple(d["key"]), d["kind"]) for d in report.tables[0]["differences"]}
        assert found == {
            (("10",), "different"),
            (("20",), "missing"),
            (("900000",), "extra"),
            (("30",), "missing"),
            (("800000",), "extra"),
        }
        assert report.tables[0]["ranges_differing"] < report.tables[0]["ranges"]
        assert report.repaired == 5
        assert ch.verify(spark=spark).differences == 0
    finally:
        next(gen, None)
