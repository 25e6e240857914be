"""A table replicated with a configured key into a target that has no primary key or unique
index (a warehouse or log table), on every vendor: inserts, updates (of the key too) and
deletes arrive with one row per key, rows of the target that the source never had stay, and
``validate`` says how the table is applied and warns of a unique index on other columns.
Killed with SIGKILL before and after the apply's COMMIT, the next run converges to the
source without applying any row twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql

pytestmark = pytest.mark.spark
VENDORS = ["postgres", "mariadb", "sqlite"]

SOURCE = "CREATE TABLE audit_log (id integer NOT NULL, ts integer NOT NULL, msg varchar(40))"
TARGET = "CREATE TABLE audit_log (id integer, ts integer, msg varchar(40), note varchar(20))"


@pytest.fixture
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    vendor = request.param
    make = {"postgres": make_pg, "mariadb": make_mariadb}.get(vendor)
    gens = [make(), make()] if make else [make_sqlite(tmp_path), make_sqlite(tmp_path)]
    src, dst = (next(g) for g in gens)
    yield src, dst
    for g in gens:
        next(g, None)


def setup(src: Any, dst: Any, tmp: Path) -> Path:
    src.execute(SOURCE)
    dst.execute(TARGET, "INSERT INTO audit_log VALUES (99, 99, 'kept', 'target only')")
    name = "public.audit_log" if src.vendor == "postgres" else "audit_log"
    target = "public.audit_log" if dst.vendor == "postgres" else "audit_log"
    cfg = tmp / "syncpoint.yaml"
    rk.write_config(
        cfg,
        {"src": src},
        dst,
        tables=[name],
        extra={
            "tables": [{"name": name, "key": ["id", "ts"], "target": target, "snapshot": "none"}],
            "sync_groups": {},
        },
    )
    return cfg


def table(db: Any) -> list[tuple[Any, ...]]:
    return sorted(
        (int(a), int(b), c)
        for a, b, c in db.query("SELECT id, ts, msg FROM audit_log WHERE id <> 99")
    )


def duplicates(db: Any) -> list[tuple[Any, ...]]:
    return db.query("SELECT id, ts FROM audit_log GROUP BY id, ts HAVING count(*) > 1")


@pytest.mark.parametrize("pair", VENDORS, indirect=True)
def test_a_keyless_target_gets_one_row_per_key(pair: Any, tmp_path: Path, spark: Any) -> None:
    src, dst = pair
    cfg = setup(src, dst, tmp_path)
    r = rk.syncpoint(cfg, "validate")
    assert r.returncode == 0, r.stderr
    assert "has no primary key or unique index on the key (id, ts)" in r.stdout
    assert "deletes the rows having the key of a changed row and inserts" in r.stdout

    ch = Channel.from_file(cfg)
    ch.install()
    sql(src, "INSERT INTO audit_log VALUES (1, 1, 'a')", "INSERT INTO audit_log VALUES (1, 2, 'b')")
    sql(src, "INSERT INTO audit_log VALUES (2, 1, 'c')")
    ch.run(once=True, spark=spark)
    assert table(dst) == table(src) == [(1, 1, "a"), (1, 2, "b"), (2, 1, "c")]
    sql(
        src,
        "UPDATE audit_log SET msg = 'a2' WHERE id = 1 AND ts = 1",
        "UPDATE audit_log SET ts = 3 WHERE id = 2",  # the key itself changes
        "DELETE FROM audit_log WHERE id = 1 AND ts = 2",
        "INSERT INTO audit_log VALUES (4, 1, NULL)",
    )
    sql(src, "UPDATE audit_log SET msg = 'a3' WHERE id = 1 AND ts = 1")
    ch.run(once=True, spark=spark)
    assert table(dst) == table(src) == [(1, 1, "a3"), (2, 3, "c"), (4, 1, None)]
    assert duplicates(dst) == []
    assert dst.query("SELECT msg, note FROM audit_log WHERE id = 99") == [("kept", "target only")]

    # a unique index on other columns than the key: validate warns
    dst.execute("CREATE UNIQUE INDEX audit_msg ON audit_log (msg)")
    r = rk.syncpoint(cfg, "validate", "--json")
    assert r.returncode == 0, r.stderr
    notes = json.loads(r.stdout)["notes"]["cen"]
    assert any("warning" in n and "audit_msg" in n and "(msg)" in n for n in notes), notes


# One kill per vendor (a Spark process each costs ~20 s): before COMMIT the round's deletes
# and inserts must vanish whole; after COMMIT the next run must not apply them again.
KILLS = [("postgres", "before_commit"), ("mariadb", "after_commit"), ("sqlite", "before_commit")]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("pair", "step"), KILLS, indirect=["pair"], ids=[f"{v}-{s}" for v, s in KILLS]
)
def test_killed_around_commit_no_row_is_applied_twice(
    pair: Any, step: str, tmp_path: Path, spark: Any
) -> None:
    src, dst = pair
    cfg = setup(src, dst, tmp_path)
    ch = Channel.from_file(cfg)
    ch.install()
    sql(src, *[f"INSERT INTO audit_log VALUES ({i}, 1, 'v0')" for i in range(1, 21)])
    ch.run(once=True, spark=spark)
    for n in (1, 2):
        sql(
            src,
            f"UPDATE audit_log SET msg = 'v{n}' WHERE id <= {5 * n}",
            f"INSERT INTO audit_log VALUES ({100 + n}, 1, 'new')",
            f"DELETE FROM audit_log WHERE id = {20 - n}",
        )
    r = rk.syncpoint(cfg, "run", "--once", env={"SYNCPOINT_FAILPOINT": step})
    assert r.returncode == -9, (step, r.stderr[-2000:])
    assert duplicates(dst) == []
    ch.run(once=True, spark=spark)
    assert duplicates(dst) == []
    assert table(dst) == table(src)
    sql(src, "UPDATE audit_log SET msg = 'last' WHERE id <= 3")
    ch.run(once=True, spark=spark)
    assert duplicates(dst) == []
    assert table(dst) == table(src)
    assert len(table(dst)) == 20
    assert dst.query("SELECT count(*) FROM audit_log WHERE id = 99") == [(1,)]
