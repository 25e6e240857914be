"""``sysbench oltp_read_write`` on MariaDB without capture, with syncpoint's capture triggers
and with log capture (``capture: log``, a follower draining the binary log every second),
on a private MariaDB with the binary log on (``tests/private_mariadb.py``: ``log_bin``,
``binlog_format=ROW``, ``binlog_row_image=FULL``, ``binlog_row_metadata=FULL``), so that the
three modes run on the same server with the same binary log.

Each mode has its own database of 4 tables of 100,000 rows (``sysbench ... prepare``); the
runs are interleaved (none, trigger, log; again for each pair) and each mode's throughput
(transactions/s) and p95 latency are the median over its runs; ratios are taken against
"none" of the same run. The follower of the log mode is a thread of this process that ticks
(drains) every second, as ``run --follow --interval 1`` would, and purges the queue; it runs
during the log mode's runs only (the other modes run with no capture process at all: the
follower first drains past what they wrote, before the run starts), and after each of them
one more tick drains what is left (timed: the follower's lag at the
end). Also printed per mode: the binary log written per transaction, and for the log mode
the follower's CPU (seconds of its thread per second of run).

    .venv/bin/python bench/sysbench_maria.py [--pairs 5] [--seconds 30] [--rows 100000]

Needs ``sysbench`` (Debian's package; ``make bench`` installs it).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pymysql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.private_mariadb import private_mariadb  # noqa: E402

MODES = ("none", "trigger", "log")
TABLES = 4


def sysbench(port: int, db: str, action: str, *extra: str) -> str:
    cmd = [
        "sysbench", "oltp_read_write", f"--tables={TABLES}", "--mysql-host=127.0.0.1",
        f"--mysql-port={port}", "--mysql-user=root", f"--mysql-db={db}",
        "--db-driver=mysql", *extra, action,
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return done.stdout


def measure(text: str) -> tuple[float, float]:
    """(transactions per second, p95 latency in ms) of a ``sysbench run`` output."""
    tps = float(re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", text).group(1))  # type: ignore[union-attr]
    p95 = float(re.search(r"95th percentile:\s+([\d.]+)", text).group(1))  # type: ignore[union-attr]
    return tps, p95


class Follower(threading.Thread):
    """Drains the binary log every second (a tick), and purges what was drained; when
    stopped, one more tick drains what is left (``catch_up``: its seconds)."""

    def __init__(self, cap: Any):
        super().__init__(daemon=True)
        self.cap, self.stop, self.ticks, self.errors = cap, threading.Event(), 0, 0
        self.cpu = 0.0  # seconds of this thread's CPU
        self.catch_up = 0.0
        self.ready = threading.Event()

    def run(self) -> None:
        conn = self.cap.connect()
        # first past what the other modes wrote to the binary log meanwhile (skipped, as
        # another database's), before the run starts
        self.cap.tick(conn)
        self.ready.set()
        started = time.thread_time()
        while not self.stop.wait(1.0):
            self._tick(conn)
        t = time.perf_counter()
        self._tick(conn)
        self.catch_up = time.perf_counter() - t
        conn.close()
        self.cpu = time.thread_time() - started

    def _tick(self, conn: Any) -> None:
        try:
            t = self.cap.tick(conn)
            self.cap.purge(conn, t.context)
            self.ticks += 1
        except Exception:  # noqa: BLE001 - counted and shown: a bench must not hang
            self.errors += 1


def binlog_bytes(cur: Any) -> int:
    cur.execute("SHOW BINARY LOGS")
    return sum(int(r[1]) for r in cur.fetchall())


def run_modes(
    pairs: int, seconds: int, rows: int = 100_000, threads: int = 4
) -> dict[str, tuple[float, float]]:
    """Mode -> (median transactions/s, median p95 ms) over ``pairs`` interleaved runs."""
    from syncpoint.config import TableConfig
    from syncpoint.vendors.mariadb.capture import MariadbCapture
    from syncpoint.vendors.mariadb.logcapture import MariadbLogCapture

    with private_mariadb({"max-connections": "500"}) as admin:
        port = int(admin.rsplit(":", 1)[1].strip("/"))
        root = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
        tables = [TableConfig(name=f"sbtest{i}") for i in range(1, TABLES + 1)]
        caps: dict[str, Any] = {}
        for mode in MODES:
            db = f"sb_{mode}"
            root.cursor().execute(f"CREATE DATABASE {db}")
            sysbench(port, db, "prepare", f"--table-size={rows}")
            url = f"{admin}{db}"
            if mode == "trigger":
                caps[mode] = MariadbCapture("bench", url, "repl_")
            elif mode == "log":
                caps[mode] = MariadbLogCapture("bench", url, "repl_")
            if mode in caps:
                conn = caps[mode].connect()
                caps[mode].install(conn, tables)
                conn.close()
        results: dict[str, list[tuple[float, float]]] = {m: [] for m in MODES}
        cur = root.cursor()
        try:
            for pair in range(pairs):
                for mode in MODES:
                    follower = Follower(caps["log"]) if mode == "log" else None
                    if follower:
                        follower.start()
                        follower.ready.wait(600)
                    before = binlog_bytes(cur)
                    out = sysbench(
                        port, f"sb_{mode}", "run", f"--threads={threads}", f"--time={seconds}",
                        "--report-interval=0",
                    )  # fmt: skip
                    if follower:
                        follower.stop.set()
                        follower.join()
                    results[mode].append(measure(out))
                    tps = results[mode][-1][0]
                    per_txn = (binlog_bytes(cur) - before) / max(tps * seconds, 1)
                    extra = (
                        f"; follower {follower.ticks} drains, {follower.errors} errors, CPU "
                        f"{follower.cpu / seconds:.2f} s/s, last drain {follower.catch_up:.1f} s"
                        if follower
                        else ""
                    )
                    print(f"  sysbench pair {pair + 1} {mode}: {results[mode][-1]}, binary log "
                          f"{per_txn:,.0f} bytes a transaction{extra}",
                          file=sys.stderr, flush=True)  # fmt: skip
        finally:
            root.close()
        return {
            m: (statistics.median(t for t, _ in r), statistics.median(p for _, p in r))
            for m, r in results.items()
        }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--threads", type=int, default=4)
    args = ap.parse_args()
    if shutil.which("sysbench") is None:
        sys.exit("sysbench is not installed (apt-get install sysbench)")
    res = run_modes(args.pairs, args.seconds, args.rows, args.threads)
    base_tps, base_p95 = res["none"]
    print(f"sysbench oltp_read_write, {TABLES} tables x {args.rows} rows, {args.threads} "
          f"threads, {args.pairs} interleaved runs of {args.seconds} s per mode; load average "
          f"{os.getloadavg()[0]:.1f}")  # fmt: skip
    print("| capture | tps (median) | throughput vs none | p95 ms (median) | p95 vs none |")
    print("|---|---|---|---|---|")
    for mode in MODES:
        tps, p95 = res[mode]
        print(f"| {mode} | {tps:.1f} | {tps / base_tps:.2f} | {p95:.1f} | "
              f"{p95 / base_p95:.2f}x |")  # fmt: skip


if __name__ == "__main__":
    main()
