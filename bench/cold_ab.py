"""Cold ``syncpoint run --once`` of two versions of the code by turns, on one channel.

One channel (W1's ``orders``, PostgreSQL to PostgreSQL, on a private instance as
``round_cpu.py``'s), then ``--pairs`` pairs of rounds: before each round ``--changes``
changes in W1's proportions, then one ``syncpoint run --once`` command (a fresh process:
Python's start and imports included, the direct path starts no JVM) with the
``PYTHONPATH`` of one tree, then of the other (the order swapped every pair). Prints each
round's wall time, the server's CPU (as ``round_cpu.py``) and the command's CPU, the load
average; then the medians and the ratio new / old. Both trees must install the same
objects (the channel is installed by ``--new``'s code).

    .venv/bin/python bench/cold_ab.py --old /path/to/old/src --new src [--pairs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from apply_pg import channel_file, checksum, make_changes  # noqa: E402
from private_pg import private_cluster  # noqa: E402
from round_cpu import private_pair, server_cpu  # noqa: E402


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True, help="the old tree's src folder (PYTHONPATH)")
    ap.add_argument("--new", required=True, help="the new tree's src folder (PYTHONPATH)")
    ap.add_argument("--changes", type=int, default=480_000)
    ap.add_argument("--pairs", type=int, default=3)
    args = ap.parse_args()
    trees = {"old": str(Path(args.old).resolve()), "new": str(Path(args.new).resolve())}
    n_ins = args.changes * 5 // 8
    n_upd = args.changes * 5 // 16
    n_del = args.changes - n_ins - n_upd
    exe = str(Path(sys.executable).parent / "python")

    with private_cluster() as base:
        admin, postmaster, src, dst = private_pair(base)
        cfg = channel_file(f"{base}/src", f"{base}/dst", "local[2]", driver_round_max=0)

        def command(tree: str, *words: str) -> subprocess.CompletedProcess[bytes]:
            env = {**os.environ, "PYTHONPATH": trees[tree]}
            return subprocess.run(
                [exe, "-m", "syncpoint", "-c", str(cfg), *words],
                env=env, capture_output=True, check=True,
            )  # fmt: skip

        command("new", "install")
        got: dict[str, list[tuple[float, float, float]]] = {"old": [], "new": []}
        r = 0
        for pair in range(args.pairs + 1):  # pair 0 warms the server's caches for both
            order = ("old", "new") if pair % 2 else ("new", "old")
            for tree in order:
                make_changes(src, r * 10 * n_ins, n_ins, n_upd, n_del)
                r += 1
                src.execute("CHECKPOINT")
                dst.execute("CHECKPOINT")
                s0, c0, t0 = server_cpu(postmaster), children_cpu(), time.perf_counter()
                out = command(tree, "run", "--once", "--json")
                wall = time.perf_counter() - t0
                s1, c1 = server_cpu(postmaster), children_cpu()
                changes = json.loads(out.stdout)["changes"]
                what = "warm-up" if pair == 0 else f"pair {pair}"
                print(
                    f"{what:8s} {tree} {changes:,} changes: {wall:6.2f} s wall "
                    f"({changes / wall:,.0f} changes/s), server CPU {s1 - s0:6.2f} s, command "
                    f"CPU {c1 - c0:5.2f} s; load average {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
                if pair:
                    got[tree].append((wall, s1 - s0, c1 - c0))
        equal = checksum(src) == checksum(dst)
        med = {t: [statistics.median(c) for c in zip(*v, strict=True)] for t, v in got.items()}
        for t, m in med.items():
            print(
                f"{t}: median of {args.pairs}: {m[0]:.2f} s wall ({args.changes / m[0]:,.0f} "
                f"changes/s), server CPU {m[1]:.2f} s, command CPU {m[2]:.2f} s"
            )
        o, n = med["old"], med["new"]
        print(
            f"new / old: wall {n[0] / o[0]:.3f}, server CPU {n[1] / o[1]:.3f}, command CPU "
            f"{n[2] / o[2]:.3f}; target equals source: {equal}; load average "
            f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
        )
        admin.close()
        src.close()
        dst.close()


if __name__ == "__main__":
    main()
