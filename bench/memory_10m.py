"""Memory of one ``syncpoint run --once`` over 10 million changes: the driver JVM's heap
and the Python process's peak resident set, measured while it runs, and the target
checked against the source afterwards.

On a private PostgreSQL 15 instance (``private_pg``: 10 million captured changes write
gigabytes of WAL and queue, which the shared cluster is spared), ``orders`` (W1's table)
gets W1's proportions of ``--changes`` changes made by ``generate_series`` inside
PostgreSQL in a few big captured statements (inserts in batches of 2.5 million, one
UPDATE, one DELETE). Then one ``syncpoint run --once`` runs in a subprocess; its JVM (the
descendant running ``SparkSubmit``) is sampled with ``jstat -gc`` every second (heap used:
survivor + eden + old; old generation apart, the part that outlives collections), and the
Python process's ``VmHWM`` (peak RSS) is read from ``/proc`` until it exits. Prints the
figures; ``--json`` prints them as one JSON object on the last line instead.

    .venv/bin/python bench/memory_10m.py [--changes 10000000] [--master local[2]]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).parent))
from apply_pg import ORDERS, channel_file  # noqa: E402
from peers_pg import split  # noqa: E402
from private_pg import private_cluster  # noqa: E402

BIN = Path(sys.executable).parent
BATCH = 2_500_000
# fewer checkpoints while gigabytes of queue are written
PRIVATE_SETTINGS = {"max_wal_size": "'8GB'"}
INSERT = (
    "INSERT INTO orders SELECT g, g %% 1000, (g %% 100000) / 100.0, 'new', 'note ' || g, "
    "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second' "
    "FROM generate_series(%s::bigint, %s) g"
)
# an order-free checksum: string_agg of millions of rows would pass PostgreSQL's 1 GB limit
SUM = "SELECT count(*), sum(('x' || substr(md5(o::text), 1, 15))::bit(60)::bigint) FROM orders o"


def make_changes(src: Any, changes: int) -> float:
    n_ins, n_upd, n_del = split(changes)
    t = time.perf_counter()
    for lo in range(1, n_ins + 1, BATCH):
        src.execute(INSERT, (lo, min(lo + BATCH - 1, n_ins)))
    src.execute("UPDATE orders SET amount = amount + 1, status = 'paid' WHERE id <= %s", (n_upd,))
    src.execute("DELETE FROM orders WHERE id > %s", (n_ins - n_del,))
    return time.perf_counter() - t


def descendants(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out


def spark_jvm(pid: int) -> int | None:
    """The driver JVM: the descendant running SparkSubmit, not spark-class's short-lived
    launcher JVM (``org.apache.spark.launcher.Main``) that names it too."""
    for k in descendants(pid):
        try:
            cmd = Path(f"/proc/{k}/cmdline").read_bytes()
            if b"SparkSubmit" in cmd and b"launcher.Main" not in cmd:
                return k
        except OSError:
            pass
    return None


def status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


class Sampler:
    """Peaks of the run's Python VmHWM, its JVM's heap (``jstat -gc PID 1000``) and the
    JVM's VmHWM, gathered by a thread until the run exits."""

    def __init__(self, proc: subprocess.Popen[bytes]):
        self.proc = proc
        self.py_hwm = self.jvm_hwm = 0
        self.heap = self.old = self.heap_max = 0.0  # KiB
        self.survived = 0.0  # KiB: survivors + old generation, sampled after a collection
        self.collections = 0.0
        self.jvm: int | None = None
        self.samples: list[tuple[float, float, float]] = []  # t, heap used, old used
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        t0 = time.perf_counter()
        jstat: subprocess.Popen[str] | None = None
        tried = 0.0
        while self.proc.poll() is None:
            try:
                self.py_hwm = max(self.py_hwm, status_kib(self.proc.pid, "VmHWM"))
                if self.jvm is None:
                    self.jvm = spark_jvm(self.proc.pid)
                # jstat cannot attach before the JVM has published its counters: retried
                if (
                    self.jvm is not None
                    and shutil.which("jstat")
                    and (jstat is None or jstat.poll() is not None)
                    and time.perf_counter() - tried > 3
                ):
                    tried = time.perf_counter()
                    if Path(f"/proc/{self.jvm}").exists():
                        jstat = subprocess.Popen(
                            ["jstat", "-gc", str(self.jvm), "1000"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                        )  # fmt: skip
                        threading.Thread(target=self._jstat, args=(jstat, t0), daemon=True).start()
                if self.jvm is not None:
                    self.jvm_hwm = max(self.jvm_hwm, status_kib(self.jvm, "VmHWM"))
            except OSError:
                pass
            time.sleep(0.5)
        if jstat is not None and jstat.poll() is None:
            jstat.terminate()
            jstat.wait()

    def _jstat(self, jstat: subprocess.Popen[str], t0: float) -> None:
        assert jstat.stdout is not None
        cols: list[str] = []
        for line in jstat.stdout:
            parts = line.split()
            if parts and parts[0] == "S0C":
                cols = parts
                continue
            if not cols or len(parts) != len(cols):
                continue
            v = dict(zip(cols, (float(p) for p in parts), strict=True))
            used = v["S0U"] + v["S1U"] + v["EU"] + v["OU"]
            self.heap = max(self.heap, used)
            self.old = max(self.old, v["OU"])
            self.heap_max = max(self.heap_max, v["S0C"] + v["S1C"] + v["EC"] + v["OC"])
            if v["YGC"] + v["FGC"] > self.collections:  # what outlived the last collection
                self.collections = v["YGC"] + v["FGC"]
                self.survived = max(self.survived, v["S0U"] + v["S1U"] + v["OU"])
            self.samples.append((time.perf_counter() - t0, used, v["OU"]))

    def join(self) -> None:
        self.thread.join()


def max_heap_mib(cfg: Path) -> str:
    """The driver's -Xmx as Spark sets it (``spark.driver.memory``, 1g unless configured)."""
    conf = json.loads(cfg.read_text())["spark"].get("conf", {})
    return str(conf.get("spark.driver.memory", "1g (Spark's default)"))


def measure(base: str, changes: int, master: str, driver_memory: str = "") -> dict[str, Any]:
    """One measured run in two new databases of the server at ``base``, dropped after."""
    tag = uuid.uuid4().hex[:8]
    names = (f"sp_mem_{tag}_src", f"sp_mem_{tag}_dst")
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
        for n in names:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(n)))
        try:
            return _measure(
                f"{base}/{names[0]}", f"{base}/{names[1]}", changes, master, driver_memory
            )
        finally:
            for n in names:
                admin.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(n))
                )


