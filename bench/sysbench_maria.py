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
the follower's CPU (seconds of its thread per second of run, and per thousand row changes).

``replica``: MariaDB's own replication, the peer: a second private server replicating the
mode's database (``replicate-do-db``, GTID) is connected during the mode's runs only (as
the follower runs during the log mode's only: it first catches up with what the other modes
wrote, then the run; after it, the wait until it applied everything); its CPU (the whole
replica server's) per thousand row changes.

    .venv/bin/python bench/sysbench_maria.py [--pairs 5] [--seconds 30] [--rows 100000]
        [--modes none,trigger,log,log-logged,replica]

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
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pymysql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.private_mariadb import private_mariadb  # noqa: E402

# "log": the follower's user has BINLOG ADMIN (root), so its ticks and purges write nothing
# to the binary log; "log-logged": a user without it, the queue's writes in the binary log
MODES = ("none", "trigger", "log", "log-logged", "replica")
PLAIN_USER = "sb_plain"  # the user of "log-logged": no BINLOG ADMIN
TABLES = 4
WRITES = 4  # row changes a transaction of oltp_read_write makes (2 updates, a delete, an insert)
TICK = os.sysconf("SC_CLK_TCK")
# mode -> the follower's (log modes) or the replica server's CPU seconds per 1,000 row
# changes, one figure a run (read by table.py)
CPU_PER_1000: dict[str, list[float]] = {m: [] for m in MODES}


def server_cpu(port: int) -> float:
    """CPU seconds of the mariadbd listening on ``port`` (all its threads)."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{d}/cmdline").read_bytes().split(b"\0")
            if f"--port={port}".encode() in cmd and cmd[0].endswith(b"mariadbd"):
                fields = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / TICK
        except OSError:
            continue
    return 0.0


class Replica:
    """A second private server replicating database ``db`` of the source (GTID)."""

    def __init__(self, admin: str, source_port: int, db: str):
        self.port = int(admin.rsplit(":", 1)[1].strip("/"))
        self.conn = pymysql.connect(host="127.0.0.1", port=self.port, user="root",
                                    autocommit=True)  # fmt: skip
        cur = self.conn.cursor()
        # the source's CREATE DATABASE had no default database (replicate-do-db passes it
        # over); made here, out of this server's own binary log
        cur.execute("SET SESSION sql_log_bin = 0")
        cur.execute(f"CREATE DATABASE {db}")
        cur.execute(
            "CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = %s, MASTER_USER = "
            "'root', MASTER_USE_GTID = slave_pos",
            (source_port,),
        )

    def start(self, source: Any) -> None:
        self.conn.cursor().execute("START SLAVE")
        self.caught_up(source)

    def caught_up(self, source: Any, timeout: float = 600) -> None:
        cur = source.cursor()
        cur.execute("SELECT @@gtid_binlog_pos")
        want = str(cur.fetchone()[0])
        mine = self.conn.cursor()
        mine.execute("SELECT MASTER_GTID_WAIT(%s, %s)", (want, timeout))
        if mine.fetchone()[0] != 0:
            raise RuntimeError(f"the replica did not reach {want} in {timeout} s")

    def stop(self) -> None:
        self.conn.cursor().execute("STOP SLAVE")


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
        from syncpoint.vendors.kept import kept

        conn = self.cap.connect()
        with kept():  # the binary log reader kept open across ticks, as a follower keeps it
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
            self.cpu = time.thread_time() - started
        conn.close()

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
    pairs: int,
    seconds: int,
    rows: int = 100_000,
    threads: int = 4,
    modes: tuple[str, ...] = MODES,
) -> dict[str, tuple[float, float]]:
    """Mode -> (median transactions/s, median p95 ms) over ``pairs`` interleaved runs."""
    from syncpoint.config import TableConfig
    from syncpoint.vendors.mariadb.capture import MariadbCapture
    from syncpoint.vendors.mariadb.log.capture import MariadbLogCapture

    with ExitStack() as stack:
        admin = stack.enter_context(private_mariadb({"max-connections": "500"}))
        port = int(admin.rsplit(":", 1)[1].strip("/"))
        root = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
        replica = None
        if "replica" in modes:
            replica = Replica(
                stack.enter_context(
                    private_mariadb({"server-id": "4243", "replicate-do-db": "sb_replica",
                                     "gtid-strict-mode": "OFF"})
                ),
                port,
                "sb_replica",
            )
        tables = [TableConfig(name=f"sbtest{i}") for i in range(1, TABLES + 1)]
        caps: dict[str, Any] = {}
        for mode in modes:
            db = f"sb_{mode.replace('-', '_')}"
            root.cursor().execute(f"CREATE DATABASE {db}")
            sysbench(port, db, "prepare", f"--table-size={rows}")
            url = f"{admin}{db}"
            if mode == "trigger":
                caps[mode] = MariadbCapture("bench", url, "repl_")
            elif mode.startswith("log"):
                caps[mode] = MariadbLogCapture("bench", url, "repl_")
            if mode in caps:
                conn = caps[mode].connect()
                caps[mode].install(conn, tables)  # by root: its stored function needs SUPER
                conn.close()
            if mode == "log-logged":
                root.cursor().execute(f"CREATE USER {PLAIN_USER}@'%' IDENTIFIED BY 'pw'")
                root.cursor().execute(f"GRANT ALL ON {db}.* TO {PLAIN_USER}@'%'")
                root.cursor().execute(
                    f"GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO {PLAIN_USER}@'%'"
                )
                plain = url.replace("root@", f"{PLAIN_USER}:pw@", 1)
                caps[mode] = MariadbLogCapture("bench", plain, "repl_")
        results: dict[str, list[tuple[float, float]]] = {m: [] for m in modes}
        cur = root.cursor()
        try:
            for pair in range(pairs):
                for mode in modes:
                    follower = Follower(caps[mode]) if mode.startswith("log") else None
                    if follower:
                        follower.start()
                        follower.ready.wait(600)
                    if mode == "replica" and replica is not None:
                        replica.start(root)
                        replica_cpu = server_cpu(replica.port)
                    before = binlog_bytes(cur)
                    out = sysbench(
                        port, f"sb_{mode.replace('-', '_')}", "run",
                        f"--threads={threads}", f"--time={seconds}",
                        "--report-interval=0",
                    )  # fmt: skip
                    if follower:
                        follower.stop.set()
                        follower.join()
                    results[mode].append(measure(out))
                    tps = results[mode][-1][0]
                    per_txn = (binlog_bytes(cur) - before) / max(tps * seconds, 1)
                    changes = max(tps * seconds * WRITES / 1000, 1e-9)
                    if follower:
                        CPU_PER_1000[mode].append(follower.cpu / changes)
                    extra = (
                        f"; follower {follower.ticks} drains, {follower.errors} errors, CPU "
                        f"{follower.cpu / seconds:.2f} s/s ({follower.cpu / changes * 1000:.0f} "
                        f"ms per 1,000 row changes), last drain {follower.catch_up:.1f} s"
                        if follower
                        else ""
                    )
                    if mode == "replica" and replica is not None:
                        replica.caught_up(root)
                        used = server_cpu(replica.port) - replica_cpu
                        replica.stop()
                        CPU_PER_1000[mode].append(used / changes)
                        extra = (
                            f"; the replica server's CPU {used / seconds:.2f} s/s "
                            f"({used / changes * 1000:.0f} ms a 1,000 row changes)"
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
    ap.add_argument("--modes", default=",".join(MODES), help="of " + ", ".join(MODES))
    args = ap.parse_args()
    modes = tuple(m for m in args.modes.split(",") if m)
    if "none" not in modes or set(modes) - set(MODES):
        sys.exit(f"--modes: some of {', '.join(MODES)}, none among them")
    if shutil.which("sysbench") is None:
        sys.exit("sysbench is not installed (apt-get install sysbench)")
    load = os.getloadavg()[0]
    res = run_modes(args.pairs, args.seconds, args.rows, args.threads, modes)
    base_tps, base_p95 = res["none"]
    print(f"sysbench oltp_read_write, {TABLES} tables x {args.rows} rows, {args.threads} "
          f"threads, {args.pairs} interleaved runs of {args.seconds} s per mode; load average "
          f"{load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")  # fmt: skip
    print("| capture | tps (median) | throughput vs none | p95 ms (median) | p95 vs none |")
    print("|---|---|---|---|---|")
    for mode in modes:
        tps, p95 = res[mode]
        print(f"| {mode} | {tps:.1f} | {tps / base_tps:.2f} | {p95:.1f} | "
              f"{p95 / base_p95:.2f}x |")  # fmt: skip


if __name__ == "__main__":
    main()
