"""One ``run --follow`` per channel and application: a second one is refused at its start
(exit 1, naming the host and process that holds the channel), a SIGKILLed holder blocks
nobody, and ``status`` says whether a follower runs. The lock is the server's (PostgreSQL's
advisory lock) or the kernel's (a SQLite file's ``flock``)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from syncpoint.config import load as load_config
from syncpoint.errors import FollowerBusy
from syncpoint.ops.follower import follower_status, holding
from tests.operator.test_outage_page import give_back, take_away
from tests.operator.test_serve_page import metric_values
from tests.system import roundkit as rk


def follower(cfg: Path, tmp_path: Path, *more: str) -> subprocess.Popen[str]:
    """A ``run --follow``, its output in ``follow-PID.log`` (read by ``output``)."""
    exe = str(Path(sys.executable).with_name("syncpoint"))
    env = {**os.environ, "SYNCPOINT_LOG_FILE": str(tmp_path / "spark.log")}
    env.pop("SYNCPOINT_FAILPOINT", None)
    log = open(tmp_path / "follow.log", "a", encoding="utf-8")  # noqa: SIM115 - the child's
    proc = subprocess.Popen(
        [exe, "-c", str(cfg), "run", "--follow", "--interval", "0.5", *more],
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    log.close()
    return proc


def output(tmp_path: Path) -> str:
    return (tmp_path / "follow.log").read_text(encoding="utf-8", errors="replace")


METRICS = r"metrics: (http://\S+/metrics)"
CH = (("channel", "shop"),)


def wait_metrics(url: str, ok: Any, proc: Any, tmp_path: Path) -> dict[Any, float]:
    deadline = time.monotonic() + 180
    values: dict[Any, float] = {}
    while time.monotonic() < deadline:
        try:
            values = metric_values(url)
        except OSError:  # a scrape cut short under load: the follower must still live
            values = {}
        assert proc.poll() is None, output(tmp_path)[-3000:]  # the follower lives on
        if ok(values):
            return values
        time.sleep(0.5)
    raise AssertionError(f"metrics never showed it: {values}")


def wait_for_holder(cfg: Any, pid: int) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        st = follower_status(cfg)["cen"]
        if st["running"] and f"pid {pid}" in st["holder"]:
            return st  # type: ignore[no-any-return]
        time.sleep(0.2)
    raise AssertionError(f"no follower {pid} seen: {follower_status(cfg)}")


@pytest.mark.spark
def test_a_second_follower_is_refused_and_a_killed_one_blocks_nobody(tmp_path: Path) -> None:
    """... and through an outage of the target the follower counts its failed rounds, then
    takes its lock again (the server ended its session)."""
    from tests.conftest import make_pg

    gens = [make_pg(), make_pg()]
    src, dst = (next(g) for g in gens)
    procs: list[subprocess.Popen[str]] = []
    try:
        rk.setup_source(src)
        path = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst)
        cfg = load_config(path)
        assert rk.syncpoint(path, "install").returncode == 0
        assert follower_status(cfg)["cen"] == {"running": False, "holder": None}
        first = follower(path, tmp_path, "--metrics-port", "0", "--metrics-interval", "0.5")
        procs.append(first)
        deadline = time.monotonic() + 120
        while not (m := re.search(METRICS, output(tmp_path))):
            assert time.monotonic() < deadline and first.poll() is None, output(tmp_path)
            time.sleep(0.2)
        url = m.group(1)
        st = wait_for_holder(cfg, first.pid)
        assert socket.gethostname() in st["holder"]
        text = rk.syncpoint(path, "status").stdout
        assert f"cen: a follower is running: {socket.gethostname()} pid {first.pid}" in text

        t0 = time.monotonic()
        second = rk.syncpoint(path, "run", "--follow", "--interval", "0.5", timeout=120)
        refused_s = time.monotonic() - t0  # the whole process, Python's start included
        assert second.returncode == 1, second.stderr
        assert "another follower" in second.stderr
        assert f"{socket.gethostname()} pid {first.pid}" in second.stderr
        assert first.poll() is None  # the first goes on
        t0 = time.monotonic()
        with pytest.raises(FollowerBusy, match=f"pid {first.pid}"):
            with holding(cfg):
                pass
        lock_s = time.monotonic() - t0
        print(
            f"second follower refused: {refused_s:.2f} s process start to exit, "
            f"{lock_s:.3f} s the lock"
        )

        # the target goes away (its sessions ended, the lock's too), then comes back
        take_away(dst.name)
        failed = ("syncpoint_rounds_failed_total", (*CH, ("group", "g"), ("integrate", "cen")))
        down = ("syncpoint_location_up", (*CH, ("location", "cen")))
        values = wait_metrics(
            url, lambda v: v.get(failed, 0) >= 1 and v.get(down) == 0, first, tmp_path
        )
        assert values[("syncpoint_follower_running", (*CH, ("integrate", "cen")))] in (0, 1)
        give_back(dst.name)
        wait_for_holder(cfg, first.pid)  # the follower took its lock again
        assert first.poll() is None

        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        third = follower(path, tmp_path)  # the server ended the killed one's session
        procs.append(third)
        wait_for_holder(cfg, third.pid)
        third.send_signal(signal.SIGTERM)
        assert third.wait(timeout=120) == 0
        assert follower_status(cfg)["cen"]["running"] is False
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        give_back(dst.name)
        for g in gens:
            next(g, None)


@pytest.mark.parametrize("vendor", ["sqlite", "mariadb"])
def test_the_lock_of_a_sqlite_or_mariadb_target_is_freed_by_a_kill(
    tmp_path: Path, vendor: str
) -> None:
    """SQLite: a ``flock`` on a file beside the database; MariaDB: ``GET_LOCK``, its holder
    named by the statement its connection runs."""
    from tests.conftest import make_mariadb, make_sqlite

    gens = [make_sqlite(tmp_path), make_sqlite(tmp_path) if vendor == "sqlite" else make_mariadb()]
    src, dst = (next(g) for g in gens)
    try:
        path = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst)
        cfg = load_config(path)
        holder = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys, time\n"
                "from syncpoint.config import load as load_config\n"
                "from syncpoint.ops.follower import holding\n"
                "with holding(load_config(sys.argv[1])):\n"
                "    print('held', flush=True)\n"
                "    time.sleep(600)\n",
                str(path),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            with pytest.raises(FollowerBusy, match=f"{socket.gethostname()} pid {holder.pid}"):
                with holding(cfg):
                    pass
            assert follower_status(cfg)["cen"]["running"] is True
        finally:
            holder.send_signal(signal.SIGKILL)
            holder.wait()
        # the kernel drops the killed process's lock; MariaDB sees its connection gone when
        # the second its statement sleeps is over
        deadline = time.monotonic() + 30
        while True:
            try:
                with holding(cfg):
                    assert follower_status(cfg)["cen"]["running"] is True
                break
            except FollowerBusy:
                assert time.monotonic() < deadline, "a killed holder still blocks"
                time.sleep(0.2)
        assert follower_status(cfg)["cen"]["running"] is False
    finally:
        for g in gens:
            next(g, None)


def test_a_mariadb_holder_that_names_no_process_is_read_again_before_refusing(
    tmp_path: Path,
) -> None:
    """MariaDB's holder names its process only while its connection runs the naming
    statement: between two of them, or after a SIGKILLed follower's last one until the
    server closes its connection, it is a bare connection. A follower started then waits
    for the holder to name itself or go, rather than being refused by a dead process; a
    holder that stays nameless is refused, the connection named."""
    import threading

    from syncpoint import vendors
    from syncpoint.ops.follower import _locks
    from tests.conftest import make_mariadb, make_sqlite

    gens = [make_sqlite(tmp_path), make_mariadb()]
    src, dst = (next(g) for g in gens)
    try:
        cfg = load_config(rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst))
        (name,) = [lock.name for lock in _locks(cfg)]  # type: ignore[attr-defined]

        def bare_holder() -> Any:
            conn = vendors.connect(dst.url, autocommit=True)
            with conn.cursor() as cur:
                cur.execute("SELECT GET_LOCK(%s, 0)", (name,))
                assert cur.fetchone()[0] == 1
            return conn

        held = bare_holder()
        threading.Timer(1.0, held.close).start()  # the server sees it gone a second later
        with holding(cfg):
            assert follower_status(cfg)["cen"]["running"] is True
        held = bare_holder()
        try:
            with pytest.raises(FollowerBusy, match=r"connection \d+ of "):
                with holding(cfg):
                    pass
        finally:
            held.close()
    finally:
        for g in gens:
            next(g, None)
