"""A snapshot killed with SIGKILL (at named failpoints inside a chunk: staged, and applied but
not committed; after the hand-over; and at a random moment) while writers keep changing the
table: each next ``snapshot`` resumes without copying the finished chunks again, ``run``
refuses the table meanwhile, and after the last one and a round the target equals the
source, every key once."""

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

from tests.system import roundkit as rk
from tests.system import snapkit as sk

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.timeout(1800)]

KILLS = [
    "random",
    "snapshot_after_stage@2",
    "snapshot_before_commit@1",
    "snapshot_after_handover",
]
ENV = {"SYNCPOINT_SNAPSHOT_CHUNK_ROWS": "2000"}


def copied(cfg: Path) -> dict[str, Any]:
    r = rk.syncpoint(cfg, "status", "--json")
    rows = json.loads(r.stdout)["snapshots"]["cen"]
    return rows[0] if rows else {"rows_copied": 0, "state": None}


def test_snapshot_killed_at_each_step_and_at_random_converges(
    pg_db: Any, sqlite_db: Any, tmp_path: Path
) -> None:
    sk.seed(pg_db, 10_000)
    cfg = sk.config(tmp_path / "sp.yaml", {"src": pg_db}, sqlite_db)
    assert rk.syncpoint(cfg, "install").returncode == 0
    procs = sk.start_writers("postgres", pg_db.url, 3, 10_000, seconds=1800)
    rng = random.Random(9)
    try:
        before = -1
        for kill in KILLS:
            env = {**os.environ, **ENV}
            exe = str(Path(sys.executable).with_name("syncpoint"))
            if kill == "random":
                p = subprocess.Popen([exe, "-c", str(cfg), "snapshot"], env=env)
                time.sleep(rng.uniform(8, 14))
                p.send_signal(signal.SIGKILL)
                p.wait()
            else:
                r = rk.syncpoint(
                    cfg, "snapshot", env={**ENV, "SYNCPOINT_FAILPOINT": kill}, timeout=900
                )
                assert r.returncode == -signal.SIGKILL, (kill, r.stdout, r.stderr)
            row = copied(cfg)
            # the next run resumes: what was committed stays, nothing starts over
            assert row["rows_copied"] >= max(before, 0), (kill, row)
            before = row["rows_copied"]
            if kill != "snapshot_after_handover":
                run = rk.syncpoint(cfg, "run", "--once")
                assert run.returncode == 1 and "snapshot" in run.stderr
        assert copied(cfg)["state"] == "done"
        r = rk.syncpoint(cfg, "snapshot", env=ENV)
        assert "already loaded" in r.stdout, r.stdout + r.stderr
    finally:
        sk.stop(procs)
    r = rk.syncpoint(cfg, "run", "--once")
    assert r.returncode == 0, r.stderr
    ok, detail = sk.same(pg_db, sqlite_db)
    assert ok, detail
    assert sk.keys_unique(sqlite_db)
