"""``snapshot`` end to end: existing rows loaded while writers keep changing the table,
then rounds from the hand-over; the target equals the source, every key once. ``run``
refuses a table not loaded yet; bad input is refused with exit 2 and nothing copied."""

from __future__ import annotations

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
    gens = [make(src_v, tmp_path), make(dst_v, tmp_path / "t")]
    (tmp_path / "t").mkdir(exist_ok=True)
    src, dst = next(gens[0]), next(gens[1])
    yield src, dst
    for g in gens:
        next(g, None)


def load_under_writers(src: Any, dst: Any, tmp: Path, spark: Any, n: int, writers: int) -> dict:
    sk.seed(src, n)
    ch = Channel.from_file(sk.config(tmp / "syncpoint.yaml", {"src": src}, dst))
    ch.install()
    with pytest.raises(TableStopped, match="never loaded"):
        ch.run(once=True, spark=spark)
    # the writers keep going for the whole copy, and are stopped (mid-transaction, too) after it
    procs = sk.start_writers(src.vendor, src.url, writers, n, seconds=900)
    try:
        report = ch.snapshot(spark=spark)
    finally:
        sk.stop(procs)
    ch.run(once=True, spark=spark)
    ok, detail = sk.same(src, dst)
    assert ok, detail
    assert sk.keys_unique(dst)
    return report


WRITER_PAIRS = [("postgres", "postgres"), ("mariadb", "sqlite"), ("sqlite", "mariadb")]


@pytest.mark.parametrize(
    "dbs", WRITER_PAIRS, indirect=True, ids=[f"{a}-{b}" for a, b in WRITER_PAIRS]
)
def test_snapshot_under_writers_then_rounds_equal_source(
    dbs: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = dbs
    report = load_under_writers(src, dst, tmp_path, spark, n=20_000, writers=4)
    (row,) = report["tables"]
    assert row["state"] == "done" and row["rows_copied"] > 15_000


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_snapshot_of_a_million_rows_under_eight_writers(
    pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    gen = make_pg()
    dst = next(gen)
    try:
        report = load_under_writers(pg_db, dst, tmp_path, spark, n=1_000_000, writers=8)
        assert report["tables"][0]["rows_copied"] >= 900_000
    finally:
        next(gen, None)


def test_two_sources_into_one_target_with_truncate(
    maria_db: Any, sqlite_db: Any, pg_db: Any, tmp_path: Path, spark: Any
) -> None:
    sk.seed(maria_db, 300)
    sk.seed(sqlite_db, 200, offset=100_000)
    pg_db.execute(sk.DDL["postgres"], "INSERT INTO items (id, ver) VALUES (1, 'junk'), (7, 'old')")
    ch = Channel.from_file(sk.config(tmp_path / "sp.yaml", {"a": maria_db, "b": sqlite_db}, pg_db))
    ch.install()
    report = ch.snapshot(truncate=True, spark=spark)
    assert sorted((r["location"], r["rows_copied"]) for r in report["tables"]) == [
        ("a", 300),
        ("b", 200),
    ]
    maria_db.execute(
        "UPDATE items SET ver = 'after' WHERE id = 5", "DELETE FROM items WHERE id = 6"
    )
    sqlite_db.execute("INSERT INTO items (id, ver) VALUES (999999, 'new')")
    ch.run(once=True, spark=spark)
    union = sorted(rk.rows(maria_db, "items", sk.COLS) + rk.rows(sqlite_db, "items", sk.COLS))
    assert rk.rows(pg_db, "items", sk.COLS) == union
    assert ch.verify(spark=spark).differences == 0
