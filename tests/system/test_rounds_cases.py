"""Rounds in the situations the issue names: a transaction that commits late (S01), DDL in
the stream under each policy (S20-S23), a change the target refuses (S18), a reinstalled
capture (S06), several capture locations into one target, and no echo back to the origin.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.errors import StreamIdentityError, TableStopped
from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql

pytestmark = pytest.mark.spark


@pytest.fixture
def pg2() -> Any:
    a, b = make_pg(), make_pg()
    yield next(a), next(b)
    next(a, None)
    next(b, None)


def chan(tmp: Path, sources: dict[str, Any], dst: Any, **extra: Any) -> Channel:
    return Channel.from_file(rk.write_config(tmp / "sp.yaml", sources, dst, extra=extra or None))


def test_a_late_committer_is_applied_once_in_a_later_round(
    pg2: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = pg2
    rk.setup_source(src)
    ch = chan(tmp_path, {"src": src}, dst)
    ch.install()
    late = src.connect(autocommit=False)
    late.execute("INSERT INTO parent (id, name, ver) VALUES (100, 'late', 'L')")  # open
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (101, 'early', 'E')")
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT id FROM parent") == [(101,)]
    late.commit()
    late.close()
    ch.run(once=True, spark=spark)
    assert rk.same(src, dst)[0]


def test_ddl_additive_is_applied_destructive_stops_until_the_policy_allows(
    pg2: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = pg2
    rk.setup_source(src)
    ch = chan(tmp_path, {"src": src}, dst)
    ch.install()
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1')")
    sql(
        src,
        "ALTER TABLE parent ADD COLUMN extra text",
        "UPDATE parent SET extra = 'added', ver = 'v2' WHERE id = 1",
    )
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT id, extra FROM parent") == [(1, "added")]
    # a destructive change stops the group before its tick; rows before it are applied
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (2, 'b', 'v3')")
    ch.run(once=True, spark=spark)
    sql(src, "ALTER TABLE parent DROP COLUMN name")
    sql(src, "INSERT INTO parent (id, ver) VALUES (3, 'v4')")
    with pytest.raises(TableStopped, match="DROP COLUMN name"):
        ch.run(once=True, spark=spark)
    assert sorted(dst.query("SELECT id FROM parent")) == [(1,), (2,)]
    st = {r["table"]: r for r in ch.integrate_status()["cen"]["tables"]}
    assert "DROP COLUMN name" in st["public.parent"]["stopped"]
    assert st["public.parent"]["backlog"] >= 2
    # the user decides: apply it
    data = yaml.safe_load((tmp_path / "sp.yaml").read_text())
    data["tables"][0]["ddl_policy"] = "apply"
    (tmp_path / "sp.yaml").write_text(yaml.safe_dump(data))
    ch = Channel.from_file(tmp_path / "sp.yaml")
    ch.run(once=True, spark=spark)
    cols = [
        r[0]
        for r in dst.query(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'parent' "
            "ORDER BY ordinal_position"
        )
    ]
    assert "name" not in cols
    assert rk.rows(dst, "parent", "id, ver, extra") == rk.rows(src, "parent", "id, ver, extra")
    assert all(r["stopped"] is None for r in ch.integrate_status()["cen"]["tables"])


def test_truncate_applied_empties_the_target_then_applies_what_came_after(
    pg2: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = pg2
    rk.setup_source(src)
    extra = {
        "tables": [
            {"name": "public.parent", "ddl_policy": "apply", "snapshot": "none"},
            {"name": "public.child", "ddl_policy": "apply", "snapshot": "none"},
        ]
    }
    ch = chan(tmp_path, {"src": src}, dst, **extra)
    ch.install()
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1'), (2, 'b', 'v2')")
    ch.run(once=True, spark=spark)
    sql(
        src,
        "INSERT INTO parent (id, name, ver) VALUES (3, 'c', 'v3')",
        "TRUNCATE parent CASCADE",
        "INSERT INTO parent (id, name, ver) VALUES (4, 'd', 'v4')",
    )
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT id FROM parent") == [(4,)]


def test_a_change_the_target_refuses_stops_the_table_and_keeps_the_change(
    pg2: Any, tmp_path: Path, spark: Any
) -> None:
    src, dst = pg2
    rk.setup_source(src)
    rk.setup_target(dst, audit=False)
    dst.execute("ALTER TABLE parent ADD CONSTRAINT small CHECK (amount < 100)")
    ch = chan(tmp_path, {"src": src}, dst)
    ch.install()
    sql(src, "INSERT INTO parent (id, amount, ver) VALUES (1, 5, 'v1'), (2, 500, 'v2')")
    with pytest.raises(TableStopped, match="small"):
        ch.run(once=True, spark=spark)
    assert dst.query("SELECT count(*) FROM parent") == [(0,)]
    st = {r["table"]: r for r in ch.integrate_status()["cen"]["tables"]}
    assert "small" in st["public.parent"]["stopped"] and st["public.parent"]["position"] is None
    dst.execute("ALTER TABLE parent DROP CONSTRAINT small")
    ch.run(once=True, spark=spark)
    assert rk.same(src, dst)[0]
    assert all(r["stopped"] is None for r in ch.integrate_status()["cen"]["tables"])


def test_a_reinstalled_capture_is_detected(pg2: Any, tmp_path: Path, spark: Any) -> None:
    src, dst = pg2
    rk.setup_source(src)
    ch = chan(tmp_path, {"src": src}, dst)
    ch.install()
    sql(src, "INSERT INTO parent (id, ver) VALUES (1, 'v1')")
    ch.run(once=True, spark=spark)
    ch.uninstall(keep_positions=True)  # capture reinstalled, the target's positions kept
    ch.install()
    sql(src, "INSERT INTO parent (id, ver) VALUES (2, 'v2')")
    with pytest.raises(StreamIdentityError, match="reinstalled"):
        ch.run(once=True, spark=spark)
    assert dst.query("SELECT id FROM parent") == [(1,)]
    r = rk.syncpoint(tmp_path / "sp.yaml", "run", "--once")
    assert r.returncode == 1 and "stream changed" in r.stderr


def test_two_locations_into_one_target_and_per_location_tables(tmp_path: Path, spark: Any) -> None:
    gens = [make_pg(), make_mariadb(), make_pg()]
    a, b, dst = (next(g) for g in gens)
    try:
        rk.setup_source(a)
        rk.setup_source(b)
        tables = [
            {"name": "parent", "snapshot": "none"},
            {"name": "child", "target": "child_{location}", "snapshot": "none"},
        ]
        cfg = rk.write_config(
            tmp_path / "sp.yaml",
            {"east": a, "west": b},
            dst,
            tables=["parent", "child"],
            extra={"tables": tables},
        )
        ch = Channel.from_file(cfg)
        # a PostgreSQL table name without a schema resolves to public at both ends
        ch.install()
        sql(
            a,
            "INSERT INTO parent (id, ver) VALUES (1, 'e1')",
            "INSERT INTO child (id, parent_id, ver) VALUES (10, 1, 'e10')",
        )
        sql(
            b,
            "INSERT INTO parent (id, ver) VALUES (2, 'w2')",
            "INSERT INTO child (id, parent_id, ver) VALUES (10, 2, 'w10')",
        )
        ch.run(once=True, spark=spark)
        assert dst.query("SELECT id, ver FROM parent ORDER BY id") == [(1, "e1"), (2, "w2")]
        assert dst.query("SELECT id, ver FROM child_east") == [(10, "e10")]
        assert dst.query("SELECT id, ver FROM child_west") == [(10, "w10")]
        st = ch.integrate_status()["cen"]["tables"]
        assert {(r["location"], r["backlog"]) for r in st} == {("east", 0), ("west", 0)}
    finally:
        for g in gens:
            next(g, None)


def test_applied_changes_carry_their_origin_and_are_not_sent_back(
    tmp_path: Path, spark: Any
) -> None:
    gens = [make_pg(), make_pg()]
    a, b = (next(g) for g in gens)
    try:
        for db in (a, b):
            rk.setup_source(db)
        data = {
            "channel": "bi",
            "application": "sync",
            "locations": {
                "a": {"url": a.url, "capture": True, "integrate": True},
                "b": {"url": b.url, "capture": True, "integrate": True},
            },
            "tables": [
                {"name": "public.parent", "snapshot": "none"},
                {"name": "public.child", "snapshot": "none"},
            ],
            "sync_groups": {"g": ["parent", "child"]},
        }
        (tmp_path / "bi.yaml").write_text(json.dumps(data))
        ch = Channel.from_file(tmp_path / "bi.yaml")
        ch.install()
        sql(a, "INSERT INTO parent (id, ver) VALUES (1, 'from a')")
        ch.run(once=True, spark=spark)
        assert b.query("SELECT id, ver FROM parent") == [(1, "from a")]
        assert b.query("SELECT dbid FROM repl_items") == [("a",)]  # captured at b, origin a
        report = ch.run(once=True, spark=spark)
        assert report.changes == 0  # b's record of a's change is an echo: filtered, not counted
        assert a.query("SELECT dbid, count(*) FROM repl_items GROUP BY dbid") == [("a", 1)]
        assert a.query("SELECT id, ver FROM parent") == [(1, "from a")]
    finally:
        for g in gens:
            next(g, None)


def test_sqlite_target_created_from_a_mariadb_source(tmp_path: Path, spark: Any) -> None:
    gens = [make_mariadb(), make_sqlite(tmp_path)]
    src, dst = (next(g) for g in gens)
    try:
        rk.setup_source(src)
        ch = chan(tmp_path, {"src": src}, dst)
        ch.install()
        sql(
            src,
            "INSERT INTO parent (id, name, amount, ver, updated_at) VALUES "
            "(1, 'x ✓ 😀', 12345678.90, 'v1', '1969-07-20 20:17:40.000001')",
        )
        ch.run(once=True, spark=spark)
        assert dst.query("SELECT id, name, amount, ver, updated_at FROM parent") == [
            (1, "x ✓ 😀", "12345678.90", "v1", "1969-07-20T20:17:40.000001")
        ]
    finally:
        for g in gens:
            next(g, None)
