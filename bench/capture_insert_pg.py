"""Capture overhead at a PostgreSQL source (docs/performance.md): W1 bulk statements and W2
single-row transactions, without capture and with syncpoint's capture installed.

Each run creates one database per mode (``CREATE DATABASE ... TEMPLATE template0``) with
the ``orders`` table of docs/performance.md, installs the mode under test, runs CHECKPOINT, then

- W1: ``COPY`` of N rows in one transaction, ``UPDATE ... WHERE id % 2 = 0``,
  ``DELETE ... WHERE id % 10 = 0`` (with N = 300,000: 480,000 changes);
- W2: M single-row ``INSERT`` transactions in autocommit over one connection (psycopg
  prepares the statement after 5 executions),

timing each step on the client, COMMIT included. The modes are interleaved inside a run
(each W1 step for every mode in turn, W2 in blocks of 500 transactions per mode in
rotating order) so that the load of a shared machine and cluster falls on all of them
alike; the figures are medians over the runs, the ratios medians of a mode against
medians of none. ``rowtrigger`` (optional) is a
plain plpgsql ``row_to_json`` row trigger, the design syncpoint's statement triggers were
measured against (syncpoint captures UPDATE of ``orders``, whose key is a primary key, row
by row too); ``pgq`` (optional) is PgQ's C trigger ``pgq.logutriga`` as Londiste
installs it (needs Debian's ``postgresql-15-pgq3``). Nothing is hard-coded: every figure
printed is measured by this run.

    .venv/bin/python bench/capture_insert_pg.py [--runs 3] [--w1-rows 300000] [--w2 20000]
        [--modes none,capture,rowtrigger,pgq] [--url postgresql://postgres@127.0.0.1:5432/postgres]

``--loops N`` measures the trigger's own cost per single-row statement instead: a ``DO``
block runs N single-row INSERTs (then UPDATEs by key, then DELETEs by key), each committed,
with ``synchronous_commit = off``, so that neither client round trips nor fsync hide the
trigger; it prints the backend CPU time per statement over ``none`` (the modes take turns
in blocks of 500 statements; medians over ``--runs``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

import psycopg

from syncpoint.config import TableConfig
from syncpoint.vendors.postgres.capture import PostgresCapture

DB = "sp_bench_capture_pg_{mode}"
ORDERS = (
    "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id int, amount numeric(12,2),"
    " status text, note text, updated_at timestamptz DEFAULT now())"
)
ROW_TRIGGER = """
CREATE TABLE orders_changes (change_id bigserial PRIMARY KEY, tbl text, op text,
    trans_key xid8, old_row text, new_row text, captured_at timestamptz);
CREATE FUNCTION orders_capture() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO orders_changes (tbl, op, trans_key, old_row, new_row, captured_at)
    VALUES (TG_TABLE_NAME, TG_OP, pg_current_xact_id(),
            CASE WHEN TG_OP <> 'INSERT' THEN row_to_json(OLD)::text END,
            CASE WHEN TG_OP <> 'DELETE' THEN row_to_json(NEW)::text END, clock_timestamp());
    RETURN NULL;
END $$;
CREATE TRIGGER orders_capture AFTER INSERT OR UPDATE OR DELETE ON orders
    FOR EACH ROW EXECUTE FUNCTION orders_capture();
"""
# PgQ's C trigger (Debian's postgresql-15-pgq3), as Londiste installs it on a table
PGQ_TRIGGER = """
CREATE EXTENSION pgq;
SELECT pgq.create_queue('bench');
CREATE TRIGGER orders_pgq AFTER INSERT OR UPDATE OR DELETE ON orders
    FOR EACH ROW EXECUTE FUNCTION pgq.logutriga('bench');
