"""Apply W1 between vendors: MariaDB to PostgreSQL, PostgreSQL to MariaDB and MariaDB to
MariaDB, each against a raw pipe of the final rows between the same two servers, measured
in one run.

For each direction: a source ``orders`` table with trigger capture, a target database
syncpoint creates the table in, ``--changes`` changes in W1's proportions (5/8 inserted,
5/16 updated, 1/16 deleted):

- cold: one ``syncpoint run --once`` command (Python, JVM and Spark start included);
- warm: a Spark session that is up, a first W1 round applied and a second one timed (as a
  long-running ``run --follow`` meets it);
- the pipe, by the client, of the final rows into an empty table of the same shape:
  MariaDB to PostgreSQL, an unbuffered ``SELECT`` streamed into ``COPY FROM STDIN``;
  PostgreSQL to MariaDB, ``COPY TO STDOUT`` written to a file and ``LOAD DATA LOCAL
  INFILE`` of it (the file's time counted); MariaDB to MariaDB, an unbuffered ``SELECT``
  written to a file and ``LOAD DATA LOCAL INFILE`` of it into another database of the
  same server (the file's time counted). The pipe moves the whole table (the rows of
  three W1s); the warm round, one W1's window, is compared with the pipe's time for that
  window's final rows at the rate measured.

The target is compared with the source row by row (values written one way) after the
rounds. Nothing is hard-coded; databases are dropped at the end.

    .venv/bin/python bench/apply_cross.py [--changes N] [--only my-pg,pg-my,my-my]
        [--paths direct,spark --pairs 3]

``--paths`` takes the round paths in turns (``spark``: ``SYNCPOINT_ROUND_PATH=spark``,
Spark's JDBC read; ``direct``: the pair's direct path where it has one), ``--pairs`` times
each, the order swapped every pair, fresh databases for every run; the load average is
printed beside every run, and the warm round's ``stage`` and ``apply`` (its transaction)
times.

``cross_rows(pg, my, changes, master)`` gives ``table.py`` its rows.
"""

from __future__ import annotations

import argparse
import atexit
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg
import pymysql

BIN = Path(sys.executable).parent
PG = "postgresql://postgres@127.0.0.1:5432"
MY = "mysql://root@127.0.0.1:3306"
ORDERS = {
    "postgres": "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, "
    "amount numeric(12,2), status text, note text)",
    "mariadb": "CREATE TABLE orders (id BIGINT PRIMARY KEY, customer_id INT, "
    "amount DECIMAL(12,2), status VARCHAR(16), note TEXT) ENGINE=InnoDB",
}
BATCH = 1000  # rows per MariaDB INSERT statement
SHUFFLE = {"spark.sql.shuffle.partitions": "4"}


class Side:
    """A throwaway database of one vendor, with a plain client connection."""

    def __init__(self, vendor: str, role: str):
        self.vendor = vendor
        self.name = f"sp_cross_{uuid.uuid4().hex[:8]}_{role}"
        if vendor == "postgres":
            with psycopg.connect(f"{PG}/postgres", autocommit=True) as a:
                a.execute(f'CREATE DATABASE "{self.name}"')
            self.url = f"{PG}/{self.name}"
            self.conn: Any = psycopg.connect(self.url, autocommit=True)
        else:
            a = pymysql.connect(host="127.0.0.1", user="root")
            a.cursor().execute(
                f"CREATE DATABASE `{self.name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
            )
            a.close()
            self.url = f"{MY}/{self.name}"
            self.conn = pymysql.connect(
                host="127.0.0.1", user="root", database=self.name, autocommit=True,
                local_infile=True,
            )  # fmt: skip

    def execute(self, stmt: str, params: Any = None) -> None:
        if self.vendor == "postgres":
            self.conn.execute(stmt, params)
        else:
            self.conn.cursor().execute(stmt, params)

    def rows(self) -> list[tuple[Any, ...]]:
        cur = self.conn.cursor()
        cur.execute("SELECT id, customer_id, amount, status, note FROM orders ORDER BY id")
        return list(cur.fetchall())

    def count(self) -> int:
        cur = self.conn.cursor()
        cur.execute("SELECT count(*) FROM orders")
        return int(cur.fetchone()[0])

    def drop(self) -> None:
        self.conn.close()
        if self.vendor == "postgres":
            with psycopg.connect(f"{PG}/postgres", autocommit=True) as a:
                a.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        else:
            a = pymysql.connect(host="127.0.0.1", user="root")
            a.cursor().execute(f"DROP DATABASE IF EXISTS `{self.name}`")
            a.close()