def _measure(
    src_url: str, dst_url: str, changes: int, master: str, driver_memory: str
) -> dict[str, Any]:
    src = psycopg.connect(src_url, autocommit=True)
    src.execute(ORDERS)
    conf = {"spark.sql.shuffle.partitions": "4"}
    if driver_memory:
        conf["spark.driver.memory"] = driver_memory
    cfg = channel_file(src_url, dst_url, master, conf=conf)
    subprocess.run([str(BIN / "syncpoint"), "-c", str(cfg), "install"], check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    made = make_changes(src, changes)
    queued = int(src.execute("SELECT pg_database_size(current_database())").fetchone()[0])
    log = open(cfg.parent / "run.log", "wb")  # noqa: SIM115 - closed below
    t = time.perf_counter()
    proc = subprocess.Popen(
        [str(BIN / "syncpoint"), "-c", str(cfg), "run", "--once", "--json"],
        stdout=subprocess.PIPE, stderr=log,
    )  # fmt: skip
    try:
        sampler = Sampler(proc)
        out, _ = proc.communicate()
    finally:
        if proc.poll() is None:  # interrupted: the run and its JVM go too
            proc.terminate()
            proc.wait(30)
    took = time.perf_counter() - t
    sampler.join()
    log.close()
    report = json.loads(out) if proc.returncode == 0 and out.strip() else {}
    with psycopg.connect(dst_url, autocommit=True) as dst:
        try:
            equal = src.execute(SUM).fetchone() == dst.execute(SUM).fetchone()
        except psycopg.errors.UndefinedTable:
            equal = False
    src.close()
    return {
        "changes_made": changes,
        "changes_applied": report.get("changes"),
        "exit": proc.returncode,
        "made_s": round(made, 1),
        "source_db_mib": queued // 2**20,
        "run_s": round(took, 1),
        "heap_peak_mib": round(sampler.heap / 1024),
        "old_gen_peak_mib": round(sampler.old / 1024),
        "after_collection_peak_mib": round(sampler.survived / 1024),
        "collections": int(sampler.collections),
        "heap_committed_peak_mib": round(sampler.heap_max / 1024),
        "driver_memory": max_heap_mib(cfg),
        "jvm_rss_peak_mib": round(sampler.jvm_hwm / 1024),
        "jvm_started": sampler.jvm is not None,
        "python_rss_peak_mib": round(sampler.py_hwm / 1024),
        "target_equals_source": equal,
        "log": str(cfg.parent / "run.log") if proc.returncode else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=10_000_000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--json", action="store_true", help="the figures as one JSON line")
    ap.add_argument(
        "--driver-memory", default="", help="spark.driver.memory (the heap's maximum), e.g. 512m"
    )
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    with private_cluster(PRIVATE_SETTINGS) as base:
        got = measure(base, args.changes, args.master, args.driver_memory)
    got["load"] = [round(load0, 1), round(os.getloadavg()[0], 1)]
    if args.json:
        print(json.dumps(got))
        return
    for k, v in got.items():
        print(f"{k:26} {v}")


if __name__ == "__main__":
    main()
