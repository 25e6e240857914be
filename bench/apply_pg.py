"""Apply throughput of one ``run --once``, PostgreSQL to PostgreSQL (docs/performance.md, W1-like).

Creates two throwaway databases, installs capture on ``orders`` (the W1 table), makes
``--changes`` changes in W1's proportions (5/8 inserted by COPY, 5/16 updated, 1/16
deleted: 100,000 by default), then times one ``Channel.run(once=True)`` on a Spark
session started beforehand (``local[2]``; the session start is reported apart), for
``--rounds`` rounds: the first on a cold JVM (a ``syncpoint run --once`` command), later
ones warm (a long-running ``run --follow``). The same
final rows are then copied with a raw ``COPY TO | COPY FROM`` pipe between the same
databases for comparison. Prints figures; nothing is hard-coded.

    .venv/bin/python bench/apply_pg.py [--changes N] [--pg postgresql://postgres@127.0.0.1]
"""

from __future__ import annotations

import argparse
import atexit
import io
import json
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg

ORDERS = (
    "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, amount numeric(12,2), "
    "status text, note text, updated_at timestamptz)"
)


def make_changes(
    src: Any, base: int, n_ins: int, n_upd: int, n_del: int, id_expr: str = "id"
) -> float:
    """W1's shape: COPY new rows, UPDATE some of them, DELETE others (``id_expr``: the id
    as a number, ``id::bigint`` for a text key)."""
    t = time.perf_counter()
    buf = io.StringIO()
    for i in range(base + 1, base + n_ins + 1):
        buf.write(
            f"{i}\t{i % 1000}\t{i % 100000 / 100:.2f}\tnew\tnote {i}\t2024-01-01 00:00:00+00\n"
        )
    with src.cursor().copy("COPY orders FROM STDIN") as cp:
        cp.write(buf.getvalue())
    src.execute(
        f"UPDATE orders SET amount = amount + 1, status = 'paid' "
        f"WHERE {id_expr} > %s AND {id_expr} <= %s",
        (base, base + n_upd),
    )
    src.execute(f"DELETE FROM orders WHERE {id_expr} > %s", (base + n_ins - n_del,))
    return time.perf_counter() - t


def channel_file(src_url: str, dst_url: str, master: str, **spark: Any) -> Path:
    """The benches' channel: ``orders`` from ``src`` into ``dst``, written to a temp file;
    ``spark`` adds keys to its ``spark:`` section (conf, driver_round_max)."""
    cfg = {
        "channel": "bench",
        "application": "bench",
        "locations": {
            "src": {"url": src_url, "capture": True},
            "dst": {"url": dst_url, "integrate": True},
        },
        "tables": [{"name": "public.orders", "snapshot": "none"}],
        "spark": {"master": master, **spark},
    }
    folder = tempfile.mkdtemp(prefix="sp_bench_")
    atexit.register(shutil.rmtree, folder, True)  # the file outlives the call, not the run
    path = Path(folder) / "bench.yaml"
    path.write_text(json.dumps(cfg))
    return path


def checksum(conn: Any) -> Any:
    return conn.execute("SELECT md5(string_agg(o::text, ',' ORDER BY id)) FROM orders o").fetchone()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=100_000)
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="rounds of --changes each; the "
        "first runs on a cold JVM, later ones show a long-running --follow",
    )
    ap.add_argument(
        "--stage-copy",
        default="auto",
        choices=["auto", "always", "never"],
        help="spark.stage_copy: Spark's staging by each partition's COPY, or JDBC batches",
    )
    ap.add_argument(
        "--paths",
        default="direct",
        help="round paths taking turns, round by round: direct (PostgreSQL's COPY from "
        "database to database, netted at the target) and spark (Spark's JDBC read)",
    )
    args = ap.parse_args()
    paths = args.paths.split(",")
    n_ins = args.changes * 5 // 8
    n_upd = args.changes * 5 // 16
    n_del = args.changes - n_ins - n_upd

    from syncpoint.config import SparkConfig
    from syncpoint.ops.channel import Channel
    from syncpoint.ops.session import get_session

    admin = psycopg.connect(f"{args.pg}/postgres", autocommit=True)
    names = [f"sp_bench_{uuid.uuid4().hex[:8]}_{r}" for r in ("src", "dst", "raw")]
    for n in names:
        admin.execute(f'CREATE DATABASE "{n}"')
    src_url, dst_url, raw_url = (f"{args.pg}/{n}" for n in names)
    try:
        src = psycopg.connect(src_url, autocommit=True)
        src.execute(ORDERS)
        path = channel_file(src_url, dst_url, args.master, stage_copy=args.stage_copy)
        ch = Channel.from_file(path)
        ch.install()

        t = time.perf_counter()
        spark = get_session(
            SparkConfig(master=args.master, conf={"spark.sql.shuffle.partitions": "4"})
        )
        spark.range(1).count()
        print(f"spark session start     {time.perf_counter() - t:>10.1f} s (not counted)")
        dst = psycopg.connect(dst_url, autocommit=True)
        for r in range(args.rounds):
            base = r * n_ins
            made = make_changes(src, base, n_ins, n_upd, n_del)
            path = paths[r % len(paths)]
            os.environ["SYNCPOINT_ROUND_PATH"] = "" if path == "direct" else "spark"
            t = time.perf_counter()
            report = ch.run(once=True, spark=spark)
            took = time.perf_counter() - t
            rows = int(src.execute("SELECT count(*) FROM orders").fetchone()[0])
            equal = checksum(src) == checksum(dst)
            print(
                f"round {r + 1} ({'cold' if r == 0 else 'warm'} JVM, {path:6s}) {took:>7.2f} s for "
                f"{report.changes:,} changes -> {report.changes / took:,.0f} changes/s "
                f"(changes made in {made:.1f} s); target equals source: {equal}; load average "
                f"{os.getloadavg()[0]:.1f}"
            )

        raw = psycopg.connect(raw_url, autocommit=True)
        raw.execute(ORDERS)
        t = time.perf_counter()
        out = io.BytesIO()
        with src.cursor().copy("COPY orders TO STDOUT (FORMAT binary)") as cp:
            for chunk in cp:
                out.write(chunk)
        with raw.cursor().copy("COPY orders FROM STDIN (FORMAT binary)") as cp:
            cp.write(out.getvalue())
        pipe = time.perf_counter() - t
        print(
            f"COPY TO | COPY FROM     {pipe:>10.2f} s for {rows:,} final rows "
            f"-> {rows / pipe:,.0f} rows/s (the last round took {took / pipe:.1f}x the pipe)"
        )
    finally:
        for n in names:
            admin.execute(f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)')


if __name__ == "__main__":
    main()