def digest(rows: list[tuple[Any, ...]]) -> str:
    """The rows written one way whatever the vendor (numbers as decimals, text as is)."""
    h = hashlib.md5()
    for r in rows:
        h.update(
            "|".join("" if v is None else str(Decimal(v) if isinstance(v, Decimal) else v)
                     for v in r).encode() + b"\n"
        )  # fmt: skip
    return h.hexdigest()


def w1_rows(changes: int) -> int:
    """The rows one W1 leaves (its new rows less those it deletes): what its window moves."""
    n_ins, n_upd = changes * 5 // 8, changes * 5 // 16
    return n_ins - (changes - n_ins - n_upd)


def w1(src: Side, base: int, changes: int) -> None:
    """W1's shape at ``src``: new rows, some updated, others deleted."""
    n_ins, n_upd = changes * 5 // 8, changes * 5 // 16
    n_del = changes - n_ins - n_upd
    if src.vendor == "postgres":
        buf = io.StringIO()
        for i in range(base + 1, base + n_ins + 1):
            buf.write(f"{i}\t{i % 1000}\t{i % 100000 / 100:.2f}\tnew\tnote {i} ünïcode\n")
        with src.conn.cursor().copy(
            "COPY orders (id, customer_id, amount, status, note) FROM STDIN"
        ) as cp:
            cp.write(buf.getvalue())
    else:
        cur = src.conn.cursor()
        cur.execute("BEGIN")
        for lo in range(base + 1, base + n_ins + 1, BATCH):
            hi = min(lo + BATCH, base + n_ins + 1)
            values = ",".join(
                f"({i},{i % 1000},{i % 100000 / 100:.2f},'new','note {i} ünïcode')"
                for i in range(lo, hi)
            )
            cur.execute(f"INSERT INTO orders VALUES {values}")
        cur.execute("COMMIT")
    src.execute(
        "UPDATE orders SET amount = amount + 1, status = 'paid' WHERE id > %s AND id <= %s",
        (base, base + n_upd),
    )
    src.execute("DELETE FROM orders WHERE id > %s", (base + n_ins - n_del,))


def channel(src: Side, dst: Side, master: str) -> Path:
    cfg = {
        "channel": "bench",
        "application": "bench",
        "locations": {
            "src": {"url": src.url, "capture": True},
            "dst": {"url": dst.url, "integrate": True},
        },
        "tables": [
            {
                "name": "public.orders" if src.vendor == "postgres" else "orders",
                "snapshot": "none",
            }
        ],
        "spark": {"master": master, "conf": SHUFFLE, "driver_round_max": 0},
    }
    folder = tempfile.mkdtemp(prefix="sp_cross_")
    atexit.register(shutil.rmtree, folder, True)
    path = Path(folder) / "bench.yaml"
    path.write_text(json.dumps(cfg))
    return path


def pipe(src: Side, raw: Side) -> float:
    """The final rows copied by the client into ``raw``'s empty ``orders``; seconds."""
    raw.execute(ORDERS[raw.vendor])
    t = time.perf_counter()
    if src.vendor == "mariadb" and raw.vendor == "mariadb":
        cur = src.conn.cursor(pymysql.cursors.SSCursor)
        cur.execute("SELECT id, customer_id, amount, status, note FROM orders")
        with tempfile.NamedTemporaryFile("wb", suffix=".tsv", delete=False) as f:
            while batch := cur.fetchmany(5000):
                f.write(b"".join(_load_line(r) for r in batch))
        cur.close()
        _load_file(raw, f.name)
    elif src.vendor == "mariadb":
        cur = src.conn.cursor(pymysql.cursors.SSCursor)
        cur.execute("SELECT id, customer_id, amount, status, note FROM orders")
        with raw.conn.cursor().copy("COPY orders FROM STDIN") as cp:
            for r in cur:
                cp.write_row(r)
        cur.close()
    else:
        with tempfile.NamedTemporaryFile("wb", suffix=".tsv", delete=False) as f:
            with src.conn.cursor().copy("COPY orders TO STDOUT") as cp:
                for chunk in cp:
                    f.write(chunk)
        _load_file(raw, f.name)
    return time.perf_counter() - t


def _load_file(raw: Any, path: str) -> None:
    """``LOAD DATA LOCAL INFILE`` of a tab-separated file into ``raw``'s ``orders``; the file
    removed whatever happens."""
    try:
        raw.execute(
            f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE orders CHARACTER SET utf8mb4 "
            "FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n'"
        )
    finally:
        os.unlink(path)


