"""``capture: log`` at a PostgreSQL source as a user without superuser (no DDL event
triggers; a private server with wal_level = logical), while writers run: a column of a
domain type outside pg_catalog (Pagila's ``public.year``) is no schema change when its rows
are decoded; a partition made after install carries its rows, including rows written
straight into it; a partition emptied by TRUNCATE before any tick saw it (pgoutput leaves a
partition's TRUNCATE out when it publishes through the root), or detached holding rows,
stops its table with the reason in ``status --json``, rather than leave the rows at the
target. So does a partition dropped holding rows (seen by the next tick without event
triggers, by them as it happens with them); an empty one dropped goes on."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.errors import TableStopped
from syncpoint.ops.channel import Channel
from tests.conftest import make_sqlite
from tests.system import roundkit as rk
from tests.system.test_partitions_follow import Writers, _same


def test_log_capture_without_superuser_follows_partitions_and_domains(
    log_db: Any, tmp_path: Path
) -> None:
    role = f"sp_repl_{uuid.uuid4().hex[:8]}"
    log_db.execute(
        f"CREATE ROLE {role} LOGIN REPLICATION",
        f"GRANT CREATE ON DATABASE {log_db.name} TO {role}",
        f"GRANT ALL ON SCHEMA public TO {role}",
    )
    src = type(log_db)(log_db.vendor, log_db.url.replace("postgres@", f"{role}@", 1), log_db.name)
    dst = next(make_sqlite(tmp_path))
    src.execute(
        # as Pagila declares it
        "CREATE DOMAIN public.year AS integer CONSTRAINT year_check "
        "CHECK (VALUE >= 1901 AND VALUE <= 2155)",
        "CREATE TABLE film (film_id integer PRIMARY KEY, title text, release_year public.year)",
        "INSERT INTO film VALUES (1, 'ACADEMY DINOSAUR', 2006), (2, 'ACE GOLDFINGER', 2006)",
        "CREATE TABLE pay (id integer, k integer, v text, PRIMARY KEY (id, k)) "
        "PARTITION BY RANGE (k)",
        "CREATE TABLE pay_0 PARTITION OF pay FOR VALUES FROM (0) TO (100)",
        "INSERT INTO pay SELECT g, g, 'start' FROM generate_series(1, 20) g",
        "CREATE TABLE ev (id integer, k integer, PRIMARY KEY (id, k)) PARTITION BY RANGE (k)",
        "CREATE TABLE ev_0 PARTITION OF ev FOR VALUES FROM (0) TO (100)",
        "CREATE TABLE ev_1 PARTITION OF ev FOR VALUES FROM (100) TO (200)",
        "INSERT INTO ev VALUES (1, 1), (2, 150)",
        "CREATE TABLE lg (id integer, k integer, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
        "CREATE TABLE lg_1 PARTITION OF lg FOR VALUES IN (1)",
        "CREATE TABLE lg_2 PARTITION OF lg FOR VALUES IN (2)",
        "CREATE TABLE lg_3 PARTITION OF lg FOR VALUES IN (3)",
        "INSERT INTO lg VALUES (1, 1), (2, 2)",
        "CREATE TABLE od (id integer, k integer, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
        "CREATE TABLE od_1 PARTITION OF od FOR VALUES IN (1)",
        "INSERT INTO od VALUES (1, 1)",
    )
    path = tmp_path / "sp.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "channel": "logparts",
                "application": "wh",
                "locations": {
                    "src": {"url": src.url, "capture": "log"},
                    "dst": {"url": dst.url, "integrate": True},
                },
                "tables": [
                    {"name": "public.film"},
                    {"name": "public.pay"},
                    {"name": "public.ev"},
                    {"name": "public.lg"},
                    {"name": "public.od"},
                ],
                "sync_groups": {"a": ["pay"], "b": ["film"], "c": ["ev"], "d": ["lg"], "e": ["od"]},
            }
        )
    )
    ch = Channel.from_file(path)
    ch.install()
    ch.snapshot()
    writers = Writers(src.url)
    try:
        src.execute(
            "UPDATE film SET release_year = 2007 WHERE film_id = 1",
            "CREATE TABLE pay_1 PARTITION OF pay FOR VALUES FROM (100) TO (200)",
            "INSERT INTO pay_1 SELECT g, 100 + g, 'p1' FROM generate_series(1, 10) g",
        )
        writers.ranges.append(100)
        ch.run(once=True)
        src.execute("UPDATE pay_1 SET v = 'p1 again' WHERE id < 4")
        ch.run(once=True)
    finally:
        writers.finish()
    assert writers.done > 10
    ch.run(once=True)
    _same(src, dst, "film", "film_id, title, release_year")
    _same(src, dst, "pay", "id, k, v")

    src.execute(
        "CREATE TABLE pay_2 PARTITION OF pay FOR VALUES FROM (200) TO (300)",
        "INSERT INTO pay_2 SELECT g, 200 + g, 'p2' FROM generate_series(1, 10) g",
        "TRUNCATE pay_2",
        # rows that leave with a partition are in no log record either
        "ALTER TABLE ev DETACH PARTITION ev_1",
        # a partition's TRUNCATE trigger as an earlier version made it (naming no table)
        "CREATE OR REPLACE TRIGGER repl_partition_truncate BEFORE TRUNCATE ON od_1 "
        "FOR EACH STATEMENT EXECUTE FUNCTION repl_partition_truncate()",
        "ALTER TABLE od DETACH PARTITION od_1",
    )
    with pytest.raises(TableStopped):
        ch.run(once=True)
    done = rk.syncpoint(path, "status", "--json")
    tables = json.loads(done.stdout)["integrate"]["dst"]["tables"]
    stopped = {t["table"]: t["stopped"] for t in tables}
    assert "pay_2" in (stopped["public.pay"] or "") and "TRUNCATE" in stopped["public.pay"]
    assert "ev_1 was detached holding rows" in (stopped["public.ev"] or "")
    assert "od_1 was detached holding rows: its rows are in no change" in (
        stopped["public.od"] or ""
    ), stopped
    assert stopped["public.film"] is None
    _partition_drops(src, dst, ch, path, "lg", "d")


def _partition_drops(src: Any, dst: Any, ch: Channel, path: Path, table: str, group: str) -> None:
    """``table`` (partitioned by LIST (k), partitions ``<table>_1`` and ``_2`` holding rows,
    ``_3`` empty) in sync group ``group``: a partition emptied, then dropped while rows go
    into another, goes on; one dropped after a row went into it stops the table, with the
    reason in ``status --json``."""
    src.execute(f"TRUNCATE {table}_2")
    ch.run(once=True, group=group)
    src.execute(
        f"INSERT INTO {table} VALUES (3, 1)",
        f"DROP TABLE {table}_2",
        f"INSERT INTO {table} VALUES (4, 1)",
    )
    ch.run(once=True, group=group)
    ch.run(once=True, group=group)
    _same(src, dst, table, "id, k")
    src.execute(f"INSERT INTO {table} VALUES (5, 3)", f"DROP TABLE {table}_3")
    with pytest.raises(TableStopped, match=f"{table}_3 was dropped"):
        # without event triggers, log capture finds the row once a tick drained it: the
        # table stops at the next round
        ch.run(once=True, group=group)
        ch.run(once=True, group=group)
    done = rk.syncpoint(path, "status", "--json")
    tables = json.loads(done.stdout)["integrate"]["dst"]["tables"]
    (stopped,) = [t["stopped"] or "" for t in tables if t["table"] == f"public.{table}"]
    assert f"{table}_3 was dropped" in stopped and "syncpoint install" in stopped, stopped


def test_log_capture_as_superuser_follows_partitions_and_stops_on_rows_no_log_carries(
    log_db: Any, tmp_path: Path
) -> None:
    """With event triggers: a new partition's TRUNCATE in its first second reaches the
    target exactly; a table attached holding rows, and a replica identity removed, stop
    their tables."""
    src, dst = log_db, next(make_sqlite(tmp_path))
    src.execute(
        "CREATE TABLE pay (id integer, k integer, v text, PRIMARY KEY (id, k)) "
        "PARTITION BY RANGE (k)",
        "CREATE TABLE pay_0 PARTITION OF pay FOR VALUES FROM (0) TO (100)",
        "INSERT INTO pay SELECT g, g, 'start' FROM generate_series(1, 20) g",
        "CREATE TABLE other (id integer PRIMARY KEY, v text)",
        "CREATE TABLE lg (id integer, k integer, PRIMARY KEY (id, k)) PARTITION BY LIST (k)",
        "CREATE TABLE lg_1 PARTITION OF lg FOR VALUES IN (1)",
        "CREATE TABLE lg_2 PARTITION OF lg FOR VALUES IN (2)",
        "CREATE TABLE lg_3 PARTITION OF lg FOR VALUES IN (3)",
        "INSERT INTO lg VALUES (1, 1), (2, 2)",
    )
    path = tmp_path / "sp.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "channel": "logsuper",
                "application": "wh",
                "locations": {
                    "src": {"url": src.url, "capture": "log"},
                    "dst": {"url": dst.url, "integrate": True},
                },
                "tables": [{"name": "public.pay"}, {"name": "public.other"}, {"name": "public.lg"}],
                "sync_groups": {"a": ["pay"], "b": ["other"], "d": ["lg"]},
            }
        )
    )
    ch = Channel.from_file(path)
    ch.install()
    ch.snapshot()
    writers = Writers(src.url)
    try:
        src.execute(
            "CREATE TABLE pay_1 PARTITION OF pay FOR VALUES FROM (100) TO (200)",
            "INSERT INTO pay_1 SELECT g, 100 + g, 'p1' FROM generate_series(1, 10) g",
            "TRUNCATE pay_1",
            "INSERT INTO pay_1 VALUES (5, 105, 'after truncate')",
        )
        writers.ranges.append(100)
        ch.run(once=True)
    finally:
        writers.finish()
    ch.run(once=True)
    _same(src, dst, "pay", "id, k, v")

    src.execute("INSERT INTO other VALUES (1, 'a')")
    ch.run(once=True)
    src.execute(
        "CREATE TABLE pay_2 (id integer, k integer, v text, PRIMARY KEY (id, k))",
        "INSERT INTO pay_2 VALUES (1, 201, 'attached')",
        "ALTER TABLE pay ATTACH PARTITION pay_2 FOR VALUES FROM (200) TO (300)",
        "ALTER TABLE other REPLICA IDENTITY NOTHING",
        "INSERT INTO other VALUES (2, 'not published')",
    )
    with pytest.raises(TableStopped):
        ch.run(once=True)
    done = rk.syncpoint(path, "status", "--json")
    tables = json.loads(done.stdout)["integrate"]["dst"]["tables"]
    stopped = {t["table"]: t["stopped"] or "" for t in tables}
    assert "pay_2 was attached holding rows" in stopped["public.pay"], stopped
    assert "no usable replica identity" in stopped["public.other"], stopped
    assert dst.query("SELECT id, v FROM other") == [(1, "a")]
    _partition_drops(src, dst, ch, path, "lg", "d")
