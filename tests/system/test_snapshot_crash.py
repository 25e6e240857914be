"""A snapshot killed with SIGKILL again and again (into PostgreSQL over two snapshots: at the
named failpoints inside a chunk, staged, and applied but not committed; at seven random
moments; after each hand-over; into SQLite the named ones and one random) while writers
keep changing the table: each next ``snapshot`` resumes without copying the finished chunks
again, ``run`` refuses the table meanwhile, and after the last one and a round the target
equals the source, every key once. Into SQLite (the JDBC path) and into PostgreSQL (the
direct path: COPY streamed into a typed staging)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from syncpoint.ops.channel import Channel
from tests.conftest import make_pg
from tests.system import roundkit as rk
from tests.system import snapkit as sk

pytestmark = [
    pytest.mark.spark,
    pytest.mark.slow,
    pytest.mark.timeout(1800),
    pytest.mark.long(125, **{"postgres-random": 115, "sqlite": 90}),
]

# Into PostgreSQL (the direct path), eleven kills over two snapshots of the same table (two
# tests of about half the time each, so that the suite's two processes can share them; each
# ends with a kill after the hand-over): the two named failpoints inside a chunk, and seven
# random moments of a running copy in all (a random delay after a chunk was seen to commit,
# so a kill can fall anywhere: during a read, a staging write, an apply). Chunks of 300 rows
# (bounds from the data: the key is the partition column) of a table the writers keep
# growing give dozens of chunks: enough left for every kill however fast the machine is.
KILLS = {
    "postgres-named": [
        "random",
        "snapshot_after_stage@2",
        "random",
        "snapshot_before_commit@1",
        "random",
        "snapshot_after_handover",
    ],
    "postgres-random": ["random", "random", "random", "random", "snapshot_after_handover"],
    # Into SQLite (the JDBC path, which the PostgreSQL target's kills do not take) the
    # named steps and one random kill: the same transaction, the suite's time kept
    "sqlite": [
        "snapshot_after_stage@2",
        "random",
        "snapshot_before_commit@1",
        "snapshot_after_handover",
    ],
}
# on Spark's paths (the process would copy tables this small itself)
ENV = {"SYNCPOINT_SNAPSHOT_CHUNK_ROWS": "300", "SYNCPOINT_SNAPSHOT_DRIVER_ROWS": "0"}
# Twenty chunks before the writers' rows for the PostgreSQL target's six and five kills, ten
# for SQLite's four (its JDBC chunks are the slow ones: each one copied after the last kill
# adds seconds), still several behind its random kill. The writers change even keys only:
# an odd row reaches the target only through the copy, so a chunk that a resume lost shows
# (a row changed after t0 comes with the rounds after the hand-over however the copy went).
ROWS = {"postgres-named": 6_000, "postgres-random": 6_000, "sqlite": 3_000}
# The writers rest up to 0.1 s between transactions: together still about seventeen
# transactions a second (two changes each on average: updates, deletes, inserts, key moves)
# all through every copy, but no longer a hundred, which grew the table by some twelve
# thousand rows over the SQLite case (forty chunks more for its last copy, a round of
# changes more after it) and proved nothing the smaller growth does not
PAUSE = 0.1


def copied(cfg: Path) -> dict[str, Any]:
    r = rk.syncpoint(cfg, "status", "--json")
    rows = json.loads(r.stdout)["snapshots"]["cen"]
    return rows[0] if rows else {"rows_copied": 0, "state": None}


def state(dst: Any) -> tuple[int, int]:
    """(rows committed, where the next chunk starts) of the snapshot, read straight from its
    state table; (-1, -1) before it exists. The second moves with every committed chunk,
    empty ones included (writers' keys leave gaps in the key range)."""
    try:
        rows = dst.query("SELECT rows_copied, next_lo FROM repl_snapshots")
    except Exception:  # noqa: BLE001 - not created yet
        return -1, -1
    if not rows:
        return -1, -1
    copied, next_lo = rows[0]
    return int(copied), -1 if next_lo is None else int(next_lo)


def kill_at_random(cfg: Path, dst: Any, env: dict[str, str], rng: random.Random) -> None:
    """Start a snapshot, wait until it commits a chunk more, then kill it a random moment
    later (it must still be running then: each chunk is a small part of the copy)."""
    exe = str(Path(sys.executable).with_name("syncpoint"))
    seen = state(dst)[1]
    p = subprocess.Popen([exe, "-c", str(cfg), "snapshot"], env=env)
    deadline = time.monotonic() + 600
    while state(dst)[1] <= seen and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(rng.uniform(0.0, 0.6))
    assert p.poll() is None, "the snapshot ended before its kill: make the chunks smaller"
    p.send_signal(signal.SIGKILL)
    p.wait()


@pytest.fixture(params=list(KILLS))
def target(request: pytest.FixtureRequest, sqlite_db: Any) -> Any:
    if request.param == "sqlite":
        yield sqlite_db
        return
    gen = make_pg()
    yield next(gen)
    next(gen, None)


def test_snapshot_killed_at_each_step_and_at_random_converges(
    pg_db: Any, target: Any, tmp_path: Path, request: pytest.FixtureRequest, spark: Any
) -> None:
    param = request.node.callspec.params["target"]
    sk.seed(pg_db, ROWS[param])
    cfg = sk.config(tmp_path / "sp.yaml", {"src": pg_db}, target)
    assert rk.syncpoint(cfg, "install").returncode == 0
    procs = sk.start_writers(
        "postgres", pg_db.url, 3, ROWS[param], seconds=1800, even=True, pause=PAUSE
    )
    kills = KILLS[param]
    rng = random.Random(9 + len(kills))
    try:
        before = -1
        for n, kill in enumerate(kills):
            if kill == "random":
                kill_at_random(cfg, target, {**os.environ, **ENV}, rng)
            else:
                r = rk.syncpoint(
                    cfg, "snapshot", env={**ENV, "SYNCPOINT_FAILPOINT": kill}, timeout=900
                )
                assert r.returncode == -signal.SIGKILL, (kill, r.stdout, r.stderr)
            now = state(target)[0]
            # the next run resumes: what was committed stays, nothing starts over
            assert now >= max(before, 0), (kill, now, before)
            before = now
            if n == 0:  # meanwhile rounds refuse the table (once is enough to show it)
                run = rk.syncpoint(cfg, "run", "--once")
                assert run.returncode == 1 and "snapshot" in run.stderr
        assert copied(cfg)["state"] == "done"
        r = rk.syncpoint(cfg, "snapshot", env=ENV)
        assert "already loaded" in r.stdout, r.stdout + r.stderr
    finally:
        sk.stop(procs)
    # the round after the snapshots in this process (its Spark session is up: no JVM start)
    report = Channel.from_file(cfg).run(once=True, spark=spark)
    assert not report.stopped and not report.errors, report
    ok, detail = sk.same(pg_db, target)
    assert ok, detail
    assert sk.keys_unique(target)
