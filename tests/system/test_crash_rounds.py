"""Crash safety (docs/guarantees.md §3): ``run --once`` killed with SIGKILL at every named step of a
round while writers change the source, and the target's connection killed in the middle of
a round. After each kill the stored positions are never ahead of the applied rows (the
target equals the source's change records replayed up to the stored positions), and the
next ``run --once`` converges to the source exactly, without applying anything twice."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from syncpoint import failpoints
from syncpoint.config import TableName
from syncpoint.core import netting
from syncpoint.errors import TransientError
from syncpoint.ops.channel import Channel
from syncpoint.vendors import of_url
from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system import roundkit as rk

pytestmark = [pytest.mark.spark, pytest.mark.slow]
STEPS = [
    s
    for s in failpoints.STEPS
    if not s.startswith(("gate", "snapshot", "log_", "direct_", "round_"))
    and s != "after_stamps"
]  # snapshot steps: test_snapshot_crash.py; direct_, round_after_task: the direct path's (below)
VENDORS = ["postgres", "mariadb", "sqlite"]


# rounds of every size on the direct path (PostgreSQL to PostgreSQL, Spark tasks copying
# database to database), where the writers' small rounds would be netted by the driver
DIRECT = {"spark": {"master": "local[2]", "driver_round_max": 0}}


@pytest.fixture
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param.startswith("direct-"):
        # direct-mariadb: PostgreSQL's COPY into MariaDB's LOAD DATA; direct-maria-pg:
        # MariaDB's records into PostgreSQL's typed staging; direct-mymy: MariaDB's
        # unbuffered read into MariaDB's LOAD DATA
        gens = {
            "direct-mariadb": [make_pg(), make_mariadb()],
            "direct-maria-pg": [make_mariadb(), make_pg()],
            "direct-mymy": [make_mariadb(), make_mariadb()],
        }[request.param]
        src, dst = (next(g) for g in gens)
        yield src, dst
        for g in gens:
            next(g, None)
        return
    vendor = "postgres" if request.param == "direct" else request.param
    make = {"postgres": make_pg, "mariadb": make_mariadb}.get(vendor)
    gens = [make(), make()] if make else [make_sqlite(tmp_path), make_sqlite(tmp_path)]
    src, dst = (next(g) for g in gens)
    yield src, dst
    for g in gens:
        next(g, None)


def replayed(src: Any, cfg: Path, table: str, upto: int) -> list[tuple[Any, ...]]:
    """The table as the source's change records up to tick ``upto`` make it."""
    ch = Channel.from_file(cfg)
    loc = ch.cfg.locations["src"].url.get_secret_value()
    cap = of_url(loc).Capture("src", loc, "repl_")
    conn = cap.connect()
    try:
        ref = ch.cfg.table(table).ref
        recs = cap.changes(conn, TableName(schema=ref.schema_, name=ref.name), 0, upto)
    finally:
        conn.close()
    state: dict[Any, Any] = {}
    netting.apply_to(state, netting.net(recs, ["id"]), ["id"])
    cols = [c.strip() for c in rk.COLS[table].split(",")]
    return sorted(tuple(rk.norm(row.get(c)) for c in cols) for row in state.values())


def stored(dst: Any) -> dict[str, int]:
    return {
        t.split(".")[-1]: int(c)
        for t, c in dst.query("SELECT table_name, context FROM repl_stream_positions")
    }


def assert_not_ahead(src: Any, dst: Any, cfg: Path) -> None:
    """Positions are never ahead of the applied rows: the target is exactly the replay."""
    pos = stored(dst)
    for table in ("parent", "child"):
        if table not in pos:
            assert rk.rows(dst, table, rk.COLS[table]) == []
            continue
        assert rk.rows(dst, table, rk.COLS[table]) == replayed(src, cfg, table, pos[table])


# Each test kills one run at each of its steps in turn, in the order a round reaches them,
# while the writers write all along: after each kill a run commits what the killed one left
# (checked not ahead), and the last one, after the writers, converges. One setup and one
# writers' start for all the kills of a path, instead of one per kill.
@pytest.mark.parametrize("pair", VENDORS, indirect=True)
def test_killed_at_each_step_the_next_run_converges(pair: Any, tmp_path: Path, spark: Any) -> None:
    killed_and_rerun(pair, list(STEPS), tmp_path, spark)


DIRECT_STEPS = ["after_read", "after_stage", "before_commit"]


@pytest.mark.parametrize("pair", ["direct"], indirect=True)
def test_killed_on_the_direct_path_the_next_run_converges(
    pair: Any, tmp_path: Path, spark: Any
) -> None:
    killed_and_rerun(pair, DIRECT_STEPS, tmp_path, spark, DIRECT)


@pytest.mark.parametrize("pair", ["direct-mariadb"], indirect=True)
def test_killed_on_the_direct_path_into_mariadb_the_next_run_converges(
    pair: Any, tmp_path: Path, spark: Any
) -> None:
    killed_and_rerun(pair, DIRECT_STEPS, tmp_path, spark, DIRECT)


