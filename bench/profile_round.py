"""Where the time of one W1 apply round goes, PostgreSQL to PostgreSQL (issue: profile first).

Makes ``--changes`` changes in W1's proportions (as ``apply_pg.py``), then times one warm
``Channel.run(once=True)`` with

- the driver's own steps, timed from outside by wrapping the round's methods (plan, read,
  stage, apply) and the apply transaction's statements (``Integrate.run``);
- Spark's stages from its event log (``spark.eventLog.enabled``): per stage its duration,
  tasks, records and bytes read and shuffled;
- the statements both databases ran, with their durations, from the server log
  (``log_min_duration_statement`` set on the two throwaway databases only: other databases
  of the cluster are not touched; ``pg_stat_statements`` would need a server restart).

Run it under ``py-spy record --format raw -o driver.txt -- ...`` for the driver's Python
stacks (``--pyspy-summary driver.txt`` prints the heaviest frames afterwards). Prints
figures only; nothing is hard-coded.

    .venv/bin/python bench/profile_round.py [--changes 480000] [--log /var/log/postgresql/...]
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import re
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).parent))
from apply_pg import ORDERS, channel_file, make_changes  # noqa: E402

PG_LOG = "/var/log/postgresql/postgresql-15-main.log"


def timed(obj: Any, name: str, into: dict[str, list[float]], label: str | None = None) -> None:
    """Wrap ``obj.name`` to add each call's wall time to ``into[label]``."""
    inner = getattr(obj, name)

    def wrapper(*a: Any, **k: Any) -> Any:
        t = time.perf_counter()
        try:
            return inner(*a, **k)
        finally:
            into[label or name].append(time.perf_counter() - t)

    setattr(obj, name, wrapper)


def stages(log_dir: str) -> list[dict[str, Any]]:
    """Completed stages of the newest event log in ``log_dir``."""
    newest = sorted(glob.glob(os.path.join(log_dir, "*")), key=os.path.getmtime)[-1]
    # Spark 4 writes a folder of rolling files (events_1_..., events_2_...)
    files = [newest]
    if os.path.isdir(newest):
        files = sorted(glob.glob(os.path.join(newest, "events_*")))
    lines = [ln for f in files for ln in open(f, encoding="utf-8")]
    out = []
    for line in lines:
        ev = json.loads(line)
        if ev.get("Event") != "SparkListenerStageCompleted":
            continue
        info = ev["Stage Info"]
        acc = {a["Name"]: a.get("Value") for a in info.get("Accumulables", [])}
        out.append(
            {
                "stage": info["Stage ID"],
                "name": info["Stage Name"].split(" at ")[0],
                "tasks": info["Number of Tasks"],
                "seconds": (info["Completion Time"] - info["Submission Time"]) / 1000,
                "executor_run_s": int(acc.get("internal.metrics.executorRunTime", 0)) / 1000,
                "executor_cpu_s": int(acc.get("internal.metrics.executorCpuTime", 0)) / 1e9,
                "gc_s": int(acc.get("internal.metrics.jvmGCTime", 0)) / 1000,
                "records_in": int(acc.get("internal.metrics.input.recordsRead", 0)),
                "shuffle_write_mb": int(acc.get("internal.metrics.shuffle.write.bytesWritten", 0))
                / 2**20,
                "records_out": int(acc.get("internal.metrics.output.recordsWritten", 0)),
            }
        )
    return out


def statements(log: str, start: int, dbs: dict[str, str]) -> list[tuple[str, float, str]]:
    """(database role, ms, statement or plan) of the server log written since ``start``:
    statements as logged by ``log_min_duration_statement``, plans by auto_explain."""
    out: list[tuple[str, float, str]] = []
    pat = re.compile(
        r"\S+@(\S+) LOG:  duration: ([0-9.]+) ms  (statement|execute [^:]*|plan): ?(.*)"
    )
    plan: list[str] | None = None
    with open(log, encoding="utf-8", errors="replace") as f:
        f.seek(start)
        for line in f:
            m = pat.search(line)
            if m and m.group(1) in dbs:
                if m.group(3) == "plan":
                    plan = []
                    out.append((dbs[m.group(1)], float(m.group(2)), "PLAN"))
                else:
                    plan = None
                    out.append((dbs[m.group(1)], float(m.group(2)), m.group(4)[:110]))
            elif plan is not None and line.startswith(("\t", " ")):
                if "->" in line or "Insert on" in line or "Delete on" in line or "Time" in line:
                    out.append(("", 0.0, line.rstrip()[:150]))
            else:
                plan = None
    return out


