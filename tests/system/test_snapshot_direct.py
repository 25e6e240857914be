"""The direct path of a PostgreSQL to PostgreSQL snapshot (COPY streamed database to
database into a typed staging): it gives the target the JDBC path gives, value for value,
for many types and hostile names, in binary (same types) and in text (a target whose types
widen the source's); a task whose rows are staged twice fails the chunk, which applies
nothing; chunk bounds come from the data, so a table of sparse keys takes a handful of
chunks; the typed staging is gone after the hand-over; a key range the target holds no
row of is written straight into the table by the tasks, except at a site that also
captures (its writes carry their origin)."""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from syncpoint.errors import PositionConflict
from syncpoint.ops.channel import Channel
from tests.conftest import make_pg

pytestmark = pytest.mark.spark

TABLE = 'Ord"er; select'
QT = '"' + TABLE.replace('"', '""') + '"'
ENUM = "CREATE TYPE \"mo\"\"od\" AS ENUM ('sad', 'ok', 'glad')"
DOMAIN = "CREATE DOMAIN posint AS integer CHECK (VALUE > 0)"
COLUMNS = (
    '"se""lect" bigint PRIMARY KEY, "a b" text, n numeric(30,10), i4 integer, i2 smallint, '
    "f8 double precision, f4 real, b boolean, bin bytea, d date, ts timestamp(6), "
    "tz timestamptz, tm time, iv interval, j jsonb, js json, u uuid, ia integer[], "
    'ta text[], m money, e "mo""od", dom posint, vc varchar(20)'
)
FILL = (
    f"INSERT INTO {QT} SELECT g, 'é ✓ 😀 \"q\" ''s'' \\ ' || g, g * 1234567.0123456789, g, "
    "(g % 30000)::smallint, g / 7.0, (g / 3.0)::real, g % 2 = 0, "
    "decode(md5(g::text), 'hex'), date '1969-07-20' + g, "
    "timestamp '1969-07-20 20:17:40.000001' + g * interval '1 second', "
    "timestamptz '2024-03-10 02:30:00.5+05:30' + g * interval '1 minute', "
    "time '00:00:00.25' + g * interval '1 second', g * interval '1 day 3 hours', "
    "jsonb_build_object('a', g, 'b', null, 'c', 'x\"y'), json_build_array(g, 2.50, null), "
    "md5(g::text)::uuid, ARRAY[g, NULL, -g], ARRAY['a,b', NULL, '\"q\"'], g * 1.25, "
    "(ARRAY['sad', 'ok', 'glad'])[1 + g % 3]::\"mo\"\"od\", 1 + g % 100, 'v' || g "
    "FROM generate_series(1, {n}) g"
)
NULLS = f'INSERT INTO {QT} ("se""lect", f8, f4) VALUES (-1, -0.0, \'NaN\'), (-2, NULL, NULL)'
SUM = f'SELECT count(*), md5(string_agg(t::text, \',\' ORDER BY "se""lect")) FROM {QT} t'


