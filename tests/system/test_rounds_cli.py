"""``syncpoint run``, ``status`` and ``purge`` as a user runs them: exit codes, JSON output,
messages; and DDL in the stream through the command line (a rename applied by policy,
MariaDB's polled DDL)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.ops.channel import Channel
from tests.conftest import make_mariadb, make_pg
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql

pytestmark = pytest.mark.spark


@pytest.fixture
def sqlite_pair(tmp_path: Path) -> Any:
    from tests.conftest import make_sqlite

    gens = [make_sqlite(tmp_path), make_sqlite(tmp_path)]
    dbs = [next(g) for g in gens]
    yield dbs
    for g in gens:
        next(g, None)


def test_run_status_purge_on_the_command_line(sqlite_pair: Any, tmp_path: Path) -> None:
    src, dst = sqlite_pair
    rk.setup_source(src)
    cfg = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst)
    assert rk.syncpoint(cfg, "install").returncode == 0
    bad = rk.syncpoint(cfg, "run", "--once", "--follow")
    assert bad.returncode == 2 and "exclude each other" in bad.stderr
    bad = rk.syncpoint(cfg, "run", "--once", "--group", "nope")
    assert bad.returncode == 2 and "no such sync group" in bad.stderr
    sql(
        src,
        "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1'), (2, 'b', 'v2')",
        "INSERT INTO child (id, parent_id, ver) VALUES (10, 1, 'c1')",
    )
    st = json.loads(rk.syncpoint(cfg, "status", "--json").stdout)["integrate"]["cen"]
    assert {t["table"]: t["backlog"] for t in st["tables"]} == {"parent": 2, "child": 1}
    done = rk.syncpoint(cfg, "run", "--once", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["changes"] == 3 and report["stopped"] == []
    assert report["rounds"][0]["sync_points"] == {"src": 1}  # status made no tick
    assert rk.same(src, dst)[0]
    st = json.loads(rk.syncpoint(cfg, "status", "--json").stdout)["integrate"]["cen"]
    assert [(t["table"], t["position"], t["backlog"], t["lag_seconds"]) for t in st["tables"]] == [
        ("parent", 1, 0, 0.0),
        ("child", 1, 0, 0.0),
    ]
    text = rk.syncpoint(cfg, "status")
    assert text.returncode == 0 and "application wh" in text.stdout
    purged = json.loads(rk.syncpoint(cfg, "purge", "--json").stdout)
    assert purged == {"src": {"upto": 1, "purged": 3}}
    again = rk.syncpoint(cfg, "run", "--once")
    assert again.returncode == 0 and "0 changes read" in again.stdout


def test_a_rename_applied_by_policy_keeps_the_values(tmp_path: Path, spark: Any) -> None:
    gens = [make_pg(), make_pg()]
    src, dst = (next(g) for g in gens)
    try:
        rk.setup_source(src)
        cfg = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst)
        data = yaml.safe_load(cfg.read_text())
        data["tables"][0]["ddl_policy"] = "apply"
        cfg.write_text(yaml.safe_dump(data))
        ch = Channel.from_file(cfg)
        ch.install()
        sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1'), (2, 'b', 'v2')")
        ch.run(once=True, spark=spark)
        # in one round: a change before the rename, the rename, a change after it
        sql(src, "UPDATE parent SET name = 'a2' WHERE id = 1")
        sql(src, "ALTER TABLE parent RENAME COLUMN name TO title")
        sql(src, "INSERT INTO parent (id, title, ver) VALUES (3, 'c', 'v3')")
        ch.run(once=True, spark=spark)
        assert dst.query("SELECT id, title FROM parent ORDER BY id") == [
            (1, "a2"),
            (2, "b"),
            (3, "c"),
        ]
    finally:
        for g in gens:
            next(g, None)


def test_mariadb_polled_ddl_adds_a_column_in_order(tmp_path: Path, spark: Any) -> None:
    gens = [make_mariadb(), make_pg()]
    src, dst = (next(g) for g in gens)
    try:
        rk.setup_source(src)
        ch = Channel.from_file(rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst))
        ch.install()
        sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1')")
        ch.run(once=True, spark=spark)
        sql(src, "ALTER TABLE parent ADD COLUMN extra varchar(10) NULL")
        ch.run(once=True, spark=spark)  # the DDL is polled before the tick
        sql(src, "UPDATE parent SET extra = 'x', ver = 'v2' WHERE id = 1")
        ch.run(once=True, spark=spark)
        assert dst.query("SELECT id, extra, ver FROM parent") == [(1, "x", "v2")]
        types = dst.query(
            "SELECT data_type, character_maximum_length FROM "
            "information_schema.columns WHERE table_name = 'parent' "
            "AND column_name = 'extra'"
        )
        assert types == [("character varying", 10)]
    finally:
        for g in gens:
            next(g, None)
