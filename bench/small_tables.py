"""``snapshot`` and ``verify`` of many small tables and of one large one, PostgreSQL to
PostgreSQL, each as the user runs it: one ``syncpoint`` process, wall time from its start
(Python, and Spark's start-up when it starts Spark) to its exit.

- 14 small tables of 200 to 9,000 rows (about 34,000 rows, the size of a sample schema):
  ``snapshot`` (goal: start-up plus at most 0.1 s a table; also timed for the first table
  alone, so the price of each further table shows without start-up) and ``verify``
  (goal: 10 s in all, start-up included);
- one table of ``--rows`` rows (default 1,000,000): ``snapshot`` and ``verify`` (goal:
  verify within 1.5x the snapshot), with where verify's time goes (``--verbose`` log).

``small_rows(pg)`` returns the rows for ``table.py``. Alone:
``.venv/bin/python bench/small_tables.py [--rows N] [--skip-large]``.
"""

from __future__ import annotations

import argparse
import os
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
SIZES = [200, 300, 500, 600, 800, 1000, 1200, 1500, 2000, 2500, 3000, 4000, 7000, 9000]


def _db(admin: Any, names: list[str]) -> str:
    name = f"sp_small_{uuid.uuid4().hex[:8]}"
    admin.execute(f'CREATE DATABASE "{name}"')
    names.append(name)
    return name


def _fill(url: str, tables: dict[str, int]) -> None:
    with psycopg.connect(url, autocommit=True) as c:
        for t, n in tables.items():
            c.execute(
                f"CREATE TABLE {t} (id bigint PRIMARY KEY, name text, code char(12), "
                "price numeric(12,2), at timestamptz, flag boolean)"
            )
            c.execute(
                f"INSERT INTO {t} SELECT g, 'name ' || g, 'c' || (g % 97), g / 7.0, "
                "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute', g % 2 = 0 "
                f"FROM generate_series(1, {int(n)}) g"
            )
            c.execute(f"ANALYZE {t}")


def _config(path: Path, src: str, dst: str, tables: list[str]) -> Path:
    data = {
        "channel": "bench",
        "application": "wh",
        "locations": {
            "src": {"url": src, "capture": True},
            "cen": {"url": dst, "integrate": True},
        },
        "tables": [{"name": f"public.{t}"} for t in tables],
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": "2"}},
    }
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _timed(cfg: Path, *args: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(
        [str(BIN / "syncpoint"), "-c", str(cfg), *args], capture_output=True, text=True
    )
    secs = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"syncpoint {' '.join(args)} failed: {done.stdout}{done.stderr}")
    return secs, done.stdout + done.stderr


def _case(
    pg: str, tables: dict[str, int], tmp: Path, verify: bool = True
) -> dict[str, float]:
    admin = psycopg.connect(f"{pg}/postgres", autocommit=True)
    names: list[str] = []
    try:
        src, dst = f"{pg}/{_db(admin, names)}", f"{pg}/{_db(admin, names)}"
        _fill(src, tables)
        cfg = _config(tmp / f"{uuid.uuid4().hex[:6]}.yaml", src, dst, list(tables))
        _timed(cfg, "install")
        snap, _ = _timed(cfg, "snapshot")
        if not verify:
            return {"snapshot": snap}
        ver, out = _timed(cfg, "verify")
        assert out.count("equal") == len(tables), out
        return {"snapshot": snap, "verify": ver}
    finally:
        for n in names:
            admin.execute(f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)')
        admin.close()


def _startup(tmp: Path) -> float:
    """A syncpoint process that starts nothing (``--help``): Python's own start-up."""
    t0 = time.perf_counter()
    subprocess.run([str(BIN / "syncpoint"), "--help"], capture_output=True, check=True)
    return time.perf_counter() - t0


def small_rows(pg: str, rows: int | None) -> list[tuple[str, str, str]]:
    """(what, measured, goal) rows: 14 small tables, and one of ``rows`` rows (None: skip)."""
    out = []
    with TemporaryDirectory() as d:
        tmp = Path(d)
        start = _startup(tmp)
        small = _case(pg, {f"t{i:02d}": n for i, n in enumerate(SIZES)}, tmp)
        # the price of a table beyond the first: start-up and the run's fixed work (its
        # connections, control tables, first tick) cancel out
        one = _case(pg, {"t00": SIZES[0]}, tmp, verify=False)["snapshot"]
        per = (small["snapshot"] - start) / len(SIZES)
        more = (small["snapshot"] - one) / (len(SIZES) - 1)
        out.append(
            (
                f"snapshot, {len(SIZES)} small tables ({sum(SIZES):,} rows), one process",
                f"{small['snapshot']:.1f} s ({per:.2f} s a table over the process's "
                f"{start:.1f} s start-up; {one:.1f} s for one table alone, so "
                f"{more:.2f} s each further table)",
                "start-up + <= 0.1 s a table",
            )
        )
        out.append(
            (
                f"verify, the same {len(SIZES)} tables, one process",
                f"{small['verify']:.1f} s",
                "<= 10 s, start-up included",
            )
        )
        if rows:
            big = _case(pg, {"big": rows}, tmp)
            out.append(
                (
                    f"verify of a {rows:,}-row table against its snapshot, one process each",
                    f"{big['verify'] / big['snapshot']:.2f}x ({big['verify']:.1f} s against "
                    f"{big['snapshot']:.1f} s)",
                    "<= 1.5x",
                )
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432")
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows of the large table")
    ap.add_argument("--skip-large", action="store_true")
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    found = small_rows(args.pg, None if args.skip_large else args.rows)
    print(f"\n{os.cpu_count()} CPUs; load average {load0:.1f} -> {os.getloadavg()[0]:.1f}\n")
    print("| what | measured | goal |\n|---|---|---|")
    for r in found:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
