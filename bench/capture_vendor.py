"""Capture overhead at a MariaDB or a SQLite source: W1 bulk statements and W2 single-row
transactions, without capture and with syncpoint's capture installed (its own API, as
``syncpoint install`` does), interleaved, medians, ratios measured in this one run.

Each run makes one fresh source per mode (a MariaDB database, or a SQLite file in a
temporary folder) with the ``orders`` table of the PostgreSQL bench, then

- W1: N rows inserted by multi-row ``INSERT`` statements of ``--batch`` rows in one
  transaction, ``UPDATE ... WHERE id % 2 = 0``, ``DELETE ... WHERE id % 10 = 0``, each step
  its own transaction (N = 300,000: 480,000 changes);
- W2: M single-row ``INSERT`` transactions, in blocks of 500 per mode in rotating order.

Both modes connect the way syncpoint does (the vendor's ``connect``: pinned SQL mode and
time zone at MariaDB, WAL journal at SQLite), so the only difference is the capture.
MariaDB's times are wall times on the client (the server's CPU is not per connection);
SQLite runs in this process, so its CPU time is this process's (``time.process_time``).

    .venv/bin/python bench/capture_vendor.py --vendor mariadb|sqlite [--runs 3]
        [--w1-rows 300000] [--w2 20000] [--batch 1000]
        [--url mysql://root@127.0.0.1:3306/]

``capture_rows(vendor, ...)`` returns the figures as rows (name, measured, ratio) for
``table.py``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from syncpoint.config import TableConfig
from syncpoint.vendors.mariadb import dialect as my_dialect
from syncpoint.vendors.mariadb.capture import MariadbCapture
from syncpoint.vendors.sqlite import dialect as lite_dialect
from syncpoint.vendors.sqlite.capture import SqliteCapture

MODES = ("none", "capture")
STEPS = ("insert", "update", "delete", "w1", "w2")
DB = "sp_bench_capture_{vendor}_{mode}"
MY_ADMIN = "mysql://root@127.0.0.1:3306/"
ORDERS = {
    "mariadb": "CREATE TABLE orders (id BIGINT PRIMARY KEY, customer_id INT, "
    "amount DECIMAL(12,2), status VARCHAR(16), note TEXT, "
    "updated_at TIMESTAMP(6) NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB",
    "sqlite": "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, "
    "amount NUMERIC, status TEXT, note TEXT, updated_at TEXT DEFAULT CURRENT_TIMESTAMP)",
}
W1_SQL = {
    "update": "UPDATE orders SET status = 'SHIPPED' WHERE id % 2 = 0",
    "delete": "DELETE FROM orders WHERE id % 10 = 0",
}
BLOCK = 500  # W2 transactions per turn of a mode


def row_values(i: int) -> tuple[Any, ...]:
    return (i, i % 5000, ((i * 7) % 100000) / 100, "NEW" if i % 3 else "PAID", f"note {i} ünïcode")


class Source:
    """One mode's source: a connection with the table, capture installed or not, and a
    way to run a statement with parameters and to commit."""

    def __init__(self, vendor: str, mode: str, admin: str, folder: str):
        self.vendor, self.mode = vendor, mode
        name = DB.format(vendor=vendor, mode=mode)
        if vendor == "mariadb":
            self.admin = admin
            self._admin_sql(f"DROP DATABASE IF EXISTS `{name}`")
            self._admin_sql(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
            self.url = admin.rstrip("/") + "/" + name
            self.conn = my_dialect.connect(self.url, autocommit=True)
            self.mark = "%s"
            self.begin = "BEGIN"
        else:
            self.url = f"sqlite:///{os.path.join(folder, name + '.db')}"
            self.conn = lite_dialect.connect(self.url)
            self.mark = "?"
            self.begin = "BEGIN IMMEDIATE"
        self.execute(ORDERS[vendor])
        if mode == "capture":
            cls = MariadbCapture if vendor == "mariadb" else SqliteCapture
            cap = cls("bench", self.url, "repl_")
            conn = cap.connect()
            cap.install(conn, [TableConfig(name="orders")])
            conn.close()
        self.insert = (
            "INSERT INTO orders (id, customer_id, amount, status, note) VALUES "
            f"({', '.join([self.mark] * 5)})"
        )

    def _admin_sql(self, stmt: str) -> None:
        c = my_dialect.connect(self.admin, autocommit=True)
        try:
            c.cursor().execute(stmt)
        finally:
            c.close()

    def execute(self, stmt: str, params: tuple[Any, ...] | list[Any] = ()) -> None:
        cur = self.conn.cursor()
        # PyMySQL formats with "%" whenever given parameters, even none
        cur.execute(stmt, params) if params else cur.execute(stmt)

    def transaction(self, statements: list[tuple[str, tuple[Any, ...] | list[Any]]]) -> None:
        self.execute(self.begin)
        for stmt, params in statements:
            self.execute(stmt, params)
        self.execute("COMMIT")

    def records(self) -> int:
        cur = self.conn.cursor()
        cur.execute("SELECT count(*) FROM repl_items")
        return int(cur.fetchone()[0])

    def close(self) -> None:
        self.conn.close()
        if self.vendor == "mariadb":
            self._admin_sql(
                f"DROP DATABASE IF EXISTS `{DB.format(vendor=self.vendor, mode=self.mode)}`"
            )


def single_rows(s: Source, ids: range) -> None:
    for i in ids:
        s.transaction([(s.insert, row_values(i))])


def run_once(
    vendor: str, admin: str, modes: list[str], w1_rows: int, w2: int, batch: int
) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {m: {s: 0.0 for s in STEPS} for m in modes}
    cpu: dict[str, dict[str, float]] = {m: {s: 0.0 for s in STEPS} for m in modes}
    folder = tempfile.mkdtemp(prefix="sp_bench_capture_")
    sources: dict[str, Source] = {}
    try:
        for m in modes:
            sources[m] = Source(vendor, m, admin, folder)

        def timed(m: str, step: str, work: Callable[[], None]) -> None:
            c0, t0 = time.process_time(), time.perf_counter()
            work()
            out[m][step] += time.perf_counter() - t0
            cpu[m][step] += time.process_time() - c0

        # the W1 INSERT statements are made before the clock starts (same text for every
        # mode of a vendor)
        mark = sources[modes[0]].mark
        bulk: list[tuple[str, tuple[Any, ...] | list[Any]]] = []
        for start in range(1, w1_rows + 1, batch):
            ids = range(start, min(start + batch, w1_rows + 1))
            values = ", ".join([f"({', '.join([mark] * 5)})"] * len(ids))
            bulk.append(
                (
                    f"INSERT INTO orders (id, customer_id, amount, status, note) VALUES {values}",
                    [v for i in ids for v in row_values(i)],
                )
            )
        for m in modes:
            timed(m, "insert", partial(sources[m].transaction, bulk))
        for step, stmt in W1_SQL.items():
            for m in modes:
                timed(m, step, partial(sources[m].transaction, [(stmt, ())]))
        base = 1_000_001
        for start in range(base, base + w2, BLOCK):
            ids = range(start, min(start + BLOCK, base + w2))
            for m in modes:
                timed(m, "w2", partial(single_rows, sources[m], ids))
            modes = modes[1:] + modes[:1]  # each mode takes every place in turn
        for m in out:
            for d in (out[m], cpu[m]):
                d["w1"] = d["insert"] + d["update"] + d["delete"]
            out[m].update({f"{k}_cpu": v for k, v in cpu[m].items()})
            if m == "capture":
                out[m]["records"] = sources[m].records()
    finally:
        for s in sources.values():
            s.close()
        shutil.rmtree(folder, ignore_errors=True)
    return out


def measure(
    vendor: str, runs: int, w1_rows: int, w2: int, batch: int = 1000, admin: str = MY_ADMIN
) -> dict[str, Any]:
    """Medians over ``runs`` interleaved runs of every step, wall and (SQLite) CPU."""
    modes = list(MODES)
    results: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    for r in range(runs):
        order = modes[r % len(modes) :] + modes[: r % len(modes)]
        for m, res in run_once(vendor, admin, order, w1_rows, w2, batch).items():
            results[m].append(res)
            print(
                f"run {r + 1} {vendor} {m:8s} "
                + " ".join(f"{k}={v:.3f}" for k, v in res.items() if not k.endswith("_cpu")),
                file=sys.stderr,
                flush=True,
            )
    keys = [k for k in results["none"][0] if k != "records"]
    med = {m: {k: statistics.median(x[k] for x in results[m]) for k in keys} for m in modes}
    return {
        "med": med,
        "records": sorted({int(x["records"]) for x in results["capture"]}),
        "changes": w1_rows + w1_rows // 2 + w1_rows // 10,
        "w1_rows": w1_rows,
        "w2": w2,
        "runs": runs,
    }


def rows_of(vendor: str, m: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(name, measured, ratio) rows of one ``measure`` result."""
    med, name = m["med"], {"mariadb": "MariaDB", "sqlite": "SQLite"}[vendor]
    out = []
    for step, what, n in (
        ("w1", f"{name} capture W1 bulk statements vs no capture", m["changes"]),
        ("w2", f"{name} capture W2 single-row transactions vs no capture", m["w2"]),
    ):
        cap, none = med["capture"][step], med["none"][step]
        per = (cap - none) / n * 1e6
        measured = f"{cap:.2f} s vs {none:.2f} s wall ({per:+.1f} us each)"
        ratio = f"{cap / none:.2f}x wall" if none > 0 else "n/a"
        if vendor == "sqlite" and med["none"][step + "_cpu"] > 0:
            ratio += f", {med['capture'][step + '_cpu'] / med['none'][step + '_cpu']:.2f}x CPU"
        out.append((what, measured, ratio))
    return out