@pytest.fixture(autouse=True)
def _on_spark(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tables are small: without this, the process would copy them itself."""
    monkeypatch.setattr("syncpoint.ops.snapshot.copy.DRIVER_ROWS", 0)


def prepare(db: Any, n: int) -> None:
    db.execute(ENUM, DOMAIN, f"CREATE TABLE {QT} ({COLUMNS})", FILL.format(n=n), NULLS)


def channel(
    tmp: Path, src: Any, dst: Any, table: str = f"public.{QT}", both_ways: bool = False
) -> Channel:
    """``both_ways``: the target site captures too (it replicates both ways)."""
    data = {
        "channel": "direct",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "capture": both_ways, "integrate": True},
        },
        "tables": [{"name": table}],
        "spark": {"master": "local[2]"},
    }
    path = tmp / f"{uuid.uuid4().hex[:6]}.yaml"
    path.write_text(json.dumps(data), encoding="utf-8")
    return Channel.from_file(path)


@contextmanager
def direct_at_target(ch: Channel) -> Iterator[tuple[Any, Any, Any, Any]]:
    """The direct path of ``public.t`` into the channel's target, its typed staging made:
    (target, its connection, the table as applied, the DirectPath), in binary."""
    from syncpoint.ops.location import Location
    from syncpoint.ops.snapshot.direct import DirectPath
    from syncpoint.vendors.integratebase import apply_table
    from syncpoint.vendors.postgres import snapshot_direct as mod

    with Location.of(ch.cfg, "cen").integrate() as (target, conn):
        shape = target.describe(conn, target.resolve(ch.cfg.tables[0].ref, True, "postgres"))
        table = apply_table(shape, ("id",), {c.name: mod.parse(c.type) for c in shape.columns})
        direct = DirectPath(mod, target, "src", table, "binary")
        direct.create(conn)
        yield target, conn, table, direct


def range_copy(src: Any, dst: Any, table: Any, direct: Any, attempt: str, fresh: bool) -> Any:
    """The one task's job of the range ``id > 50`` (straight into the table if ``fresh``)."""
    from syncpoint.vendors.postgres import snapshot_direct as mod

    into = '"public"."t"' if fresh else None
    (job,) = mod.copies(
        src.url, dst.url, '"public"."t"', table, direct.staging, "binary", attempt,
        ["sp_row.id > 50"], into,
    )  # fmt: skip
    return job


@pytest.fixture
def targets() -> Any:
    gens = [make_pg(), make_pg()]
    dbs = [next(g) for g in gens]
    yield dbs
    for g in gens:
        next(g, None)


def snapshot(ch: Any, spark: Any, caplog: Any) -> str:
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="syncpoint.snapshot"):
        ch.snapshot(spark=spark)
    return " ".join(r.getMessage() for r in caplog.records)


def test_direct_and_jdbc_paths_give_the_same_target(
    pg_db: Any, targets: Any, tmp_path: Path, spark: Any, caplog: Any, monkeypatch: Any
) -> None:
    prepare(pg_db, 3000)
    jdbc_dst, direct_dst = targets
    for db in targets:
        db.execute(ENUM, DOMAIN)
    ch = channel(tmp_path, pg_db, jdbc_dst)
    ch.install()
    monkeypatch.setenv("SYNCPOINT_SNAPSHOT_PATH", "jdbc")
    monkeypatch.setattr("syncpoint.ops.snapshot.copy.CHUNK_ROWS", 700)
    assert "JDBC path" in snapshot(ch, spark, caplog)
    monkeypatch.delenv("SYNCPOINT_SNAPSHOT_PATH")
    log = snapshot(channel(tmp_path, pg_db, direct_dst), spark, caplog)
    assert "direct path (text COPY)" in log  # arrays, an enum: text literals
    want = pg_db.query(SUM)[0]
    assert want[0] == 3002
    assert jdbc_dst.query(SUM)[0] == want
    assert direct_dst.query(SUM)[0] == want
    left = direct_dst.query("SELECT relname FROM pg_class WHERE relname LIKE 'repl_snapstage%'")
    assert left == []  # the typed staging went with the hand-over


def test_binary_and_text_copies_into_same_and_wider_types(
    pg_db: Any, targets: Any, tmp_path: Path, spark: Any, caplog: Any
) -> None:
    cols = "id bigint PRIMARY KEY, n numeric(12,2), i integer, v varchar(10), ts timestamptz"
    fill = (
        "INSERT INTO t SELECT g, g / 100.0, -g, 'v' || g, timestamptz '2024-01-01' + g * "
        "interval '1.5 seconds' FROM generate_series(1, 2000) g"
    )
    pg_db.execute(f"CREATE TABLE t ({cols})", fill)
    same, wider = targets
    wider.execute(
        "CREATE TABLE t (id bigint PRIMARY KEY, n numeric(20,4), i bigint, v text, "
        "ts timestamptz, extra text DEFAULT 'kept')"
    )
    ch = channel(tmp_path, pg_db, same, "public.t")
    ch.install()
    assert "direct path (binary COPY)" in snapshot(ch, spark, caplog)
    assert "direct path (text COPY)" in snapshot(
        channel(tmp_path, pg_db, wider, "public.t"), spark, caplog
    )
    rows = "SELECT id, n::numeric(30,10), i::bigint, v::text, ts FROM t ORDER BY id"
    assert same.query(rows) == pg_db.query(rows) == wider.query(rows)
    assert wider.query("SELECT count(*) FROM t WHERE extra = 'kept'") == [(2000,)]
    # again over the loaded target: rows there are replaced by key (the upsert)
    pg_db.execute("UPDATE t SET v = 'again' WHERE id % 3 = 0")
    ch.snapshot(restart=True, spark=spark)
    assert same.query(rows) == pg_db.query(rows)
    assert same.query("SELECT count(*) FROM t WHERE v = 'again'") == [(666,)]