@pytest.mark.parametrize("pair", ["direct-maria-pg"], indirect=True)
def test_killed_in_a_typed_copy_task_from_mariadb_the_next_run_converges(
    pair: Any, tmp_path: Path, spark: Any
) -> None:
    """Killed in a copy task of MariaDB's records, parsed into the typed staging at the
    target, before its commit: the other tasks' committed operations are not applied,
    the next run stages the round again (typed) and converges."""
    killed_and_rerun(pair, ["direct_typed_task"], tmp_path, spark, DIRECT)


@pytest.mark.parametrize("pair", ["direct-mymy"], indirect=True)
def test_killed_after_a_task_of_mariadb_into_mariadb_the_next_run_converges(
    pair: Any, tmp_path: Path, spark: Any
) -> None:
    """Killed once a window's task has committed its net operations into the round's typed
    staging (the round's count check and apply not reached): the next run stages and
    applies afresh, and the killed round's typed staging is dropped after its commit."""
    killed_and_rerun(pair, ["round_after_task"], tmp_path, spark, DIRECT)


def killed_and_rerun(
    pair: Any, steps: list[str], tmp_path: Path, spark: Any, extra: dict[str, Any] | None = None
) -> None:
    src, dst = pair
    rk.setup_source(src)
    rk.setup_target(dst)
    cfg = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst, extra=extra)
    ch = Channel.from_file(cfg)
    ch.install()
    # stopped after the last kill (mid-transaction too: the oracle is the source's end state)
    writers = rk.run_writers(src.vendor, src.url, 3, 900)
    rounds: list[dict[str, Any]] = []  # of the runs that committed
    try:
        # the first killed run must find changes to read, stage and apply
        assert rk.wait_until(
            lambda: int(src.query("SELECT count(*) FROM parent")[0][0]) > 0, 120, 0.2
        )
        for step in steps:
            killed = rk.syncpoint(cfg, "run", "--once", env={failpoints.ENV: step})
            assert killed.returncode == -signal.SIGKILL, (step, killed.stderr[-2000:])
            assert_not_ahead(src, dst, cfg)
            # a run that commits straight after what this kill left (in this process: no
            # JVM to start), so each step's leftovers are taken up by a committing round
            # too, not only by the next killed one
            rounds += ch.run(once=True, spark=spark).rounds
            assert_not_ahead(src, dst, cfg)
    finally:
        for w in writers:
            w.terminate()
        for w in writers:
            w.join(timeout=60)
    assert_not_ahead(src, dst, cfg)
    rounds += ch.run(once=True, spark=spark).rounds
    if extra:  # rounds that read rows staged them on the direct path ("": none read)
        assert {r["staging"] for r in rounds} <= {"bulk", ""}
        assert {r["direct"] for r in rounds if r["changes"]} == {True}
        if dst.vendor == "postgres":  # the killed rounds' typed stagings went with the apply
            left = "SELECT count(*) FROM pg_class WHERE relname LIKE 'repl\\_rstage\\_%'"
            assert dst.query(left) == [(0,)]
            if src.vendor == "mariadb":  # the kills met typed rounds
                assert all(r["typed"] for r in rounds if r["changes"])
        else:  # MariaDB's typed stagings: dropped after each commit, the killed ones' too
            left = (
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = "
                "DATABASE() AND table_name LIKE 'repl\\_rstage\\_%'"
            )
            assert dst.query(left) == [(0,)]
            # the kills met typed rounds, from either source
            assert all(r["typed"] for r in rounds if r["changes"])
    ok, why = rk.same(src, dst)
    assert ok, why
    assert rk.duplicates(dst) == []
    assert_not_ahead(src, dst, cfg)


def _kill_target_sessions(dst: Any) -> None:
    """What a target restart does to a round: every session of the target database dies."""
    if dst.vendor == "postgres":
        dst.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = '{dst.name}' AND pid <> pg_backend_pid()"
        )
    else:
        for (pid,) in dst.query(
            f"SELECT id FROM information_schema.PROCESSLIST WHERE db = '{dst.name}' "
            "AND id <> CONNECTION_ID()"
        ):
            dst.execute(f"KILL CONNECTION {int(pid)}")


@pytest.mark.parametrize("pair", ["postgres", "mariadb", "direct"], indirect=True)
def test_target_sessions_killed_in_a_round(
    pair: Any, tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:  # fmt: skip
    """The target's sessions killed after the staging, then (the changes still waiting) in
    the next run before the COMMIT: each run fails with nothing ahead, and the one after
    them converges."""
    src, dst = pair
    rk.setup_source(src)
    rk.setup_target(dst)
    direct = DIRECT if request.node.callspec.params["pair"] == "direct" else None
    cfg = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst, extra=direct)
    ch = Channel.from_file(cfg)
    ch.install()
    for w in rk.run_writers(src.vendor, src.url, 2, 3):
        w.join()
    real = failpoints.hit
    for step in ("after_stage", "before_commit"):

        def restart_at(name: str, step: str = step) -> None:
            if name == step:
                _kill_target_sessions(dst)
            real(name)

        monkeypatch.setattr(failpoints, "hit", restart_at)
        with pytest.raises(TransientError):
            ch.run(once=True, spark=spark)
        monkeypatch.setattr(failpoints, "hit", real)
        assert_not_ahead(src, dst, cfg)
    ch.run(once=True, spark=spark)
    ok, why = rk.same(src, dst)
    assert ok, why
    assert rk.duplicates(dst) == []
