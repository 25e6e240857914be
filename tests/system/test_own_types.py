"""Types of one's own between PostgreSQL databases: a target table created by syncpoint
gets the source's enums, domains and composite types first; labels an enum gains at the
source (``ALTER TYPE ... ADD VALUE``) reach the target under ``ddl_policy: apply`` while
writers use them, and stop the table with that reason otherwise; ``verify`` names a
target table that does not exist and exits 1."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.errors import TableStopped
from syncpoint.ops.channel import Channel
from tests.conftest import make_pg
from tests.system import roundkit as rk

pytestmark = pytest.mark.spark

SCHEMA = [
    "CREATE TYPE mpaa_rating AS ENUM ('G', 'PG', 'R')",
    "CREATE DOMAIN year AS integer CONSTRAINT year_check CHECK (VALUE >= 1901 AND VALUE <= 2155)",
    "CREATE TYPE place AS (street text, zip integer)",
    "CREATE DOMAIN zip_places AS place[]",
    "CREATE TABLE film (id bigint PRIMARY KEY, title text NOT NULL, rating mpaa_rating, "
    "ratings mpaa_rating[], release year, at place, more zip_places)",
    "INSERT INTO film SELECT g, 'film ' || g, (enum_range(NULL::mpaa_rating))[1 + g % 3], "
    "ARRAY['G', 'R']::mpaa_rating[], 1990 + g % 30, ROW('street ' || g, g)::place, "
    "ARRAY[ROW('a', 1)::place] FROM generate_series(1, 50) g",
]
COLS = "id, title, rating::text, ratings::text, release, at::text, more::text"


@pytest.fixture
def pair() -> Any:
    gens = [make_pg(), make_pg()]
    src, dst = next(gens[0]), next(gens[1])
    yield src, dst
    for g in gens:
        next(g, None)


def _config(path: Path, src: Any, dst: Any, policy: str) -> Path:
    data = {
        "channel": "films",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": "public.film", "ddl_policy": policy}],
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _writer(url: str, stop: threading.Event, seed: int) -> None:
    import psycopg

    rng = random.Random(seed)
    with psycopg.connect(url, autocommit=True) as conn:
        k = 1000 + seed * 100_000
        while not stop.is_set():
            k += 1
            labels = conn.execute("SELECT enum_range(NULL::mpaa_rating)::text[]").fetchone()[0]
            conn.execute(
                "INSERT INTO film (id, title, rating, release) VALUES (%s, %s, %s, %s)",
                (k, f"new {k}", rng.choice(labels), 2000),
            )
            conn.execute(
                "UPDATE film SET rating = %s WHERE id = %s",
                (rng.choice(labels), rng.randint(1, 50)),
            )
            time.sleep(0.01)


def test_types_created_and_enum_labels_carried_under_writers(
    pair: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = pair
    src.execute(*SCHEMA)
    ch = Channel.from_file(_config(tmp_path / "syncpoint.yaml", src, dst, "apply"))
    ch.install()
    ch.snapshot(spark=spark)
    assert rk.rows(dst, "film", COLS) == rk.rows(src, "film", COLS)
    assert dst.query("SELECT enum_range(NULL::mpaa_rating)::text")[0][0] == "{G,PG,R}"
    (check,) = dst.query(
        "SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN pg_type t "
        "ON t.oid = c.contypid WHERE t.typname = 'year'"
    )
    assert "1901" in check[0]
    stop = threading.Event()
    threads = [threading.Thread(target=_writer, args=(src.url, stop, i)) for i in range(2)]
    for t in threads:
        t.start()
    try:
        time.sleep(0.5)
        ch.run(once=True, spark=spark)
        src.execute(
            "ALTER TYPE mpaa_rating ADD VALUE 'NC-17'",
            "ALTER TYPE mpaa_rating ADD VALUE 'NR' BEFORE 'G'",
        )
        time.sleep(1)
        ch.run(once=True, spark=spark)
    finally:
        stop.set()
        for t in threads:
            t.join()
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT enum_range(NULL::mpaa_rating)::text")[0][0] == "{NR,G,PG,R,NC-17}"
    assert rk.rows(dst, "film", COLS) == rk.rows(src, "film", COLS)
    assert dst.query("SELECT count(*) FROM film WHERE rating IN ('NR', 'NC-17')")[0][0] > 0


def test_enum_label_added_stops_the_table_under_policy_stop(
    pair: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = pair
    src.execute(*SCHEMA)
    cfg = _config(tmp_path / "syncpoint.yaml", src, dst, "stop")
    ch = Channel.from_file(cfg)
    ch.install()
    # verify before the target table exists: named, exit 1, no traceback
    r = rk.syncpoint(cfg, "verify")
    assert r.returncode == 1, r.stderr
    assert "film" in r.stdout + r.stderr and "do not exist" in r.stderr
    assert "Traceback" not in r.stderr
    ch.snapshot(spark=spark)
    src.execute(
        "ALTER TYPE mpaa_rating ADD VALUE 'NR'",
        "INSERT INTO film (id, title, rating) VALUES (9001, 'unrated', 'NR')",
    )
    with pytest.raises(TableStopped, match="mpaa_rating.*'NR'"):
        ch.run(once=True, spark=spark)