def test_rows_staged_twice_fail_the_chunk_and_apply_nothing(
    pg_db: Any, targets: Any, tmp_path: Path
) -> None:
    from syncpoint.ops.location import Location
    from syncpoint.vendors.postgres import snapshot_direct as mod

    pg_db.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text)")
    pg_db.execute("INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 100) g")
    dst = targets[0]
    dst.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text)")
    ch = channel(tmp_path, pg_db, dst, "public.t")
    with direct_at_target(ch) as (target, conn, table, direct):
        with Location.of(ch.cfg, "src").capture() as (_cap, sconn):
            cols = mod.source_columns(sconn, '"public"."t"')
        assert mod.mode(cols, table) == "binary"
        job = range_copy(pg_db, dst, table, direct, "attempt-1", fresh=False)
        # a task retried after its commit: its rows are staged twice
        assert mod.copy_range(job) == (50, 0) and mod.copy_range(job) == (50, 0)
        target.begin(conn)
        with pytest.raises(PositionConflict, match="100 instead of 50"):
            direct.apply(conn, "attempt-1", 50, "t", False, None)
        target.rollback(conn)
    assert dst.query("SELECT count(*) FROM t") == [(0,)]


def test_sparse_keys_take_a_handful_of_chunks(
    pg_db: Any, targets: Any, tmp_path: Path, spark: Any, caplog: Any, monkeypatch: Any
) -> None:
    # 2990 dense keys and ten spread over three thousand million: equal steps of the key
    # range would put nearly every row in the first chunk and leave the others empty
    pg_db.execute(
        "CREATE TABLE t (id bigint PRIMARY KEY, v text)",
        "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 2990) g",
        "INSERT INTO t SELECT g::bigint * 300000000, 'far' FROM generate_series(1, 10) g",
    )
    monkeypatch.setattr("syncpoint.ops.snapshot.copy.CHUNK_ROWS", 1000)
    ch = channel(tmp_path, pg_db, targets[0], "public.t")
    ch.install()
    log = snapshot(ch, spark, caplog)
    assert re.findall(r"chunk of (\d+) rows", log) == ["1000", "1000", "1000"], log
    assert targets[0].query("SELECT count(*), sum(id) FROM t") == pg_db.query(
        "SELECT count(*), sum(id) FROM t"
    )


def test_a_failing_task_names_no_password(pg_db: Any, spark: Any) -> None:
    from syncpoint.spark.snapshot import run_tasks
    from syncpoint.vendors.postgres import snapshot_direct as mod

    pg_db.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
    user, rest = pg_db.url.split("://", 1)[1].split("@", 1)
    bad = f"postgresql://{user.split(':')[0]}:s3cret-pw@{rest.rsplit('/', 1)[0]}/sp_no_such_db"
    job = mod.RangeCopy(pg_db.url, bad, "COPY (SELECT 1) TO STDOUT", "COPY t FROM STDIN")
    with pytest.raises(Exception) as err:  # noqa: PT011 - whatever Spark wraps it in
        run_tasks(spark, [job], mod.copy_range)
    assert "sp_no_such_db" in str(err.value)  # the task's own error came through
    assert "s3cret-pw" not in str(err.value)


