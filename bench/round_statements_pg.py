"""Every statement of one W1 round, PostgreSQL to PostgreSQL on the direct path, with its
server time, and the driver's Python time around them.

On a private PostgreSQL instance (``private_pg.py``) with ``log_min_duration_statement =
0`` (a setting of that instance only), after a warm-up round, ``--changes`` changes in
W1's proportions (as ``apply_pg.py``), then one round, either warm (``Channel.run(once=
True)`` in this process, under cProfile) or cold (``--cold``: one ``syncpoint run --once``
command, a fresh process, under ``python -m cProfile``). Prints the round's steps (plan,
copies, net, apply, timed by wrapping ``GroupRound``'s methods in the warm round), every
statement of the two databases during the round, grouped by its text (each group's calls
and server milliseconds, the heaviest first), and the driver's heaviest functions by
their own time and by cumulative time.

    .venv/bin/python bench/round_statements_pg.py [--changes 480000] [--cold] [--top 30]
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import io
import json
import os
import pstats
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from apply_pg import channel_file, checksum, make_changes  # noqa: E402
from private_pg import private_cluster  # noqa: E402
from profile_round import timed  # noqa: E402
from round_cpu import private_pair  # noqa: E402

LOGGED = {
    "log_min_duration_statement": "0",
    "log_line_prefix": "'%m [%p] db=%d '",
}
LINE = re.compile(r"^\S+ \S+ \S+ \[(\d+)\] db=(\S*) LOG:  duration: ([\d.]+) ms  (.*)$")


def statements(log: Path, start: int) -> list[tuple[str, int, float, str]]:
    """(database, pid, ms, text) of each statement logged after byte ``start``."""
    out: list[tuple[str, int, float, str]] = []
    cur: list[Any] | None = None
    with open(log, errors="replace") as f:
        f.seek(start)
        for line in f:
            m = LINE.match(line)
            if m:
                cur = [m.group(2), int(m.group(1)), float(m.group(3)), m.group(4)]
                out.append(cur)  # type: ignore[arg-type]
            elif cur is not None and (line.startswith("\t") or line.startswith(" ")):
                cur[3] += " " + line.strip()
            else:
                cur = None
    return [tuple(s) for s in out]  # type: ignore[misc]


def shape(text: str) -> str:
    """A statement's text with its literals and round ids folded, so repeats group."""
    text = re.sub(r"^(statement|execute [^:]*|bind [^:]*|parse [^:]*): ", "", text)
    text = re.sub(r"'[^']*'", "'?'", text)
    text = re.sub(r"\b\d+\b", "N", text)
    text = re.sub(r"[0-9a-f]{12,}", "H", text)
    return re.sub(r"\s+", " ", text)[:150]


def report_statements(rows: list[tuple[str, int, float, str]], top: int) -> None:
    groups: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
    per_db: dict[str, float] = collections.defaultdict(float)
    for db, _pid, ms, text in rows:
        groups[(db, shape(text))].append(ms)
        per_db[db] += ms
    print(f"\nstatements logged: {len(rows)}; server ms by database: "
          + ", ".join(f"{k} {v:,.0f}" for k, v in sorted(per_db.items())))  # fmt: skip
    print(f"{'db':4s} {'calls':>5s} {'ms':>9s}  statement")
    for (db, text), v in sorted(groups.items(), key=lambda kv: -sum(kv[1]))[:top]:
        print(f"{db:4s} {len(v):5d} {sum(v):9.1f}  {text}")


def report_profile(stats: pstats.Stats, top: int) -> None:
    for key, title in (("tottime", "own time"), ("cumulative", "cumulative time")):
        buf = io.StringIO()
        stats.stream = buf  # type: ignore[attr-defined]
        stats.sort_stats(key).print_stats(top)
        body = buf.getvalue()
        print(f"\ndriver functions by {title}")
        print(body[body.find("   ncalls") :])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=480_000)
    ap.add_argument("--cold", action="store_true", help="a run --once command, not in-process")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    n_ins = args.changes * 5 // 8
    n_upd = args.changes * 5 // 16
    n_del = args.changes - n_ins - n_upd

    from syncpoint.ops import round as round_mod
    from syncpoint.ops.channel import Channel

    with private_cluster(LOGGED) as base:
        admin, _postmaster, src, dst = private_pair(base)
        data = Path(admin.execute("SHOW data_directory").fetchone()[0])
        log = data / "server.log"
        cfg = channel_file(f"{base}/src", f"{base}/dst", "local[2]", driver_round_max=0)
        ch = Channel.from_file(cfg)
        ch.install()
        make_changes(src, 0, n_ins, n_upd, n_del)
        ch.run(once=True)  # warm-up: the target table, control tables, caches
        make_changes(src, 10 * n_ins, n_ins, n_upd, n_del)
        src.execute("CHECKPOINT")
        dst.execute("CHECKPOINT")
        start = log.stat().st_size
        steps: dict[str, list[float]] = collections.defaultdict(list)
        t = time.perf_counter()
        if args.cold:
            prof = Path(tempfile.mkdtemp(prefix="sp_prof_")) / "cold.prof"
            exe = str(Path(sys.executable).parent / "python")
            out = subprocess.run(
                [exe, "-m", "cProfile", "-o", str(prof), "-m", "syncpoint", "-c", str(cfg),
                 "run", "--once", "--json"],
                capture_output=True, check=True,
            )  # fmt: skip
            took = time.perf_counter() - t
            changes = json.loads(out.stdout)["changes"]
            stats = pstats.Stats(str(prof))
        else:
            for m in ("plan", "read", "_typed_stagings", "_copy_direct", "apply"):
                timed(round_mod.GroupRound, m, steps)
            direct = __import__("syncpoint.vendors.postgres.round_direct", fromlist=["net"])
            timed(direct, "net", steps)
            prof_ = cProfile.Profile()
            prof_.enable()
            changes = ch.run(once=True).changes
            prof_.disable()
            took = time.perf_counter() - t
            stats = pstats.Stats(prof_)
        time.sleep(0.5)  # the server's last log lines
        print(
            f"{'cold' if args.cold else 'warm'} round: {changes:,} changes in {took:.2f} s "
            f"(under cProfile); load average "
            f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs; "
            f"target equals source: {checksum(src) == checksum(dst)}"
        )
        for k, v in steps.items():
            print(f"  {k:16s} {sum(v):7.2f} s ({len(v)} call(s))")
        report_statements(statements(log, start), args.top)
        report_profile(stats, args.top)
        admin.close()
        src.close()
        dst.close()


if __name__ == "__main__":
    main()