_ESCAPES = {ord("\\"): "\\\\", ord("\t"): "\\t", ord("\n"): "\\n", ord("\r"): "\\r"}


def _load_line(row: tuple[Any, ...]) -> bytes:
    """A row as a line ``LOAD DATA`` reads with its default escapes (NULL as \\N)."""
    return (
        "\t".join("\\N" if v is None else str(v).translate(_ESCAPES) for v in row) + "\n"
    ).encode()


def direction(src_v: str, dst_v: str, changes: int, master: str, path: str = "") -> dict[str, Any]:
    """Cold and warm apply of W1 from ``src_v`` to ``dst_v``, and the pipe; figures.
    ``path``: ``spark`` takes Spark's JDBC read (``SYNCPOINT_ROUND_PATH``), else the pair's
    direct path where it has one ("": as the environment says)."""
    if path:
        os.environ["SYNCPOINT_ROUND_PATH"] = "spark" if path == "spark" else ""
    from syncpoint.config import SparkConfig
    from syncpoint.ops.channel import Channel
    from syncpoint.ops.session import get_session
    from syncpoint.spark.session import stop_session

    src, dst, raw = Side(src_v, "src"), Side(dst_v, "dst"), Side(dst_v, "raw")
    try:
        src.execute(ORDERS[src_v])
        cfg = channel(src, dst, master)
        run = [str(BIN / "syncpoint"), "-c", str(cfg)]
        subprocess.run([*run, "install"], check=True, capture_output=True)
        w1(src, 0, changes)
        t = time.perf_counter()
        done = subprocess.run([*run, "run", "--once", "--json"], capture_output=True, text=True)
        cold = time.perf_counter() - t
        if done.returncode != 0:
            raise SystemExit(f"run --once failed: {done.stdout}{done.stderr[-2000:]}")
        cold_changes = json.loads(done.stdout)["changes"]
        ch = Channel.from_file(cfg)
        spark = get_session(SparkConfig(master=master, conf=SHUFFLE))
        spark.range(1).count()
        w1(src, 10 * changes, changes)
        ch.run(once=True, spark=spark)  # the JIT meets a round of this size once first
        w1(src, 20 * changes, changes)
        steps = _steps_timed()
        t = time.perf_counter()
        try:
            report = ch.run(once=True, spark=spark)
        finally:
            steps.pop("undo")()
        warm = time.perf_counter() - t
        stop_session()
        cold_direct = json.loads(done.stdout).get("rounds") or [{}]
        direct = {bool(r.get("direct")) for r in [*report.rounds, *cold_direct] if r.get("changes")}
        equal = digest(src.rows()) == digest(dst.rows())
        final = src.count()
        took = pipe(src, raw)
        return {
            "cold_rate": cold_changes / cold,
            "cold_s": cold,
            "cold_changes": cold_changes,
            "warm_rate": report.changes / warm,
            "warm_s": warm,
            "warm_changes": report.changes,
            # the warm round's stage (copy tasks, netting) and apply (its transaction)
            "warm_stage_s": sum(steps["stage"]),
            "warm_apply_s": sum(steps["apply"]),
            "typed": [r.get("typed") for r in report.rounds if r.get("changes")],
            "pipe_rate": final / took,
            "pipe_s": took,
            # the pipe moves the whole table (three W1s), the timed round one W1's window:
            # the round is compared with the pipe's time for that window's rows
            "pipe_window_s": w1_rows(changes) * took / final,
            "window_rows": w1_rows(changes),
            "final": final,
            "equal": equal,
            "direct": direct,
        }
    finally:
        for s in (src, dst, raw):
            s.drop()