def capture_rows(
    vendor: str, runs: int = 3, w1_rows: int = 300_000, w2: int = 20_000, admin: str = MY_ADMIN
) -> list[tuple[str, str, str]]:
    """For table.py: the W1 and W2 rows of one vendor, measured now."""
    return rows_of(vendor, measure(vendor, runs, w1_rows, w2, admin=admin))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vendor", choices=("mariadb", "sqlite"), required=True)
    ap.add_argument("--url", default=MY_ADMIN, help="MariaDB server (the admin connection)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--w1-rows", type=int, default=300_000)
    ap.add_argument("--w2", type=int, default=20_000)
    ap.add_argument("--batch", type=int, default=1000, help="rows per W1 INSERT statement")
    args = ap.parse_args(argv)
    m = measure(args.vendor, args.runs, args.w1_rows, args.w2, args.batch, args.url)
    med = m["med"]
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    n = args.w1_rows
    print(
        f"\n{args.vendor}: W1: INSERT {n} (statements of {args.batch} rows), UPDATE {n // 2}, "
        f"DELETE {n // 10} ({m['changes']} changes); W2: {args.w2} single-row transactions; "
        f"median of {args.runs} runs; load average {load} on {os.cpu_count()} CPUs at the end"
    )
    suffixes = (("wall seconds", ""),) + (
        (("CPU seconds (this process)", "_cpu"),) if args.vendor == "sqlite" else ()
    )
    for title, suffix in suffixes:
        print(f"\n{title}")
        print(f"{'mode':10s}" + "".join(f"{s:>10s}" for s in STEPS))
        for mode in MODES:
            print(f"{mode:10s}" + "".join(f"{med[mode][s + suffix]:10.3f}" for s in STEPS))
        print(
            "capture vs none: "
            + "  ".join(
                f"{s} {med['capture'][s + suffix] / med['none'][s + suffix]:.2f}x"
                if med["none"][s + suffix] > 0
                else f"{s} n/a"
                for s in STEPS
            )
        )
    print()
    for what, measured, ratio in rows_of(args.vendor, m):
        print(f"{what}: {measured}, {ratio}")
    print(f"change records written per run: {m['records']} (expected {m['changes'] + args.w2})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
