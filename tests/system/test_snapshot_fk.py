"""``snapshot`` of related tables into a target with the same foreign keys while eight
writers change parents and children: every table of the sync group is read as of one
source state (PostgreSQL's exported snapshot, SQLite's one read transaction) and written
parents first, so the target never refuses a row whose parent it does not hold yet; the
group is handed over at one tick, and the first round brings it to the source's state."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from syncpoint.ops.channel import Channel
from tests.system import roundkit as rk
from tests.system import snapkit as sk
from tests.system.test_snapshot import make

pytestmark = pytest.mark.spark

# ids far from the writers' own (``roundkit.writer``), so their inserts do not collide
SEED = {
    "postgres": [
        "INSERT INTO parent SELECT 1000000000 + g, 'p' || g, g / 100.0, 's' || g, "
        "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second' "
        "FROM generate_series(1, {n}) g",
        "INSERT INTO child SELECT 2000000000 + g, 1000000000 + 1 + g % {n}, g % 50, 'c' || g, "
        "NULL FROM generate_series(1, {m}) g",
    ],
    "sqlite": [
        "WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < {n}) "
        "INSERT INTO parent SELECT 1000000000 + x, 'p' || x, x / 100.0, 's' || x, "
        "datetime('2024-01-01', '+' || x || ' seconds') FROM g",
        "WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < {m}) "
        "INSERT INTO child SELECT 2000000000 + x, 1000000000 + 1 + x % {n}, x % 50, 'c' || x, "
        "NULL FROM g",
    ],
}

PAIRS = [("postgres", "postgres"), ("postgres", "mariadb"), ("sqlite", "postgres")]


@pytest.fixture
def dbs(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    src_v, dst_v = request.param
    (tmp_path / "t").mkdir()
    gens = [make(src_v, tmp_path), make(dst_v, tmp_path / "t")]
    src, dst = next(gens[0]), next(gens[1])
    yield src, dst
    for g in gens:
        next(g, None)


@pytest.mark.parametrize("dbs", PAIRS, indirect=True, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_snapshot_into_target_with_foreign_keys_under_eight_writers(
    dbs: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = dbs
    rk.setup_source(src)
    src.execute(*(s.format(n=1000, m=2000) for s in SEED[src.vendor]))
    rk.setup_target(dst, with_fk=True, audit=False)
    if src.vendor == "sqlite":
        # SQLite's NUMERIC holds doubles (amount + 1 may give 3.1100000000000003), which a
        # numeric(12,2) refuses by design: the target column takes any number here
        dst.execute("ALTER TABLE parent ALTER COLUMN amount TYPE numeric")
    cfg = rk.write_config(tmp_path / "syncpoint.yaml", {"src": src}, dst, snapshot="required")
    ch = Channel.from_file(cfg)
    ch.install()
    progress: list[tuple[int, int]] = []
    procs = rk.run_writers(src.vendor, src.url, 8, seconds=900)
    try:
        time.sleep(2)  # the writers are at work before the first row is read
        report = ch.snapshot(
            spark=spark, on_progress=lambda s: progress.append((s.rows_copied, s.rows_estimated))
        )
    finally:
        sk.stop(procs)
    rows = {r["table"].split(".")[-1]: r for r in report["tables"]}
    assert rows["parent"]["rows_copied"] >= 1000 and rows["child"]["rows_copied"] > 0
    # the group was handed over at one tick, and no progress line shows more copied than
    # estimated
    assert rows["parent"]["t0"] == rows["child"]["t0"]
    assert progress and all(copied <= est for copied, est in progress), progress
    assert rk.orphans(dst) == 0
    ch.run(once=True, spark=spark)
    ok, detail = rk.same(src, dst)
    assert ok, detail
    assert rk.orphans(dst) == 0