"""
STEPS = ("copy", "update", "delete", "w1", "w2")
CPU = tuple(s + "_cpu" for s in STEPS)
W1_SQL = {
    "update": "UPDATE orders SET status = 'SHIPPED' WHERE id % 2 = 0",
    "delete": "DELETE FROM orders WHERE id % 10 = 0",
}
INSERT = "INSERT INTO orders (id, customer_id, amount, status, note) VALUES (%s, %s, %s, %s, %s)"
BLOCK = 500  # W2 transactions per turn of a mode


def copy_text(n: int) -> str:
    return "".join(
        f"{i}\t{i % 5000}\t{((i * 7) % 100000) / 100}\t{'NEW' if i % 3 else 'PAID'}"
        f"\tnote {i} ünïcode\n"
        for i in range(1, n + 1)
    )


def db_url(admin: str, mode: str) -> str:
    return admin.rsplit("/", 1)[0] + "/" + DB.format(mode=mode)


def drop(admin: str, mode: str) -> None:
    with psycopg.connect(admin, autocommit=True) as a:
        a.execute(f"DROP DATABASE IF EXISTS {DB.format(mode=mode)} WITH (FORCE)")


def setup(admin: str, mode: str) -> None:
    drop(admin, mode)
    with psycopg.connect(admin, autocommit=True) as a:
        a.execute(f"CREATE DATABASE {DB.format(mode=mode)} TEMPLATE template0")
    with psycopg.connect(db_url(admin, mode), autocommit=True) as c:
        c.execute(ORDERS)
        if mode == "rowtrigger":
            c.execute(ROW_TRIGGER)
        if mode == "pgq":
            c.execute(PGQ_TRIGGER)
    if mode == "capture":
        cap = PostgresCapture("bench", db_url(admin, mode), "repl_")
        conn = cap.connect()
        cap.install(conn, [TableConfig(name="public.orders")])
        conn.close()


class Backend:
    """A connection and, when the server runs on this machine, the CPU time its backend
    process used (from /proc): on a shared machine the CPU a step costs is steadier than
    its wall time."""

    def __init__(self, url: str):
        self.conn = psycopg.connect(url, autocommit=True)
        pid = self.conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        self.stat = f"/proc/{pid}/stat"
        self.hz = os.sysconf("SC_CLK_TCK")

    def cpu(self) -> float:
        # schedstat's run time is in nanoseconds; stat's utime + stime in clock ticks
        # (10 ms), too coarse for a few thousand statements of some microseconds each
        try:
            with open(self.stat.replace("/stat", "/schedstat")) as f:
                return int(f.read().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            pass
        try:
            with open(self.stat) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / self.hz


def run_once(admin: str, modes: list[str], rows: str, w2: int) -> dict[str, dict[str, float]]:
    """One run: every mode on its own fresh database, steps interleaved across modes so
    that the load of a shared machine falls on all of them alike."""
    out: dict[str, dict[str, float]] = {m: {s: 0.0 for s in STEPS + CPU} for m in modes}
    backends: dict[str, Backend] = {}
    for m in modes:
        setup(admin, m)
        backends[m] = Backend(db_url(admin, m))

    def timed(m: str, step: str, work: Any) -> None:
        b = backends[m]
        c0, t0 = b.cpu(), time.perf_counter()
        work(b.conn)
        out[m][step] += time.perf_counter() - t0
        out[m][step + "_cpu"] += b.cpu() - c0

    def copy(c: Any) -> None:
        with c.transaction():
            with c.cursor().copy(
                "COPY orders (id, customer_id, amount, status, note) FROM STDIN"
            ) as cp:
                cp.write(rows)

    try:
        backends[modes[0]].conn.execute("CHECKPOINT")
        time.sleep(1)
        for m in modes:
            timed(m, "copy", copy)
        for step, stmt in W1_SQL.items():
            for m in modes:
                timed(m, step, lambda c, stmt=stmt: c.execute(stmt))
        for m in modes:
            for suffix in ("", "_cpu"):
                out[m]["w1" + suffix] = sum(
                    out[m][s + suffix] for s in ("copy", "update", "delete")
                )
        backends[modes[0]].conn.execute("CHECKPOINT")
        time.sleep(1)
        for start in range(1_000_001, 1_000_001 + w2, BLOCK):
            ids = range(start, min(start + BLOCK, 1_000_001 + w2))

            def block(c: Any, ids: range = ids) -> None:
                for i in ids:
                    c.execute(INSERT, (i, i % 5000, ((i * 7) % 100000) / 100, "NEW", f"note {i}"))

            for m in modes:
                timed(m, "w2", block)
            modes = modes[1:] + modes[:1]  # each mode takes every place in turn
        for m, b in backends.items():
            if m == "capture":
                out[m]["records"] = b.conn.execute("SELECT count(*) FROM repl_items").fetchone()[0]
            elif m == "rowtrigger":
                out[m]["records"] = b.conn.execute(
                    "SELECT count(*) FROM orders_changes"
                ).fetchone()[0]
            elif m == "pgq":
                out[m]["records"] = b.conn.execute(
                    "SELECT count(*) FROM pgq.event_template"
                ).fetchone()[0]
    finally:
        for b in backends.values():
            b.conn.close()
    return out


LOOP = {
    "insert": "INSERT INTO orders (id, customer_id, amount, status, note)"
    " VALUES (i, i % 5000, i * 0.01, 'NEW', 'note ' || i)",
    "update": "UPDATE orders SET status = 'PAID' WHERE id = i",
    "delete": "DELETE FROM orders WHERE id = i",
}


LOOP_BLOCK = 500


def loops_once(admin: str, modes: list[str], n: int) -> dict[str, dict[str, float]]:
    """Backend CPU seconds of N committed single-row statements of each kind, per mode,
    run inside the server (a DO block) so that the trigger's cost is most of the rest."""
    out: dict[str, dict[str, float]] = {m: {} for m in modes}
    backends: dict[str, Backend] = {}
    for m in modes:
        setup(admin, m)
        backends[m] = Backend(db_url(admin, m))
        backends[m].conn.execute("SET synchronous_commit = off")
    try:
        for kind, stmt in LOOP.items():
            for m in modes:
                out[m][kind] = 0.0
            # blocks of LOOP_BLOCK statements, modes in rotating order: the load of a shared
            # machine changes within seconds, and falls on every mode alike this way
            for start in range(1, n + 1, LOOP_BLOCK):
                end = min(start + LOOP_BLOCK - 1, n)
                block = f"DO $$ BEGIN FOR i IN {start}..{end} LOOP {stmt}; COMMIT; END LOOP; END $$"
                for m in modes:
                    b = backends[m]
                    c0 = b.cpu()
                    b.conn.execute(block)
                    out[m][kind] += b.cpu() - c0
                modes = modes[1:] + modes[:1]
    finally:
        for b in backends.values():
            b.conn.close()
    return out


