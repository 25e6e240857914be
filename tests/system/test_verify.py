"""``verify`` finds every planted difference (a changed value, a missing row, an extra row,
a changed key) by key and kind, reports nothing on an equal pair while writers are busy,
and ``--repair`` makes the target equal again; exit codes and ``--json`` from the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from syncpoint.errors import TableStopped
from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system import roundkit as rk
from tests.system import snapkit as sk

pytestmark = pytest.mark.spark


def make(vendor: str, tmp: Path) -> Any:
    return {"postgres": make_pg, "mariadb": make_mariadb}.get(vendor, lambda: make_sqlite(tmp))()


@pytest.fixture
def dbs(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    src_v, dst_v = request.param
    (tmp_path / "t").mkdir()
    gens = [make(src_v, tmp_path), make(dst_v, tmp_path / "t")]
    src, dst = next(gens[0]), next(gens[1])
    yield src, dst
    for g in gens:
        next(g, None)


def loaded(src: Any, dst: Any, tmp: Path, spark: Any, n: int) -> tuple[Channel, Path]:
    sk.seed(src, n)
    path = sk.config(tmp / "syncpoint.yaml", {"src": src}, dst)
    ch = Channel.from_file(path)
    ch.install()
    ch.snapshot(spark=spark)
    ch.run(once=True, spark=spark)
    return ch, path


def plant(dst: Any) -> None:
    dst.execute(
        "UPDATE items SET amount = 99.99 WHERE id = 10",  # a changed value
        "DELETE FROM items WHERE id = 20",  # a missing row
        "INSERT INTO items (id, name, amount, ver) VALUES (900000, 'x', 1, 'x')",  # extra
        "UPDATE items SET id = 800000 WHERE id = 30",  # a changed key
    )


PAIRS = [("postgres", "postgres"), ("mariadb", "sqlite")]


@pytest.mark.slow
@pytest.mark.parametrize("dbs", PAIRS, indirect=True, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_verify_finds_each_planted_difference_and_repairs(
    dbs: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = dbs
    ch, path = loaded(src, dst, tmp_path, spark, 1000)
    plant(dst)
    report = ch.verify(spark=spark)
    found = {
        (tuple(d["key"]), d["kind"], tuple(d["columns"])) for d in report.tables[0]["differences"]
    }
    assert found == {
        (("10",), "different", ("amount",)),
        (("20",), "missing", ()),
        (("900000",), "extra", ()),
        (("30",), "missing", ()),
        (("800000",), "extra", ()),
    }
    assert report.tables[0]["ranges_differing"] < report.tables[0]["ranges"]
    fixed = ch.verify(spark=spark, repair=True)
    assert fixed.repaired == 5
    ok, detail = sk.same(src, dst)
    assert ok, detail
    r = rk.syncpoint(path, "verify", "--json")  # the CLI: equal now, exit 0
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["differences"] == 0


def test_verify_reports_nothing_on_an_equal_pair_while_writers_are_busy(
    pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    (tmp_path / "t").mkdir()
    gen = make_sqlite(tmp_path / "t")
    dst = next(gen)
    try:
        ch, _ = loaded(pg_db, dst, tmp_path, spark, 3000)
        procs = sk.start_writers("postgres", pg_db.url, 4, 3000, seconds=10)
        try:
            report = ch.verify(spark=spark)
        finally:
            sk.join(procs)
        assert report.differences == 0, report.to_dict()
        ch.run(once=True, spark=spark)
        ok, detail = sk.same(pg_db, dst)
        assert ok, detail
    finally:
        next(gen, None)


def test_verify_does_not_take_a_stopped_tables_changes_for_changes_on_their_way(
    pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    """A table whose rounds stopped (a DDL event under ``ddl_policy: stop``) keeps its
    position, so every later source change is after it: none of them is in flight, and
    ``verify`` reports them as differences with the stop's reason (exit 1), never equal."""
    (tmp_path / "t").mkdir()
    gen = make_pg()
    dst = next(gen)
    try:
        ch, path = loaded(pg_db, dst, tmp_path, spark, 200)
        pg_db.execute(
            "ALTER TABLE items DROP COLUMN updated_at",
            "UPDATE items SET amount = amount + 1 WHERE id <= 3",
        )
        with pytest.raises(TableStopped, match="DROP COLUMN"):
            ch.run(once=True, spark=spark)
        report = ch.verify(spark=spark)
        table = report.tables[0]
        assert {d["kind"] for d in table["differences"]} == {"different"}
        assert sorted(d["key"][0] for d in table["differences"]) == ["1", "2", "3"]
        assert table["stopped"] and table["stopped"][0]["location"] == "src"
        r = rk.syncpoint(path, "verify")
        assert r.returncode == 1, r.stdout + r.stderr
        assert "rounds from src are stopped" in r.stdout
    finally:
        next(gen, None)
