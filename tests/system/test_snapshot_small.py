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
