"""What a channel costs per table: one sync group of N tables, PostgreSQL to PostgreSQL,
each command one ``syncpoint`` process timed from outside (Python's start-up included).

At each N (default 10, 50, 200, 500), after ``install`` and a first round:

- an empty round: ``run --once`` with nothing captured since the last round;
- a small round: ``run --once`` after 5 of the tables changed, 10 rows each (the target is
  checked: the 50 rows are there);
- ``status``.

Each is the median of ``--repeat`` processes. The slope (ms a table) is the least-squares
line through the sizes; the ratio is the figure at 200 tables over the one at 10 (goal:
at most 1.5x). ``count_rows(pg)`` returns the rows for ``table.py``. Alone:
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


def _timed(cfg: Path, *args: str) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(
        [str(BIN / "syncpoint"), "-c", str(cfg), *args], capture_output=True, text=True
    )
    secs = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"syncpoint {' '.join(args)} failed: {done.stdout}{done.stderr}")
    return secs


def _case(pg: str, n: int, repeat: int, tmp: Path) -> dict[str, float]:
    admin = psycopg.connect(f"{pg}/postgres", autocommit=True)
    names: list[str] = []
    try:
        for _ in range(2):
            name = f"sp_count_{uuid.uuid4().hex[:8]}"
            admin.execute(f'CREATE DATABASE "{name}"')
            names.append(name)
        src, dst = (f"{pg}/{d}" for d in names)
        with psycopg.connect(src, autocommit=True) as c:
            for i in range(n):
                c.execute(f"CREATE TABLE t{i:03d} (id bigint PRIMARY KEY, v text)")
        cfg = _config(tmp / f"count{n}.yaml", src, dst, n)
        _timed(cfg, "install")
        _timed(cfg, "run", "--once")  # the first round: positions stored, targets created
        out: dict[str, list[float]] = {k: [] for k in KINDS}
        for r in range(repeat):
            out[KINDS[0]].append(_timed(cfg, "run", "--once"))
            with psycopg.connect(src, autocommit=True) as c:
                for i in range(CHANGED_TABLES):
                    t = f"t{(i * n) // CHANGED_TABLES:03d}"  # spread over the group
                    base = r * CHANGED_ROWS
                    c.execute(
                        f"INSERT INTO {t} SELECT g, 'v' || g "
                        "FROM generate_series(%s::int, %s::int) g",
                        (base + 1, base + CHANGED_ROWS),
                    )
            out[KINDS[1]].append(_timed(cfg, "run", "--once"))
            with psycopg.connect(dst) as c:
                got = sum(
                    int(
                        c.execute(
                            f"SELECT count(*) FROM t{(i * n) // CHANGED_TABLES:03d}"
                        ).fetchone()[0]
                    )
                    for i in range(CHANGED_TABLES)
                )
            want = CHANGED_TABLES * CHANGED_ROWS * (r + 1)
            if got != want:
                raise SystemExit(f"{n} tables: {got} rows at the target, expected {want}")
            out[KINDS[2]].append(_timed(cfg, "status"))
        return {k: statistics.median(v) for k, v in out.items()}
    finally:
        for d in names:
            admin.execute(f'DROP DATABASE IF EXISTS "{d}" WITH (FORCE)')
        admin.close()


def _slope(xs: list[int], ys: list[float]) -> float:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def measure(pg: str, sizes: tuple[int, ...], repeat: int) -> dict[int, dict[str, float]]:
    with TemporaryDirectory() as d:
        found = {}
        for n in sizes:
            found[n] = _case(pg, n, repeat, Path(d))
            print(
                f"  {n} tables: " + ", ".join(f"{k} {v:.2f} s" for k, v in found[n].items()),
                file=sys.stderr,
                flush=True,
            )
        return found


def rows_of(found: dict[int, dict[str, float]]) -> list[tuple[str, str, str]]:
    """(what, measured, goal) rows: each kind's figures, slope and 200-against-10 ratio."""
    sizes = sorted(found)
    out = []
    for kind in KINDS:
        ys = [found[n][kind] for n in sizes]
        figures = ", ".join(f"{n}: {y:.2f} s" for n, y in zip(sizes, ys, strict=True))
        slope = _slope(sizes, ys) * 1000 if len(sizes) > 1 else float("nan")
        ratio = (
            f"; 200 vs 10: {found[200][kind] / found[10][kind]:.2f}x"
            if 10 in found and 200 in found
            else ""
        )
        out.append(
            (
                f"{kind}, one sync group of N tables, one process",
                f"{figures}; {slope:.1f} ms a table{ratio}",
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
