"""``sysbench oltp_read_write`` on MariaDB without capture, with syncpoint's capture triggers
and with log capture (``capture: log``, a follower draining the binary log every second),
on a private MariaDB with the binary log on (``tests/private_mariadb.py``: ``log_bin``,
``binlog_format=ROW``, ``binlog_row_image=FULL``, ``binlog_row_metadata=FULL``), so that the
three modes run on the same server with the same binary log.

Each mode has its own database of 4 tables of 100,000 rows (``sysbench ... prepare``); the
runs are interleaved (none, trigger, log; again for each pair) and each mode's throughput
(transactions/s) and p95 latency are the median over its runs; ratios are taken against
"none" of the same run. The follower of the log mode is a thread of this process that ticks
(drains) every second, as ``run --follow --interval 1`` would, and purges the queue.

    .venv/bin/python bench/sysbench_maria.py [--pairs 5] [--seconds 30] [--rows 100000]

Needs ``sysbench`` (Debian's package; ``make bench`` installs it).
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import threading
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
    """Drains the binary log every second (a tick), and purges what was drained."""

    def __init__(self, cap: Any):
        super().__init__(daemon=True)
        self.cap, self.stop, self.ticks, self.errors = cap, threading.Event(), 0, 0

    def run(self) -> None:
        conn = self.cap.connect()
        while not self.stop.wait(1.0):
            try:
                t = self.cap.tick(conn)
                self.cap.purge(conn, t.context)
                self.ticks += 1
            except Exception:  # noqa: BLE001 - counted and shown: a bench must not hang
                self.errors += 1
        conn.close()


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
        follower = Follower(caps["log"])
        follower.start()
        try:
            for pair in range(pairs):
                for mode in MODES:
                    out = sysbench(
                        port, f"sb_{mode}", "run", f"--threads={threads}", f"--time={seconds}",
                        "--report-interval=0",
                    )  # fmt: skip
                    results[mode].append(measure(out))
                    print(f"  sysbench pair {pair + 1} {mode}: {results[mode][-1]}",
                          file=sys.stderr, flush=True)  # fmt: skip
        finally:
            follower.stop.set()
            follower.join()
            root.close()
        print(f"  log follower: {follower.ticks} drains, {follower.errors} errors", file=sys.stderr)
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
          f"threads, {args.pairs} interleaved runs of {args.seconds} s per mode")  # fmt: skip
    print("| capture | tps (median) | throughput vs none | p95 ms (median) | p95 vs none |")
    print("|---|---|---|---|---|")
    for mode in MODES:
        tps, p95 = res[mode]
        print(f"| {mode} | {tps:.1f} | {tps / base_tps:.2f} | {p95:.1f} | "
              f"{p95 / base_p95:.2f}x |")  # fmt: skip


if __name__ == "__main__":
    main()
