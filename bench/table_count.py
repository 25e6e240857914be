"""What a channel costs per table: one sync group of N tables, PostgreSQL to PostgreSQL,
each command one ``syncpoint`` process timed from outside (Python's start-up included).

At each N (default 10, 50, 200, 500), after ``install`` and a first round:

- an empty round: ``run --once`` with nothing captured since the last round;
- a small round: ``run --once`` after 5 of the tables changed, 10 rows each (the target is
  checked: the 50 rows are there);
- ``status``.

Each is the median of ``--repeat`` processes, the sizes taking turns in each repetition
(a change of the machine's load falls on all of them alike); beside the wall time, the
process's CPU time (user and system), which another engineer's load moves much less. The
slope (ms a table) is the least-squares line through the sizes; the ratio is the wall time
at 200 tables over the one at 10 (goal: at most 1.5x). ``count_rows(pg)`` returns the rows
for ``table.py``. Alone:
``.venv/bin/python bench/table_count.py [--sizes 10,50,200,500] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import psycopg
import yaml

BIN = Path(sys.executable).parent
SIZES = (10, 50, 200, 500)
CHANGED_TABLES = 5
CHANGED_ROWS = 10
KINDS = ("empty round", "round, 5 tables x 10 rows changed", "status")


def _config(path: Path, src: str, dst: str, n: int) -> Path:
    names = [f"t{i:03d}" for i in range(n)]
    data = {
        "channel": "bench",
        "application": "wh",
        "locations": {
            "src": {"url": src, "capture": True},
            "cen": {"url": dst, "integrate": True},
        },
        "tables": [{"name": f"public.{t}"} for t in names],
        "sync_groups": {"all": names},
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _timed(cfg: Path, *args: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``syncpoint`` process."""
    t0, c0 = time.perf_counter(), os.times()
    done = subprocess.run(
        [str(BIN / "syncpoint"), "-c", str(cfg), *args], capture_output=True, text=True
    )
    secs, c1 = time.perf_counter() - t0, os.times()
    if done.returncode != 0:
        raise SystemExit(f"syncpoint {' '.join(args)} failed: {done.stdout}{done.stderr}")
    cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
    return secs, cpu


class Case:
    """One channel of ``n`` tables in one sync group: a source and a target database."""

    def __init__(self, admin: Any, pg: str, n: int, tmp: Path):
        self.n, self.dbs = n, [f"sp_count_{uuid.uuid4().hex[:8]}" for _ in range(2)]
        for d in self.dbs:
            admin.execute(f'CREATE DATABASE "{d}"')
        self.src, self.dst = (f"{pg}/{d}" for d in self.dbs)
        with psycopg.connect(self.src, autocommit=True) as c:
            for i in range(n):
                c.execute(f"CREATE TABLE t{i:03d} (id bigint PRIMARY KEY, v text)")
        self.cfg = _config(tmp / f"count{n}.yaml", self.src, self.dst, n)
        _timed(self.cfg, "install")
        _timed(self.cfg, "run", "--once")  # the first round: positions stored, targets made
        self.changed = [f"t{(i * n) // CHANGED_TABLES:03d}" for i in range(CHANGED_TABLES)]
        self.rounds = 0

    def once(self) -> dict[str, tuple[float, float]]:
        """The three commands once each, the small round's rows checked at the target."""
        out = {KINDS[0]: _timed(self.cfg, "run", "--once")}
        base = self.rounds * CHANGED_ROWS
        with psycopg.connect(self.src, autocommit=True) as c:
            for t in self.changed:  # spread over the group
                c.execute(
                    f"INSERT INTO {t} SELECT g, 'v' || g FROM generate_series(%s::int, %s::int) g",
                    (base + 1, base + CHANGED_ROWS),
                )
        out[KINDS[1]] = _timed(self.cfg, "run", "--once")
        self.rounds += 1
        with psycopg.connect(self.dst) as c:
            got = sum(
                int(c.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in self.changed
            )
        if got != CHANGED_TABLES * CHANGED_ROWS * self.rounds:
            raise SystemExit(f"{self.n} tables: {got} rows at the target, expected more")
        out[KINDS[2]] = _timed(self.cfg, "status")
        return out


def _slope(xs: list[int], ys: list[float]) -> float:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def measure(pg: str, sizes: tuple[int, ...], repeat: int) -> dict[int, dict[str, Any]]:
    """Per size and kind: median wall and CPU seconds. The sizes take turns in each
    repetition, so that a change of the machine's load falls on all of them alike."""
    admin = psycopg.connect(f"{pg}/postgres", autocommit=True)
    cases: list[Case] = []
    try:
        with TemporaryDirectory() as d:
            for n in sizes:
                cases.append(Case(admin, pg, n, Path(d)))
            runs: dict[int, list[dict[str, tuple[float, float]]]] = {n: [] for n in sizes}
            for _ in range(repeat):
                for case in cases:
                    runs[case.n].append(case.once())
        found: dict[int, dict[str, Any]] = {}
        for n, got in runs.items():
            found[n] = {
                k: (
                    statistics.median(g[k][0] for g in got),
                    statistics.median(g[k][1] for g in got),
                )
                for k in KINDS
            }
            print(
                f"  {n} tables: "
                + ", ".join(f"{k} {w:.2f} s (CPU {c:.2f} s)" for k, (w, c) in found[n].items()),
                file=sys.stderr,
                flush=True,
            )
        return found
    finally:
        for case in cases:
            for db in case.dbs:
                admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        admin.close()


def rows_of(found: dict[int, dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(what, measured, goal) rows: each kind's figures, slope and 200-against-10 ratio."""
    sizes = sorted(found)
    out = []
    for kind in KINDS:
        walls = [found[n][kind][0] for n in sizes]
        cpus = [found[n][kind][1] for n in sizes]
        figures = ", ".join(f"{n}: {y:.2f} s" for n, y in zip(sizes, walls, strict=True))
        slope, cpu_slope = (
            (_slope(sizes, walls) * 1000, _slope(sizes, cpus) * 1000)
            if len(sizes) > 1
            else (float("nan"), float("nan"))
        )
        ratio = (
            f"; 200 vs 10: {found[200][kind][0] / found[10][kind][0]:.2f}x"
            if 10 in found and 200 in found
            else ""
        )
        out.append(
            (
                f"{kind}, one sync group of N tables, one process",
                f"{figures}; {slope:.1f} ms a table (the process's CPU {cpu_slope:.2f} ms a "
                f"table){ratio}",
                "200 tables <= 1.5x 10 tables",
            )
        )
    return out


def count_rows(pg: str, sizes: tuple[int, ...] = SIZES, repeat: int = 3) -> list[Any]:
    return rows_of(measure(pg, sizes, repeat))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sizes = tuple(int(s) for s in args.sizes.split(","))
    load0 = os.getloadavg()[0]
    found = rows_of(measure(args.pg, sizes, args.repeat))
    print(f"\n{os.cpu_count()} CPUs; load average {load0:.1f} -> {os.getloadavg()[0]:.1f}\n")
    print("| what | measured | goal |\n|---|---|---|")
    for r in found:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