def _steps_timed() -> dict[str, Any]:
    """Wall time of each call of the round's ``stage`` and ``apply`` (in this process),
    until ``undo`` is called."""
    from syncpoint.ops import round as round_mod

    cls = round_mod.GroupRound
    out: dict[str, Any] = {"stage": [], "apply": []}
    kept = {name: getattr(cls, name) for name in ("stage", "apply")}

    def wrap(name: str) -> Any:
        inner = kept[name]

        def timed(self: Any, *a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return inner(self, *a, **k)
            finally:
                out[name].append(time.perf_counter() - t)

        return timed

    def undo() -> None:
        for name, f in kept.items():
            setattr(cls, name, f)

    for name in kept:
        setattr(cls, name, wrap(name))
    out["undo"] = undo
    return out


NAMES = {
    "my-pg": ("mariadb", "postgres"),
    "pg-my": ("postgres", "mariadb"),
    "my-my": ("mariadb", "mariadb"),
}
PIPES = {
    "my-pg": "unbuffered SELECT streamed into COPY FROM STDIN",
    "pg-my": "COPY TO STDOUT into a file, LOAD DATA LOCAL INFILE",
    "my-my": "unbuffered SELECT into a file, LOAD DATA LOCAL INFILE",
}
LABEL = {"mariadb": "MariaDB", "postgres": "PostgreSQL"}


def cross_rows(changes: int, master: str, only: list[str]) -> list[tuple[str, str, str, str]]:
    """(what, measured, goal, note) rows of each direction in ``only``."""
    out = []
    for key in only:
        a, b = NAMES[key]
        m = direction(a, b, changes, master)
        pair = f"{LABEL[a]} to {LABEL[b]}"
        note = f"target equals source: {m['equal']}"
        out.append(
            (
                f"apply W1 {pair} ({m['warm_changes']:,} changes), warm JVM",
                f"{m['warm_rate']:,.0f} changes/s ({m['warm_s']:.1f} s); "
                f"{m['warm_s'] / m['pipe_window_s']:.1f}x the pipe's time for the window's "
                f"{m['window_rows']:,} rows ({m['pipe_window_s']:.2f} s)",
                "within 2x of the pipe",
                note,
            )
        )
        out.append(
            (
                f"apply W1 {pair} ({m['cold_changes']:,} changes), one `run --once`, cold",
                f"{m['cold_rate']:,.0f} changes/s ({m['cold_s']:.1f} s)",
                ">= 40,000 changes/s",
                "",
            )
        )
        out.append(
            (
                f"raw pipe {pair} of the {m['final']:,} final rows ({PIPES[key]})",
                f"{m['pipe_rate']:,.0f} rows/s ({m['pipe_s']:.2f} s)",
                "-",
                "",
            )
        )
    return out


def paths_in_turns(
    changes: int, master: str, only: list[str], paths: list[str], pairs: int
) -> None:
    """Each direction on each path in turns (the order swapped every pair), a line a run
    with the load average, then the medians and the ratios to the first path's."""
    import statistics

    print(f"{os.cpu_count()} CPUs")
    for key in only:
        a, b = NAMES[key]
        got: dict[str, list[dict[str, Any]]] = {p: [] for p in paths}
        for i in range(pairs):
            for p in paths if i % 2 == 0 else paths[::-1]:
                load = os.getloadavg()[0]
                m = direction(a, b, changes, master, p)
                got[p].append(m)
                print(
                    f"{key} pair {i + 1} {p}: load {load:.1f} -> {os.getloadavg()[0]:.1f}; "
                    f"warm {m['warm_rate']:,.0f} changes/s ({m['warm_s']:.2f} s, stage "
                    f"{m['warm_stage_s']:.2f} s, apply {m['warm_apply_s']:.2f} s, typed "
                    f"{m['typed']}, "
                    f"{m['warm_s'] / m['pipe_window_s']:.1f}x the pipe's "
                    f"{m['pipe_window_s']:.2f} s); cold {m['cold_rate']:,.0f} changes/s "
                    f"({m['cold_s']:.2f} s); pipe {m['pipe_rate']:,.0f} rows/s; "
                    f"direct {sorted(m['direct'])}; equal {m['equal']}",
                    flush=True,
                )
        first = paths[0]
        for what in ("warm_s", "warm_apply_s", "cold_s"):
            med = {p: statistics.median(m[what] for m in got[p]) for p in paths}
            ratios = [
                got[p][i][what] / got[first][i][what] for p in paths[1:] for i in range(pairs)
            ]
            print(
                f"{key} {what} medians: "
                + ", ".join(f"{p} {med[p]:.2f} s" for p in paths)
                + f"; per pair time / {first}'s: "
                + ", ".join(f"{r:.2f}" for r in ratios)
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=480_000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--only", default="my-pg,pg-my,my-my")
    ap.add_argument("--paths", default="", help="e.g. direct,spark: the paths in turns")
    ap.add_argument("--pairs", type=int, default=3)
    args = ap.parse_args()
    if args.paths:
        paths_in_turns(
            args.changes, args.master, args.only.split(","), args.paths.split(","), args.pairs
        )
        return
    load = os.getloadavg()[0]
    rows = cross_rows(args.changes, args.master, args.only.split(","))
    print(f"\n{os.cpu_count()} CPUs; load average {load:.1f} -> {os.getloadavg()[0]:.1f}\n")
    print("| what | measured | goal | note |\n|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
