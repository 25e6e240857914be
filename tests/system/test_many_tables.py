"""A sync group of many tables of which few change: the changed ones are applied exactly,
every idle one's position still stands at the group's sync point round after round, the
receive stamp follows, ``status`` counts each table's backlog, and a round killed before
its commit leaves every position where it was (docs/internals.md, "Idle tables").
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint import failpoints
from syncpoint.ops.channel import Channel
from tests.conftest import Db, make_mariadb, make_pg, make_sqlite
from tests.system import roundkit as rk

# a MariaDB or SQLite source installs a trigger set per table: fewer of them
COUNT = {"postgres": 60, "mariadb": 12, "sqlite": 12}
CREATE = {
    "postgres": "CREATE TABLE {t} (id bigint PRIMARY KEY, v text)",
    "mariadb": "CREATE TABLE {t} (id bigint PRIMARY KEY, v varchar(40)) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE {t} (id INTEGER PRIMARY KEY, v TEXT)",
}


@pytest.fixture(params=["postgres", "mariadb", "sqlite"])
def many(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Db, Db, list[str]]]:
    vendor = request.param
    makers = {"postgres": make_pg, "mariadb": make_mariadb}
    gens = [make_sqlite(tmp_path) if vendor == "sqlite" else makers[vendor](), make_pg()]
    src, dst = (next(g) for g in gens)
    names = [f"t{i:02d}" for i in range(COUNT[vendor])]
    src.execute(*(CREATE[vendor].format(t=t) for t in names))
    try:
        yield src, dst, names
    finally:
        for g in gens:
            next(g, None)


def config(path: Path, src: Db, dst: Db, names: list[str]) -> Path:
    data = {
        "channel": "many",
        "application": "wh",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "cen": {"url": dst.url, "integrate": True},
        },
        "tables": [{"name": t} for t in names],
        "sync_groups": {"all": names},
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def rows(db: Db, table: str) -> list[tuple[Any, ...]]:
    return [(int(i), v) for i, v in db.query(f"SELECT id, v FROM {table} ORDER BY id")]


def positions(dst: Db) -> dict[str, int]:
    return {
        str(t): int(c)
        for t, c in dst.query(
            "SELECT table_name, context FROM repl_stream_positions WHERE location = 'src'"
        )
    }


def sync_point(dst: Db) -> int:
    ((ctx,),) = dst.query(
        "SELECT context FROM repl_sync_points WHERE location = 'src' AND sync_name = 'all'"
    )
    return int(ctx)


def all_at_sync_point(dst: Db, names: list[str]) -> int:
    """Every table's position is the group's sync point; returns it."""
    sp = sync_point(dst)
    assert positions(dst) == {t: sp for t in names}
    return sp


def stamped(ch: Channel, src: Db, sp: int) -> None:
    """The receive stamp of the location stands at the group's sync point: exactly on
    PostgreSQL; elsewhere never ahead of it (a MariaDB tick counts every open transaction
    of the server, other tests' too, and then its stamp waits)."""
    stamp = ch.stamps_status()["cen"]["locations"]["src"]
    if src.vendor == "postgres":
        assert stamp["sync_point"] == sp and stamp["cap_begin"] is not None
    else:
        assert stamp["sync_point"] is None or stamp["sync_point"] <= sp


def test_a_few_changed_tables_among_many(
    many: tuple[Db, Db, list[str]], tmp_path: Path, spark: Any
) -> None:
    src, dst, names = many
    cfg = config(tmp_path / "sp.yaml", src, dst, names)
    ch = Channel.from_file(cfg)
    ch.install()
    ch.run(once=True, spark=spark)  # the first round: every target made, every position
    first = all_at_sync_point(dst, names)
    assert all(rows(dst, t) == [] for t in names)  # targets created like the sources

    changed = [names[1], names[len(names) // 2], names[-2]]
    src.execute(
        f"INSERT INTO {changed[0]} (id, v) VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        f"INSERT INTO {changed[1]} (id, v) VALUES (10, 'x')",
        f"UPDATE {changed[1]} SET v = 'y' WHERE id = 10",
        f"INSERT INTO {changed[2]} (id, v) VALUES (7, 'gone'), (8, 'kept')",
        f"DELETE FROM {changed[2]} WHERE id = 7",
    )
    report = ch.run(once=True, spark=spark)
    (rnd,) = [r for r in report.rounds if r["changes"]]
    read = {t["table"]: t["changes"] for t in rnd["tables"] if t["changes"]}
    assert read == {changed[0]: 3, changed[1]: 2, changed[2]: 3}
    assert len(rnd["tables"]) == len(names)  # the idle ones moved too
    for t in names:
        assert rows(dst, t) == rows(src, t), t
    second = all_at_sync_point(dst, names)
    assert second > first
    stamped(ch, src, second)

    # idle rounds move every position; then a table idle all along gets exactly its change
    ch.run(once=True, spark=spark)
    ch.run(once=True, spark=spark)
    third = all_at_sync_point(dst, names)
    assert third > second
    late = names[-1]
    src.execute(
        f"INSERT INTO {late} (id, v) VALUES (1, 'p'), (2, 'q')",
        f"DELETE FROM {late} WHERE id = 1",
        f"UPDATE {changed[0]} SET v = 'a2' WHERE id = 1",
    )
    # status, before the round: each table's backlog counted, the idle ones none
    st = ch.integrate_status()["cen"]["tables"]
    backlog = {r["table"]: r["backlog"] for r in st}
    assert backlog == {t: {late: 3, changed[0]: 1}.get(t, 0) for t in names}
    ch.run(once=True, spark=spark)
    for t in names:
        assert rows(dst, t) == rows(src, t), t
    assert rows(dst, late) == [(2, "q")]
    stamped(ch, src, all_at_sync_point(dst, names))
    assert all(r["backlog"] == 0 for r in ch.integrate_status()["cen"]["tables"])


@pytest.mark.parametrize("many", ["postgres"], indirect=True)
def test_a_round_killed_before_commit_moves_no_position(
    many: tuple[Db, Db, list[str]], tmp_path: Path, spark: Any
) -> None:
    src, dst, names = many
    cfg = config(tmp_path / "sp.yaml", src, dst, names)
    ch = Channel.from_file(cfg)
    ch.install()
    ch.run(once=True, spark=spark)
    before = all_at_sync_point(dst, names)
    src.execute(
        f"INSERT INTO {names[3]} (id, v) VALUES (1, 'a')",
        f"INSERT INTO {names[40]} (id, v) VALUES (1, 'b'), (2, 'c')",
    )
    killed = rk.syncpoint(cfg, "run", "--once", env={failpoints.ENV: "before_commit"})
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert set(positions(dst).values()) == {before}  # no table moved, idle or not
    assert rows(dst, names[3]) == rows(dst, names[40]) == []
    ch.run(once=True, spark=spark)
    for t in names:
        assert rows(dst, t) == rows(src, t), t
    assert all_at_sync_point(dst, names) > before
