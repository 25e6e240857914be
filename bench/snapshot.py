"""Snapshot rate, PostgreSQL to PostgreSQL, next to a raw ``COPY TO | COPY FROM`` pipe
between the same databases in the same run, and the driver's peak memory.

Creates throwaway databases, fills ``orders`` (W1's table) with ``--rows`` rows made by
``generate_series`` inside PostgreSQL, installs capture, then times ``Channel.snapshot``
on a Spark session started beforehand (``local[2]``; the start and the session's first
job, which starts the Python workers, are reported apart, and the ratio is also given with
them counted), and a binary COPY pipe of the same table into a second target. Peak
memory: the Python process's maximum resident set, and the JVM driver's heap sampled every
0.2 s during the snapshot. Both targets are compared with the source by checksum. Prints
figures; nothing hard-coded.

    .venv/bin/python bench/snapshot.py [--rows N] [--pg postgresql://postgres@127.0.0.1]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import threading
import time
import uuid
from pathlib import Path

import psycopg

ORDERS = (
    "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, amount numeric(12,2), "
    "status text, note text, updated_at timestamptz)"
)
FILL = (
    "INSERT INTO orders SELECT g, g %% 1000, (g %% 100000) / 100.0, 'new', 'note ' || g, "
    "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second' "
    "FROM generate_series(1, %s) g"
)
SUM = "SELECT count(*), md5(string_agg(o::text, ',' ORDER BY id)) FROM orders o"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=300_000)
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432")
    ap.add_argument("--master", default="local[2]")
    args = ap.parse_args()
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("syncpoint.snapshot").setLevel(logging.INFO)  # per chunk: copy, apply

    from syncpoint.config import SparkConfig
    from syncpoint.ops.channel import Channel
    from syncpoint.ops.session import get_session
    from syncpoint.spark.snapshot import warm_workers

    tag = uuid.uuid4().hex[:8]
    names = [f"bsnap_src_{tag}", f"bsnap_dst_{tag}", f"bsnap_raw_{tag}"]
    admin = psycopg.connect(f"{args.pg}/postgres", autocommit=True)
    for n in names:
        admin.execute(f'CREATE DATABASE "{n}"')
    try:
        src, dst, raw = (psycopg.connect(f"{args.pg}/{n}", autocommit=True) for n in names)
        src.execute(ORDERS)
        raw.execute(ORDERS)
        src.execute(FILL, (args.rows,))
        src.execute("VACUUM ANALYZE orders")
        cfg = Path(tempfile.mkdtemp()) / "syncpoint.yaml"
        cfg.write_text(
            f"channel: bench\napplication: bench\nlocations:\n"
            f"  src: {{url: '{args.pg}/{names[0]}', capture: true}}\n"
            f"  dw: {{url: '{args.pg}/{names[1]}', integrate: true}}\n"
            "tables:\n  - {name: public.orders}\n"
            f"spark: {{master: '{args.master}'}}\n",
            encoding="utf-8",
        )
        ch = Channel.from_file(cfg)
        ch.install()
        t = time.perf_counter()
        spark = get_session(SparkConfig(master=args.master))
        start = time.perf_counter() - t
        print(f"Spark session start      {start:>10.2f} s")
        # a session's first Python job waits for the JVM's scheduler code to load and for
        # the Python workers to start, once per process: timed apart, like the session start
        # (the same job as the one the snapshot starts its workers with)
        t = time.perf_counter()
        warm_workers(spark, "syncpoint.vendors.postgres.snapshot_direct").join()
        first = time.perf_counter() - t
        print(f"first job (workers)      {first:>10.2f} s")

        mem = spark._jvm.java.lang.management.ManagementFactory.getMemoryMXBean()
        peak = [0]
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], int(mem.getHeapMemoryUsage().getUsed()))
                done.wait(0.2)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        t = time.perf_counter()
        ch.snapshot(spark=spark)
        took = time.perf_counter() - t
        done.set()
        sampler.join()
        rate = args.rows / took
        print(
            f"syncpoint snapshot       {took:>10.2f} s for {args.rows:,} rows -> {rate:,.0f} rows/s"
        )

        t = time.perf_counter()
        with raw.cursor().copy("COPY orders FROM STDIN (FORMAT binary)") as w:
            with src.cursor().copy("COPY orders TO STDOUT (FORMAT binary)") as r:
                for chunk in r:
                    w.write(chunk)
        pipe = time.perf_counter() - t
        prate = args.rows / pipe
        print(
            f"COPY TO | COPY FROM      {pipe:>10.2f} s for {args.rows:,} rows "
            f"-> {prate:,.0f} rows/s"
        )
        print(f"snapshot / pipe          {rate / prate:>10.2f} (goal: at least 0.5)")
        whole = args.rows / (took + first) / prate
        print(f"  with the first job     {whole:>10.2f}")
        whole = args.rows / (took + first + start) / prate
        print(f"  and the session start  {whole:>10.2f}")
        print(f"driver JVM heap, peak    {peak[0] / 2**20:>10.0f} MiB (sampled every 0.2 s)")
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"Python process, peak RSS {rss:>10.0f} MiB")
        same = (
            src.execute(SUM).fetchone()
            == dst.execute(SUM).fetchone()
            == raw.execute(SUM).fetchone()
        )
        print(f"target equals source     {same!s:>10}")
        for c in (src, dst, raw):
            c.close()
    finally:
        for n in names:
            admin.execute(f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)')


if __name__ == "__main__":
    main()
