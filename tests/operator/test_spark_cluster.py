"""A real standalone Spark cluster: a master and two workers on 127.0.0.1 started from the pip
``pyspark`` package (``bin/spark-class ...deploy.master.Master`` / ``...deploy.worker.Worker``),
``spark.master: spark://127.0.0.1:PORT`` in the channel, rounds of ``run --follow`` through it
(PostgreSQL to PostgreSQL), the JDBC driver jar shipped to the executors' work folders, and the
cluster stopped."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import syncpoint
from tests.conftest import make_pg
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.3)
    return False


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[dict[str, Any]]:
    import pyspark

    home = Path(pyspark.__file__).parent
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1"}
    env["SPARK_LOG_DIR"] = str(tmp_path / "logs")
    port = free_port()
    procs: list[subprocess.Popen[bytes]] = []
    workers = []

    def start(args: list[str], name: str) -> None:
        log = open(tmp_path / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        procs.append(
            subprocess.Popen(
                [str(home / "bin" / "spark-class"), *args], env=env, stdout=log, stderr=log
            )
        )

    start(
        [
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--webui-port",
            str(free_port()),
        ],
        "master",
    )
    try:
        assert wait_port(port, 120), (tmp_path / "master.log").read_text(errors="replace")
        for n in (1, 2):
            work = tmp_path / f"worker{n}"
            work.mkdir()
            workers.append(work)
            start(
                [
                    "org.apache.spark.deploy.worker.Worker",
                    f"spark://127.0.0.1:{port}",
                    "--host",
                    "127.0.0.1",
                    "--cores",
                    "1",
                    "--memory",
                    "1g",
                    "--work-dir",
                    str(work),
                    "--webui-port",
                    str(free_port()),
                ],
                f"worker{n}",
            )
        yield {"master": f"spark://127.0.0.1:{port}", "workers": workers, "dir": tmp_path}
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


@pytest.mark.long(60)
def test_rounds_run_through_a_standalone_cluster_with_two_workers(
    cluster: dict[str, Any], tmp_path: Path
) -> None:
    gens = [make_pg(), make_pg()]
    src, dst = (next(g) for g in gens)
    proc: Any = None
    try:
        rk.setup_source(src)
        rk.setup_target(dst, audit=False)
        src_dir = str(Path(syncpoint.__file__).parents[1])
        cfg = rk.write_config(
            tmp_path / "sp.yaml",
            {"src": src},
            dst,
            extra={
                "spark": {
                    "master": cluster["master"],
                    "driver_round_max": 0,  # every round through the cluster
                    "conf": {
                        "spark.driver.host": "127.0.0.1",
                        "spark.executor.memory": "512m",
                        "spark.executor.cores": "1",
                        "spark.cores.max": "2",
                        "spark.sql.shuffle.partitions": "2",
                        # executors run this checkout's code and this Python
                        "spark.executorEnv.PYTHONPATH": src_dir,
                        "spark.pyspark.python": sys.executable,
                    },
                }
            },
        )
        assert rk.syncpoint(cfg, "install").returncode == 0
        sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1'), (2, 'b', 'v2')")
        sql(src, "INSERT INTO child (id, parent_id, qty, ver) VALUES (10, 1, 3, 'c1')")
        exe = str(Path(sys.executable).with_name("syncpoint"))
        env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"}
        env["SYNCPOINT_LOG_FILE"] = str(tmp_path / "driver.log")
        env.pop("SYNCPOINT_FAILPOINT", None)
        out = open(tmp_path / "run.out", "w")  # noqa: SIM115 - closed below
        proc = subprocess.Popen(
            [exe, "-c", str(cfg), "run", "--follow", "--interval", "0.5"],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )

        def converged() -> bool:
            assert proc.poll() is None, (tmp_path / "run.out").read_text()
            return rk.same(src, dst)[0] and len(rk.rows(dst, "parent")) > 0

        assert rk.wait_until(converged, 300, 1.0), (tmp_path / "driver.log").read_text()[-3000:]
        # a second round of changes through the same cluster
        sql(
            src,
            "UPDATE parent SET name = 'a2', ver = 'v3' WHERE id = 1",
            "DELETE FROM child WHERE id = 10",
            "INSERT INTO parent (id, name, ver) VALUES (3, 'c', 'v4')",
        )
        assert rk.wait_until(lambda: converged() and len(rk.rows(dst, "parent")) == 3, 300, 1.0)
        assert rk.rows(dst, "child") == []
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0
        out.close()
        lines = (tmp_path / "run.out").read_text().splitlines()
        assert any("changes read" in ln for ln in lines)
        # the executors ran on the workers, with the JDBC driver jar shipped to them
        shipped = [p for w in cluster["workers"] for p in w.rglob("postgresql*.jar")]
        assert shipped, "no JDBC jar reached an executor's work folder"
        apps = {p.parts[-3] for p in shipped}
        assert len(apps) == 1 and next(iter(apps)).startswith("app-")
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        for g in gens:
            next(g, None)