def loops_main(args: argparse.Namespace, modes: list[str]) -> int:
    results: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    try:
        for r in range(args.runs):
            order = modes[r % len(modes) :] + modes[: r % len(modes)]
            for mode, res in loops_once(args.url, order, args.loops).items():
                results[mode].append(res)
                print(f"run {r + 1} {mode:10s} " + _fmt(res), flush=True, file=sys.stderr)
    finally:
        for mode in modes:
            drop(args.url, mode)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\n{args.loops} committed single-row statements of each kind in a DO block, "
        f"synchronous_commit off; median of {args.runs} runs; "
        f"load average {load} on {os.cpu_count()} CPUs at the end"
    )
    print("backend CPU us per statement" + ("" if "none" not in modes else ", and over none"))
    print(f"{'mode':12s}" + "".join(f"{k:>18s}" for k in LOOP))
    for m in modes:
        cells = []
        for k in LOOP:
            us = statistics.median(x[k] for x in results[m]) / args.loops * 1e6
            if "none" in modes and m != "none":
                extra = statistics.median(
                    (x[k] - y[k]) / args.loops * 1e6
                    for x, y in zip(results[m], results["none"], strict=True)
                )
                cells.append(f"{us:8.1f} ({extra:+6.1f})")
            else:
                cells.append(f"{us:8.1f}         ")
        print(f"{m:12s}" + "".join(f"{c:>18s}" for c in cells))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--w1-rows", type=int, default=300_000)
    ap.add_argument("--w2", type=int, default=20_000)
    ap.add_argument("--modes", default="none,capture")
    ap.add_argument("--json", action="store_true", help="print the raw runs as JSON lines")
    ap.add_argument("--loops", type=int, default=0, help="server-side single-row loops of N")
    args = ap.parse_args(argv)
    modes = args.modes.split(",")
    if args.loops:
        return loops_main(args, modes)
    rows = copy_text(args.w1_rows)
    n = args.w1_rows
    changes = n + n // 2 + n // 10
    results: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    try:
        for r in range(args.runs):
            order = modes[r % len(modes) :] + modes[: r % len(modes)]
            for mode, res in run_once(args.url, order, rows, args.w2).items():
                results[mode].append(res)
                if args.json:
                    print(json.dumps({"run": r, "mode": mode, **res}), flush=True)
                else:
                    print(f"run {r + 1} {mode:10s} " + _fmt(res), flush=True, file=sys.stderr)
    finally:
        for mode in modes:
            drop(args.url, mode)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    med = {m: {k: statistics.median(x[k] for x in results[m]) for k in STEPS + CPU} for m in modes}
    print(
        f"\nW1: COPY {n}, UPDATE {n // 2}, DELETE {n // 10} ({changes} changes); "
        f"W2: {args.w2} single-row transactions; median of {args.runs} runs; "
        f"load average {load} on {os.cpu_count()} CPUs at the end"
    )
    for title, suffix in (("wall seconds", ""), ("server backend CPU seconds", "_cpu")):
        print(f"\n{title}")
        print(f"{'mode':12s}" + "".join(f"{s:>10s}" for s in STEPS))
        for m in modes:
            print(f"{m:12s}" + "".join(f"{med[m][s + suffix]:10.3f}" for s in STEPS))
        if "none" not in modes:
            continue
        for m in modes:
            if m == "none":
                continue
            ratios = "  ".join(
                f"{s} {_ratio(med[m][s + suffix], med['none'][s + suffix])}" for s in STEPS
            )
            per = (med[m]["w1" + suffix] - med["none"]["w1" + suffix]) / changes * 1e6
            per2 = (med[m]["w2" + suffix] - med["none"]["w2" + suffix]) / args.w2 * 1e6
            print(
                f"{m} vs none: {ratios}  |  {per:+.1f} us per W1 change, "
                f"{per2:+.1f} us per W2 transaction"
            )
    print()
    for m in modes:
        if m != "none":
            recs = sorted({int(x["records"]) for x in results[m]})
            print(f"{m}: change records written per run: {recs} (expected {changes + args.w2})")
    return 0


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 else "n/a"


def _fmt(res: dict[str, Any]) -> str:
    return " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in res.items())


if __name__ == "__main__":
    sys.exit(main())