def test_fresh_ranges_go_straight_into_the_table_others_through_the_staging(
    pg_db: Any, targets: Any, tmp_path: Path, spark: Any, caplog: Any, monkeypatch: Any
) -> None:
    pg_db.execute(
        "CREATE TABLE t (id bigint PRIMARY KEY, v text)",
        "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 3000) g",
    )
    dst = targets[0]
    # one row already at the target, in the second chunk's range: that chunk is staged and
    # upserted (the row replaced), the others are written by the tasks themselves
    dst.execute(
        "CREATE TABLE t (id bigint PRIMARY KEY, v text)", "INSERT INTO t VALUES (1500, 'old')"
    )
    monkeypatch.setattr("syncpoint.ops.snapshot.copy.CHUNK_ROWS", 1000)
    ch = channel(tmp_path, pg_db, dst, "public.t")
    ch.install()
    log = snapshot(ch, spark, caplog)
    assert re.findall(r"chunk of (\d+) rows: (\d+) written to the target table", log) == [
        ("1000", "1000"),
        ("1000", "0"),
        ("1000", "1000"),
    ], log
    rows = "SELECT count(*), md5(string_agg(id || v, ',' ORDER BY id)) FROM t"
    assert dst.query(rows) == pg_db.query(rows)


def test_a_fresh_range_that_meets_a_key_is_staged_instead(
    pg_db: Any, targets: Any, tmp_path: Path
) -> None:
    from syncpoint.vendors.postgres import snapshot_direct as mod

    pg_db.execute(
        "CREATE TABLE t (id bigint PRIMARY KEY, v text)",
        "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 100) g",
    )
    dst = targets[0]
    # a key written at the target after the range was found empty: the task's COPY into
    # the table meets it, rolls back, and stages the range for the chunk's upsert
    dst.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text)", "INSERT INTO t VALUES (70, 'x')")
    ch = channel(tmp_path, pg_db, dst, "public.t")
    with direct_at_target(ch) as (target, conn, table, direct):
        assert not direct.fresh(conn, "sp_row.id > 50")
        assert direct.fresh(conn, "sp_row.id > 70")
        job = range_copy(pg_db, dst, table, direct, "a1", fresh=True)
        assert mod.copy_range(job) == (50, 0)
        staged = f"SELECT count(*) FROM \"{direct.staging}\" WHERE sp_snapshot_attempt = 'a1'"
        assert dst.query(staged) == [(50,)]
        assert dst.query("SELECT count(*), max(v) FROM t") == [(1, "x")]  # nothing half-written
        dst.execute(f'DELETE FROM t; TRUNCATE "{direct.staging}"')
        assert mod.copy_range(job) == (0, 50)  # the range free: straight into the table
        assert dst.query("SELECT count(*), min(id) FROM t") == [(50, 51)]
        assert dst.query(staged) == [(0,)]


def test_a_target_that_also_captures_gets_its_rows_marked_with_their_origin(
    pg_db: Any, targets: Any, tmp_path: Path, spark: Any, caplog: Any
) -> None:
    # a site replicating both ways: the snapshot's writes at it must carry the source as
    # their origin (else they would travel back as its own changes), which a task's own
    # transaction does not: every chunk goes through the staging and the chunk's transaction
    pg_db.execute(
        "CREATE TABLE t (id bigint PRIMARY KEY, v text)",
        "INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 500) g",
    )
    dst = targets[0]
    dst.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text)")
    ch = channel(tmp_path, pg_db, dst, "public.t", both_ways=True)
    ch.install()
    log = snapshot(ch, spark, caplog)
    assert re.findall(r"(\d+) written to the target table", log) == ["0"], log
    assert dst.query("SELECT count(*) FROM t") == [(500,)]
    origins = dst.query(
        "SELECT dbid, count(*) FROM repl_items WHERE tablename LIKE '%t' "
        "AND db_action NOT IN ('CREATE', 'ALTER', 'DROP', 'TRUNCATE') GROUP BY dbid"
    )
    assert origins == [("src", 500)]
