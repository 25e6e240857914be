"""Capture follows a watched partitioned table's partitions made after install, at a
PostgreSQL source with trigger capture, as a superuser (DDL event triggers) and as the
tables' owner without superuser (DDL found by polling at each tick), while writers run:
a partition made by CREATE TABLE ... PARTITION OF gets rows and a TRUNCATE of its own within
a second of its creation (before any tick), a table holding rows is attached, a partition
is detached. The target must equal the source by a checksum of every row, computed here.
A capture trigger dropped by hand stops its table, with the reason in ``status --json``; so
does a partition dropped holding rows (seen by event triggers, or by the next tick); an
empty partition dropped goes on.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import yaml

from syncpoint.errors import TableStopped
from syncpoint.ops.channel import Channel
from tests.conftest import PG_ADMIN, make_pg, make_sqlite
from tests.system import roundkit as rk


def _as(url: str, role: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{role}@{rest.split('@', 1)[1]}"


@pytest.fixture(params=["superuser", "owner"])
def source(request: Any) -> Iterator[Any]:
    gen = make_pg()
    db = next(gen)
    role = None
    admin = psycopg.connect(PG_ADMIN, autocommit=True)
    try:
        if request.param == "owner":
            role = f"sp_owner_{uuid.uuid4().hex[:8]}"
            admin.execute(f'CREATE ROLE "{role}" LOGIN NOSUPERUSER')
            admin.execute(f'ALTER DATABASE "{db.name}" OWNER TO "{role}"')
            db = type(db)("postgres", _as(db.url, role), db.name)
        yield db
    finally:
        next(gen, None)
        if role:
            admin.execute(f'DROP ROLE IF EXISTS "{role}"')
        admin.close()


class Writers:
    """Random inserts, updates and deletes through the partitioned table, into whichever
    ranges exist, until stopped."""

    def __init__(self, url: str, count: int = 2) -> None:
        self.url, self.ranges, self.stop = url, [0], threading.Event()
        self.threads = [threading.Thread(target=self._work, args=(n,)) for n in range(count)]
        self.done = 0
        for t in self.threads:
            t.start()

    def _work(self, no: int) -> None:
        rnd = random.Random(no)
        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.stop.is_set():
                base = rnd.choice(list(self.ranges))
                k, i = base + rnd.randrange(100), rnd.randrange(30)
                op = rnd.random()
                try:
                    if op < 0.5:
                        conn.execute(
                            "INSERT INTO pay VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                            (i, k, f"w{no}"),
                        )
                    elif op < 0.8:
                        conn.execute(
                            "UPDATE pay SET v = v || '+' WHERE id = %s AND k BETWEEN %s AND %s",
                            (i, base, base + 99),
                        )
                    else:
                        conn.execute("DELETE FROM pay WHERE id = %s AND k = %s", (i, k))
                    self.done += 1
                except psycopg.Error:
                    pass  # a range just detached: no partition for the row
                time.sleep(0.005)

    def finish(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join()


def _same(src: Any, dst: Any, table: str, cols: str) -> None:
    a, b = rk.rows(src, table, cols), rk.rows(dst, table, cols)
    assert len(a) == len(b) and rk.checksum(a) == rk.checksum(b), (
        f"{table}: source {len(a)} rows, target {len(b)}; missing "
        f"{[r for r in a if r not in b][:5]} extra {[r for r in b if r not in a][:5]}"
    )


def test_new_partitions_and_a_dropped_trigger(source: Any, tmp_path: Path) -> None:
    src = source
    dst = next(make_sqlite(tmp_path))
    src.execute(
        "CREATE TABLE pay (id integer, k integer, v text, PRIMARY KEY (id, k)) "
        "PARTITION BY RANGE (k)",
        "CREATE TABLE pay_0 PARTITION OF pay FOR VALUES FROM (0) TO (100)",
        "INSERT INTO pay SELECT g, g, 'start' FROM generate_series(1, 20) g",
        "CREATE TABLE other (id integer PRIMARY KEY, v text)",
    )
    path = tmp_path / "sp.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "channel": "parts",
                "application": "wh",
                "locations": {
                    "src": {"url": src.url, "capture": True},
                    "dst": {"url": dst.url, "integrate": True},
                },
                "tables": [{"name": "public.pay"}, {"name": "public.other"}],
                "sync_groups": {"a": ["pay"], "b": ["other"]},
            }
        )
    )
    ch = Channel.from_file(path)
    ch.install()
    ch.snapshot()
    writers = Writers(src.url)
    try:
        # made, written straight into (naming the partition) and emptied, before any tick
        src.execute(
            "CREATE TABLE pay_1 PARTITION OF pay FOR VALUES FROM (100) TO (200)",
            "INSERT INTO pay_1 SELECT g, 100 + g, 'p1' FROM generate_series(1, 10) g",
            "CREATE TABLE pay_2 PARTITION OF pay FOR VALUES FROM (200) TO (300)",
            "INSERT INTO pay_2 SELECT g, 200 + g, 'p2' FROM generate_series(1, 10) g",
            "UPDATE pay_2 SET v = 'p2 again' WHERE id < 5",
            "TRUNCATE pay_2",
            "INSERT INTO pay_2 VALUES (3, 203, 'after truncate')",
        )
        writers.ranges += [100, 200]
        ch.run(once=True)
        # a table holding rows attached; a partition detached (its rows leave the table)
        src.execute(
            "CREATE TABLE pay_3 (id integer, k integer, v text, PRIMARY KEY (id, k))",
            "INSERT INTO pay_3 SELECT g, 300 + g, 'attached' FROM generate_series(1, 10) g",
            "ALTER TABLE pay ATTACH PARTITION pay_3 FOR VALUES FROM (300) TO (400)",
            "UPDATE pay_3 SET v = 'attached+' WHERE id = 1",
        )
        writers.ranges += [300]
        writers.ranges.remove(100)
        src.execute(
            "ALTER TABLE pay DETACH PARTITION pay_1",
            "INSERT INTO pay_1 VALUES (99, 150, 'written after detach')",
        )
        ch.run(once=True)
        src.execute("CREATE TABLE pay_4 PARTITION OF pay FOR VALUES FROM (400) TO (500)")
        writers.ranges += [400]
        ch.run(once=True)
    finally:
        writers.finish()
    assert writers.done > 20
    ch.run(once=True)
    _same(src, dst, "pay", "id, k, v")

    # a capture trigger dropped by hand: the table stops, with the reason and the way back
    src.execute("INSERT INTO other VALUES (1, 'kept')")
    ch.run(once=True)
    (trigger,) = src.query(
        "SELECT tgname FROM pg_trigger WHERE tgrelid = 'other'::regclass AND tgname LIKE '%%_ins'"
    )[0]
    src.execute(f'DROP TRIGGER "{trigger}" ON other', "INSERT INTO other VALUES (2, 'lost')")
    with pytest.raises(TableStopped):
        ch.run(once=True)
    done = rk.syncpoint(path, "status", "--json")
    status = json.loads(done.stdout)
    rows = [t for t in status["integrate"]["dst"]["tables"] if t["table"] == "public.other"]
    assert rows and "dropped by hand" in (rows[0]["stopped"] or ""), done.stdout
    assert "syncpoint install" in rows[0]["stopped"]
    warned = {(w["kind"], w.get("subject")) for w in status["warnings"]}
    assert {("capture_broken", "public.other"), ("table_stopped", "public.other")} <= warned
    assert dst.query("SELECT id, v FROM other") == [(1, "kept")]

    # a partition dropped: an empty one goes on (seen empty by a tick, where DDL is polled);
    # one holding rows stops its table, with event triggers (seen as it happens) or without
    # (seen gone at the next tick, when it was not seen empty)
    src.execute("CREATE TABLE pay_5 PARTITION OF pay FOR VALUES FROM (500) TO (600)")
    ch.run(once=True, group="a")
    src.execute("DROP TABLE pay_5", "INSERT INTO pay VALUES (77, 77, 'after the drop')")
    ch.run(once=True, group="a")
    _same(src, dst, "pay", "id, k, v")
    src.execute("DROP TABLE pay_3")
    with pytest.raises(TableStopped, match="pay_3 was dropped holding rows"):
        ch.run(once=True, group="a")
    done = rk.syncpoint(path, "status", "--json")
    rows = [
        t
        for t in json.loads(done.stdout)["integrate"]["dst"]["tables"]
        if t["table"] == "public.pay"
    ]
    assert "pay_3 was dropped holding rows" in (rows[0]["stopped"] or ""), done.stdout
    assert "syncpoint install" in rows[0]["stopped"]
