"""Where the time of one warm W1 round goes, MariaDB to PostgreSQL (trigger capture), or
PostgreSQL to MariaDB (``--pair pg-my``).

Sets up as ``apply_cross.py`` does (a MariaDB ``orders`` table with trigger capture, a
PostgreSQL target; or the other way round), applies a first W1 round (the warm-up), makes
``--changes`` more and times one ``Channel.run(once=True)`` with the round's steps (plan,
read, stage, apply), the capture's calls (the tick and its stamping, the survey; into
either target the apply's upsert and delete) and the direct path's copy tasks and net wrapped
from outside, and the servers' CPU seconds (``/proc``: the servers are shared, so
other sessions' work shows there too). ``--threads``: the copy tasks in the driver's
threads (as a cold ``run --once`` runs them) instead of a Spark session's workers.

    .venv/bin/python bench/profile_cross.py [--changes 480000] [--threads] [--pair pg-my]
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from apply_cross import ORDERS, SHUFFLE, Side, channel, digest, w1  # noqa: E402


def timed(obj: Any, name: str, into: dict[str, list[float]], label: str) -> None:
    """Wrap ``obj.name`` to add each call's wall time to ``into[label]``."""
    inner = getattr(obj, name)

    def wrapper(*a: Any, **k: Any) -> Any:
        t = time.perf_counter()
        try:
            return inner(*a, **k)
        finally:
            into[label].append(time.perf_counter() - t)

    setattr(obj, name, wrapper)


def server_cpu(name: str) -> float:
    """CPU seconds (user + system) of the processes called ``name`` so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        if comm == name:
            fields = stat[stat.rindex(")") + 2 :].split()
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=480_000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--threads", action="store_true")
    ap.add_argument("--pair", choices=("my-pg", "pg-my"), default="my-pg")
    args = ap.parse_args()
    my_pg = args.pair == "my-pg"

    from syncpoint.config import SparkConfig
    from syncpoint.ops import round as round_mod
    from syncpoint.ops.channel import Channel
    from syncpoint.ops.session import get_session
    from syncpoint.spark.session import stop_session
    from syncpoint.vendors.mariadb import capture, stream
    from syncpoint.vendors.mariadb import integrate as my_integrate
    from syncpoint.vendors.mariadb import round_direct as my_direct
    from syncpoint.vendors.postgres import capture as pg_capture
    from syncpoint.vendors.postgres import integrate as pg_integrate
    from syncpoint.vendors.postgres import round_direct

    vendors = ("mariadb", "postgres") if my_pg else ("postgres", "mariadb")
    src, dst = Side(vendors[0], "src"), Side(vendors[1], "dst")
    try:
        src.execute(ORDERS[vendors[0]])
        cfg = channel(src, dst, args.master)
        run = [str(Path(sys.executable).parent / "syncpoint"), "-c", str(cfg)]
        subprocess.run([*run, "install"], check=True, capture_output=True)
        ch = Channel.from_file(cfg)
        spark = None
        if not args.threads:
            spark = get_session(SparkConfig(master=args.master, conf=SHUFFLE))
            spark.range(1).count()
        w1(src, 0, max(8, args.changes // 10))
        ch.run(once=True, spark=spark)
        t = time.perf_counter()
        w1(src, 10 * args.changes, args.changes)
        made = time.perf_counter() - t

        steps: dict[str, list[float]] = collections.defaultdict(list)
        for m in ("plan", "read", "stage", "apply"):
            timed(round_mod.GroupRound, m, steps, m)
        if my_pg:
            # the tick's work on the queue: the records stamped, or the key runs covered
            work = "_cover" if hasattr(stream, "_cover") else "_stamp"
            timed(stream, work, steps, f"  plan: tick's {work}")
            timed(capture.MariadbCapture, "tick", steps, "  plan: tick")
            timed(capture.MariadbCapture, "survey", steps, "  plan: survey")
            timed(round_direct, "net", steps, "  stage: net")
            # the apply's statements, where the JSON path parses every row's JSON
            for m in ("upsert", "delete"):
                timed(pg_integrate.PostgresIntegrate, m, steps, f"  apply: {m}")
        else:
            timed(pg_capture.PostgresCapture, "tick", steps, "  plan: tick")
            timed(my_direct, "net", steps, "  stage: net")
            for m in ("upsert", "delete"):
                timed(my_integrate.MariadbIntegrate, m, steps, f"  apply: {m}")
        timed(round_mod.GroupRound, "_copy_direct", steps, "  stage: copy tasks")
        cpu0 = server_cpu("mariadbd"), server_cpu("postgres"), time.process_time()
        t = time.perf_counter()
        report = ch.run(once=True, spark=spark)
        took = time.perf_counter() - t
        cpu1 = server_cpu("mariadbd"), server_cpu("postgres"), time.process_time()
        if spark is not None:
            stop_session()
        equal = digest(src.rows()) == digest(dst.rows())
        print(
            f"{'driver threads' if args.threads else 'Spark workers'}: {report.changes:,} "
            f"changes in {took:.2f} s -> {report.changes / took:,.0f} changes/s (made in "
            f"{made:.1f} s); target equals source: {equal}; load average "
            f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs"
        )
        print(
            f"CPU s during the round: mariadbd {cpu1[0] - cpu0[0]:.1f}, postgres (all) "
            f"{cpu1[1] - cpu0[1]:.1f}, this process {cpu1[2] - cpu0[2]:.1f}"
        )
        typed = [r["typed"] for r in report.rounds if r["changes"]]
        print(f"staged typed: {typed}")
        for k, v in steps.items():
            print(f"  {k:28s} {sum(v):8.2f} s ({len(v)} call(s))")
    finally:
        for s in (src, dst):
            s.drop()


if __name__ == "__main__":
    main()
