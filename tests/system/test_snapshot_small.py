"""A snapshot of small tables copies them without Spark (the drivers read and stage the
rows, the rounds' upsert applies them), and ``status`` afterwards shows the rows copied
for tables with a one-column key, whichever path copied them (the direct path's rows
written straight into the target table count too)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.ops.channel import Channel
from syncpoint.ops.snapshot import copy
from tests.conftest import make_pg
from tests.system import roundkit as rk

pytestmark = pytest.mark.spark

TABLES = ("small_a", "small_b")


@pytest.fixture
def target() -> Any:
    gen = make_pg()
    yield next(gen)
    next(gen, None)


def _config(src: Any, dst: Any, tmp: Path) -> Path:
    data = {
        "channel": "small",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": f"public.{t}"} for t in TABLES],
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    path = tmp / "syncpoint.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_small_tables_on_the_driver_and_status_counts_one_column_keys(
    pg_db: Any,
    target: Any,
    tmp_path: Path,
    spark: Any,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for t in TABLES:
        pg_db.execute(
            f"CREATE TABLE {t} (id bigint PRIMARY KEY, name text, price numeric(10,2))",
            f"INSERT INTO {t} SELECT g, 'n' || g, g / 7.0 FROM generate_series(1, 200) g",
        )
    path = _config(pg_db, target, tmp_path)
    ch = Channel.from_file(path)
    ch.install()
    with caplog.at_level(logging.INFO, logger="syncpoint.snapshot"):
        ch.snapshot(tables=["public.small_a"], spark=spark)
    assert "copied by the driver (no Spark job)" in caplog.text
    # the other on Spark's direct path, straight into the empty target table
    monkeypatch.setattr(copy, "DRIVER_ROWS", 0)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="syncpoint.snapshot"):
        ch.snapshot(tables=["public.small_b"], spark=spark)
    assert "direct path" in caplog.text and "200 written to the target table" in caplog.text
    for t in TABLES:
        q = f"SELECT id, name, price FROM {t} ORDER BY id"
        assert target.query(q) == pg_db.query(q)
    done = rk.syncpoint(path, "status", "--json")
    assert done.returncode == 0, done.stderr
    snaps = {r["table"]: r for r in json.loads(done.stdout)["snapshots"]["cen"]}
    assert {t: (r["state"], r["rows_copied"]) for t, r in snaps.items()} == {
        "public.small_a": ("done", 200),
        "public.small_b": ("done", 200),
    }


MANY = ("many_0", "many_1", "many_2", "many_3")


def test_many_small_groups_in_one_run_one_failing_then_rounds_equal(
    pg_db: Any, target: Any, tmp_path: Path, spark: Any
) -> None:
    """One run copies several groups (each table its own) over the run's shared
    connections and ticks: a table its target refuses fails alone, the next groups still
    load; a second run loads it; rounds from the hand-over points bring every table equal
    to its source after more writes."""
    from syncpoint.ops.snapshot import SnapshotIncomplete

    for t in MANY:
        pg_db.execute(
            f"CREATE TABLE {t} (id bigint PRIMARY KEY, name text, price numeric(10,2))",
            f"INSERT INTO {t} SELECT g, 'n' || g, g / 7.0 FROM generate_series(1, 300) g",
        )
    # the target of many_1 refuses every source row (until the check goes)
    target.execute(
        "CREATE TABLE many_1 (id bigint PRIMARY KEY, name text, "
        "price numeric(10,2) CONSTRAINT no_rows CHECK (price < 0))"
    )
    data = yaml.safe_load(_config(pg_db, target, tmp_path).read_text(encoding="utf-8"))
    data["tables"] = [{"name": f"public.{t}"} for t in MANY]
    path = tmp_path / "syncpoint.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    ch = Channel.from_file(path)
    ch.install()
    with pytest.raises(SnapshotIncomplete) as failed:
        ch.snapshot(spark=spark)
    states = {r["table"]: r["state"] for r in failed.value.report["tables"]}
    assert states == {
        "public.many_0": "done",
        "public.many_1": "failed",
        "public.many_2": "done",
        "public.many_3": "done",
    }
    q = "SELECT id, name, price FROM {} ORDER BY id"
    for t in ("many_0", "many_2", "many_3"):
        assert target.query(q.format(t)) == pg_db.query(q.format(t))
    target.execute("ALTER TABLE many_1 DROP CONSTRAINT no_rows")
    report = ch.snapshot(spark=spark)
    loaded = {r["table"]: r.get("skipped", False) for r in report["tables"]}
    assert loaded == {
        "public.many_0": True,
        "public.many_1": False,
        "public.many_2": True,
        "public.many_3": True,
    }
    for t in MANY:
        pg_db.execute(
            f"UPDATE {t} SET name = 'changed' WHERE id % 10 = 0",
            f"DELETE FROM {t} WHERE id % 25 = 0",
            f"INSERT INTO {t} VALUES (1000, 'new', 1.5)",
        )
    done = rk.syncpoint(path, "run", "--once")
    assert done.returncode == 0, done.stdout + done.stderr
    for t in MANY:
        assert target.query(q.format(t)) == pg_db.query(q.format(t)), t
