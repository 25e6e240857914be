"""CPU time of a warm W1 round, PostgreSQL to PostgreSQL on the direct path: the servers'
and the driver's, figures that survive a loaded machine better than wall time.

On a private PostgreSQL instance (``private_pg.py``: every server process is this run's),
``--rounds`` rounds of ``--changes`` changes in W1's proportions (as ``apply_pg.py``), each
applied by ``Channel.run(once=True)`` with no Spark session (the copies run in the driver's
threads); a first round of the same size warms up. Per round: wall seconds, the server's
CPU seconds (user + system of the postmaster's children, those that ended during the
round included), the driver process's, the load average; then the medians. Run it with
each tree's interpreter, in turns, to compare two versions of the code.

``--steps``: each round's steps too (plan, the copies, the target's netting, the apply),
timed by wrapping ``GroupRound``'s methods as ``source_net_pg.py`` does.

    .venv/bin/python bench/round_cpu.py [--changes 480000] [--rounds 3] [--key text] [--steps]
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).parent))
from apply_pg import ORDERS, channel_file, checksum, make_changes  # noqa: E402
from private_pg import private_cluster  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def server_cpu(postmaster: int) -> float:
    """CPU seconds of the postmaster's children so far: those reaped (in its cutime and
    cstime) and those running."""
    fields = Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()
    total = int(fields[13]) + int(fields[14])  # cutime, cstime
    for pid in Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text().split():
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue  # ended meanwhile: counted in cutime once reaped
        total += int(f[11]) + int(f[12])  # utime, stime
    return total / TICK


def driver_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def private_pair(base: str, key: str = "bigint") -> tuple[Any, int, Any, Any]:
    """On the private instance ``base``: the admin connection, the postmaster's pid (whose
    processes ``server_cpu`` counts), and the ``src`` and ``dst`` databases made, W1's
    ``orders`` at the source with its key of type ``key``."""
    admin = psycopg.connect(f"{base}/postgres", autocommit=True)
    data = admin.execute("SHOW data_directory").fetchone()[0]
    postmaster = int(Path(data, "postmaster.pid").read_text().split()[0])
    for n in ("src", "dst"):
        admin.execute(f'CREATE DATABASE "{n}"')
    src = psycopg.connect(f"{base}/src", autocommit=True)
    dst = psycopg.connect(f"{base}/dst", autocommit=True)
    src.execute(ORDERS.replace("id bigint", f"id {key}"))
    return admin, postmaster, src, dst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=480_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--key",
        default="bigint",
        choices=["bigint", "text"],
        help="the type of orders.id: text is a key the apply compares as text (the spare of "
        "net deletes and the coarse-key check where the target's text equality is coarser)",
    )
    ap.add_argument("--steps", action="store_true", help="each round's steps' wall time")
    args = ap.parse_args()
    id_expr = "id" if args.key == "bigint" else "id::bigint"
    n_ins = args.changes * 5 // 8
    n_upd = args.changes * 5 // 16
    n_del = args.changes - n_ins - n_upd

    from syncpoint.ops.channel import Channel

    steps: dict[str, list[float]] = collections.defaultdict(list)
    if args.steps:
        from profile_round import timed

        from syncpoint.ops import round as round_mod
        from syncpoint.vendors.postgres import round_direct

        for m in ("plan", "_copy_direct", "apply"):
            timed(round_mod.GroupRound, m, steps)
        timed(round_direct, "net", steps)

    with private_cluster() as base:
        admin, postmaster, src, dst = private_pair(base, args.key)
        ch = Channel.from_file(
            channel_file(f"{base}/src", f"{base}/dst", "local[2]", driver_round_max=0)
        )
        ch.install()
        rows = []
        per_step: dict[str, list[float]] = collections.defaultdict(list)
        for r in range(args.rounds + 1):
            steps.clear()
            make_changes(src, r * 10 * n_ins, n_ins, n_upd, n_del, id_expr)
            src.execute("CHECKPOINT")
            dst.execute("CHECKPOINT")
            s0, d0, t0 = server_cpu(postmaster), driver_cpu(), time.perf_counter()
            report = ch.run(once=True)
            wall = time.perf_counter() - t0
            s1, d1 = server_cpu(postmaster), driver_cpu()
            load = os.getloadavg()[0]
            what = "warm-up" if r == 0 else f"round {r}"
            print(
                f"{what:8s} {report.changes:,} changes: {wall:6.2f} s wall, server CPU "
                f"{s1 - s0:6.2f} s, driver CPU {d1 - d0:5.2f} s; load average {load:.1f}",
                flush=True,
            )
            if steps:
                print("         " + ", ".join(f"{k} {sum(v):.2f} s" for k, v in steps.items()))
            if r:
                rows.append((wall, s1 - s0, d1 - d0))
                for k, v in steps.items():
                    per_step[k].append(sum(v))
        equal = checksum(src) == checksum(dst)
        med = [statistics.median(c) for c in zip(*rows, strict=True)]
        print(
            f"median of {args.rounds}: {med[0]:.2f} s wall ({args.changes / med[0]:,.0f} "
            f"changes/s), server CPU {med[1]:.2f} s, driver CPU {med[2]:.2f} s; target equals "
            f"source: {equal}; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
        )
        if per_step:
            print(
                "medians: "
                + ", ".join(f"{k} {statistics.median(v):.2f} s" for k, v in per_step.items())
            )
        admin.close()
        src.close()
        dst.close()


if __name__ == "__main__":
    main()
