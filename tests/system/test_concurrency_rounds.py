"""Concurrency (docs/guarantees.md §1, §2): eight writer processes for 15 s (transactions that stay
open for seconds, that roll back, rows that refer to each other across tables) while
``syncpoint run --follow`` applies; a checker samples the target (foreign keys enforced)
for orphan rows meanwhile. At the end the target equals the source row for row, the
target's audit shows no row version applied twice, ``status`` shows no backlog, and the
follower stops cleanly on SIGTERM. Then two followers with the same application name,
started together: one runs, the other is refused at its start."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_mariadb, make_pg, make_sqlite
from tests.system import roundkit as rk

pytestmark = [pytest.mark.spark, pytest.mark.slow]
VENDORS = ["postgres", "mariadb", "sqlite"]


@pytest.fixture
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    vendor = request.param
    make = {"postgres": make_pg, "mariadb": make_mariadb}.get(vendor)
    gens = [make(), make()] if make else [make_sqlite(tmp_path), make_sqlite(tmp_path)]
    src, dst = (next(g) for g in gens)
    yield src, dst
    for g in gens:
        next(g, None)


class Checker(threading.Thread):
    """Samples the target while rounds are applied: orphans seen, samples taken."""

    def __init__(self, dst: Any):
        super().__init__(daemon=True)
        self.dst, self.samples, self.orphans, self.done = dst, 0, 0, threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            try:
                self.orphans += rk.orphans(self.dst)
                self.samples += 1
            except Exception:  # noqa: BLE001 - a locked SQLite file: sample again
                pass
            time.sleep(0.2)


def status(cfg: Path) -> dict[str, Any]:
    r = rk.syncpoint(cfg, "status", "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["integrate"]["cen"]


def converge(src: Any, dst: Any) -> tuple[bool, str]:
    rk.wait_until(lambda: rk.same(src, dst)[0], 120, step=2)
    return rk.same(src, dst)


@pytest.mark.parametrize("pair", VENDORS, indirect=True)
def test_eight_writers_while_run_follow_applies(pair: Any, tmp_path: Path) -> None:
    src, dst = pair
    rk.setup_source(src)
    rk.setup_target(dst)  # foreign keys at the target: an orphan could not commit
    cfg = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst)
    assert rk.syncpoint(cfg, "install").returncode == 0
    follower = rk.start_syncpoint(
        cfg, "run", "--follow", "--interval", "0.5", log=tmp_path / "follow.log"
    )
    checker = Checker(dst)
    checker.start()
    try:
        for w in rk.run_writers(src.vendor, src.url, 8, 15):
            w.join()
        ok, why = converge(src, dst)
        assert ok, why
    finally:
        checker.done.set()
        follower.send_signal(signal.SIGTERM)
        rc = follower.wait(120)
    log = (tmp_path / "follow.log").read_text(errors="replace")
    assert rc == 0, log[-3000:]
    assert checker.samples > 10 and checker.orphans == 0
    assert rk.duplicates(dst) == []
    assert int(src.query("SELECT count(*) FROM parent")[0][0]) > 10  # the writers did work
    tables = status(cfg)["tables"]
    assert [(t["backlog"], t["stopped"]) for t in tables] == [(0, None), (0, None)]


@pytest.mark.parametrize("pair", ["postgres", "mariadb"], indirect=True)
def test_two_followers_with_one_application_name(pair: Any, tmp_path: Path) -> None:
    src, dst = pair
    rk.setup_source(src)
    rk.setup_target(dst)
    cfg = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst)
    assert rk.syncpoint(cfg, "install").returncode == 0
    followers = [
        rk.start_syncpoint(
            cfg, "run", "--follow", "--interval", "0.2", log=tmp_path / f"follow{i}.log"
        )
        for i in range(2)
    ]
    try:
        for w in rk.run_writers(src.vendor, src.url, 4, 10):
            w.join()
        if all(f.poll() is not None for f in followers):  # both gave way: one more round
            assert rk.syncpoint(cfg, "run", "--once").returncode == 0
        ok, why = converge(src, dst)
        assert ok, why
    finally:
        for f in followers:
            if f.poll() is None:
                f.send_signal(signal.SIGTERM)
        codes = [f.wait(120) for f in followers]
    logs = [(tmp_path / f"follow{i}.log").read_text(errors="replace") for i in range(2)]
    assert rk.duplicates(dst) == []
    # one follower ran until SIGTERM (0); the other was refused at its start (1, naming it)
    assert sorted(codes) == [0, 1], logs
    refused = logs[codes.index(1)]
    assert "another follower" in refused and " pid " in refused, refused[-2000:]