def pyspy_summary(path: str, top: int = 25) -> None:
    """The heaviest frames of a ``py-spy record --format raw`` file (self and total)."""
    own: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    n = 0
    for line in open(path, encoding="utf-8"):
        stack, _, count = line.rstrip().rpartition(" ")
        c = int(count)
        n += c
        frames = stack.split(";")
        own[frames[-1]] += c
        for fr in set(frames):
            total[fr] += c
    print(f"\npy-spy: {n} samples; heaviest frames by total (incl. callees), then by self")
    for fr, c in total.most_common(top):
        print(f"  {100 * c / n:5.1f}%  {fr}")
    print("  -- self")
    for fr, c in own.most_common(top // 2):
        print(f"  {100 * c / n:5.1f}%  {fr}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=480_000)
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--log", default=PG_LOG, help="the server log (readable here)")
    ap.add_argument("--pyspy-summary", help="only summarize this py-spy raw file")
    ap.add_argument(
        "--cold",
        action="store_true",
        help="no warm-up round: the Spark session starts just before the round (timed apart), "
        "its JIT and Python workers cold",
    )
    ap.add_argument(
        "--path",
        default="direct",
        choices=["direct", "spark"],
        help="the round's path: direct (COPY database to database, netted at the target) or "
        "spark (Spark's JDBC read and netting)",
    )
    args = ap.parse_args()
    if args.pyspy_summary:
        pyspy_summary(args.pyspy_summary)
        return
    n_ins = args.changes * 5 // 8
    n_upd = args.changes * 5 // 16
    n_del = args.changes - n_ins - n_upd

    from syncpoint.config import SparkConfig
    from syncpoint.ops import round as round_mod
    from syncpoint.ops.channel import Channel
    from syncpoint.ops.session import get_session
    from syncpoint.vendors.integratebase import Integrate

    admin = psycopg.connect(f"{args.pg}/postgres", autocommit=True)
    tag = uuid.uuid4().hex[:8]
    names = {"src": f"sp_prof_{tag}_src", "dst": f"sp_prof_{tag}_dst"}
    for n in names.values():
        admin.execute(f'CREATE DATABASE "{n}"')
    events = tempfile.mkdtemp(prefix="sp_eventlog_")
    try:
        src_url, dst_url = (f"{args.pg}/{n}" for n in names.values())
        src = psycopg.connect(src_url, autocommit=True)
        src.execute(ORDERS)
        # every round, the warm-up's too, on the path measured (none netted by the driver)
        ch = Channel.from_file(channel_file(src_url, dst_url, args.master, driver_round_max=0))
        ch.install()
        os.environ["SYNCPOINT_ROUND_PATH"] = "spark" if args.path == "spark" else ""
        t = time.perf_counter()
        spark = get_session(
            SparkConfig(
                master=args.master,
                conf={
                    "spark.sql.shuffle.partitions": "4",
                    "spark.eventLog.enabled": "true",
                    "spark.eventLog.dir": events,
                    "spark.eventLog.compress": "false",
                },
            )
        )
        spark.range(1).count()
        started = time.perf_counter() - t
        if not args.cold:
            # a first small round: the target table, control tables, Python workers, JIT
            make_changes(src, 10_000_000, 100, 50, 10)
            ch.run(once=True, spark=spark)
        made = make_changes(src, 0, n_ins, n_upd, n_del)

        steps: dict[str, list[float]] = collections.defaultdict(list)
        for m in ("plan", "read", "stage", "apply"):
            timed(round_mod.GroupRound, m, steps)
        sql: dict[str, list[float]] = collections.defaultdict(list)
        orig_run = Integrate.run

        def run_sql(self: Any, conn: Any, name: str, *a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return orig_run(self, conn, name, *a, **k)
            finally:
                sql[name].append(time.perf_counter() - t)

        Integrate.run = run_sql  # type: ignore[method-assign]
        for n in names.values():
            admin.execute(f'ALTER DATABASE "{n}" SET log_min_duration_statement = 20')
            # EXPLAIN ANALYZE of the heavy statements, by the sessions the round opens
            admin.execute(f'ALTER DATABASE "{n}" SET session_preload_libraries = auto_explain')
            admin.execute(f'ALTER DATABASE "{n}" SET auto_explain.log_min_duration = 250')
            admin.execute(f'ALTER DATABASE "{n}" SET auto_explain.log_analyze = on')
        log_start = os.path.getsize(args.log) if os.path.exists(args.log) else 0
        t = time.perf_counter()
        report = ch.run(once=True, spark=spark)
        took = time.perf_counter() - t
        Integrate.run = orig_run  # type: ignore[method-assign]
        spark.stop()  # closes (flushes) the event log

        print(
            f"{'cold' if args.cold else 'warm'} round on the {args.path} path; Spark session "
            f"start {started:.1f} s (not in the round)"
        )
        print(
            f"round: {report.changes:,} changes in {took:.2f} s -> "
            f"{report.changes / took:,.0f} changes/s (changes made in {made:.1f} s); "
            f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
            f"on {os.cpu_count()} CPUs"
        )
        print("\ndriver steps (wall s)")
        for k, v in steps.items():
            print(f"  {k:8s} {sum(v):8.2f}  ({len(v)} call(s))")
        print("\nintegrate statements (wall s, the heaviest)")
        for k, v in sorted(sql.items(), key=lambda kv: -sum(kv[1]))[:8]:
            print(f"  {k:16s} {sum(v):8.3f}  ({len(v)} call(s))")
        print("\nSpark stages (from the event log)")
        print(
            f"  {'id':>3s} {'name':22s} {'tasks':>5s} {'wall s':>7s} {'run s':>7s} "
            f"{'cpu s':>7s} {'gc s':>6s} {'rec in':>9s} {'shuf MB':>8s} {'rec out':>8s}"
        )
        for s in stages(events):
            print(
                f"  {s['stage']:3d} {s['name'][:22]:22s} {s['tasks']:5d} {s['seconds']:7.2f} "
                f"{s['executor_run_s']:7.2f} {s['executor_cpu_s']:7.2f} {s['gc_s']:6.2f} "
                f"{s['records_in']:9d} {s['shuffle_write_mb']:8.1f} {s['records_out']:8d}"
            )
        if os.path.exists(args.log):
            roles = {v: k for k, v in names.items()}
            print("\nstatements of 20 ms or more at the two databases (server log)")
            for role, ms, text in statements(args.log, log_start, roles):
                print(f"  {role} {ms:9.1f} ms  {text}" if role else f"      {text}")
    finally:
        shutil.rmtree(events, ignore_errors=True)
        for n in names.values():
            admin.execute(f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)')


if __name__ == "__main__":
    main()
