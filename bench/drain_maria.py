"""The rate of log capture's drain on MariaDB: rows decoded from the binary log and written
into the queue per second, by one tick, on a private MariaDB with the binary log on
(``tests/private_mariadb.py``).

A table like sysbench's (``id`` INT key, ``k`` INT, ``c`` CHAR(120), ``pad`` CHAR(60)) gets
``--txns`` transactions of ``--rows`` rows each (inserts, then as many updates of them, then
deletes, a third each) while capture is installed; then one ``tick`` drains all of them,
timed. ``--others`` adds as many rows written to a database that is not captured (the
binary log is one per server: the drain reads past them). ``--profile`` prints the drain's
heaviest functions (cProfile; the rate under it is lower).

``--follow S``: a follower instead, the way ``run --follow --interval 1`` reads: a thread
ticking every second (with the reader kept open across ticks, as a follower keeps it) while
single-row transactions commit at ``--rate`` a second for S seconds; it prints the
follower thread's CPU per 10,000 row changes (ticks, drains, queue writes and purges);
``--profile`` prints the follower thread's heaviest functions.

``--lag S``: capture's lag at ``--rate`` single-row transactions a second (``--writers``
connections, 2) for S seconds,
a follower thread ticking every ``--interval`` seconds (0.2, as ``table.py``'s lag run
follows): p50/p99 of the time from each change's commit to the end of the first tick whose
queue holds it (the apply after it is not counted).

    .venv/bin/python bench/drain_maria.py [--txns 2000] [--rows 10] [--others 0] [--profile]
    .venv/bin/python bench/drain_maria.py --follow 20 [--rate 500] [--profile]
    .venv/bin/python bench/drain_maria.py --lag 20 --rate 1000 [--interval 0.2] [--writers 2]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

import pymysql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.private_mariadb import private_mariadb  # noqa: E402

DDL = (
    "CREATE TABLE {t} (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, "
    "pad CHAR(60) NOT NULL) ENGINE=InnoDB"
)


def write(cur: pymysql.cursors.Cursor, table: str, txns: int, rows: int) -> int:
    """``txns`` transactions of ``rows`` rows: a third inserts, a third updates, a third
    deletes; returns the rows changed."""
    changed = 0
    third = max(txns // 3, 1)
    for t in range(txns):
        base = (t % third) * rows
        cur.execute("BEGIN")
        if t < third:
            cur.executemany(
                f"INSERT INTO {table} VALUES (%s, %s, %s, %s)",
                [(base + i, i, f"{base + i:0>119}-", f"{i:0>59}-") for i in range(rows)],
            )
        elif t < 2 * third:
            cur.execute(
                f"UPDATE {table} SET k = k + 1, c = REVERSE(c) WHERE id >= %s AND id < %s",
                (base, base + rows),
            )
        else:
            cur.execute(f"DELETE FROM {table} WHERE id >= %s AND id < %s", (base, base + rows))
        changed += cur.rowcount if cur.rowcount > 0 else 0
        cur.execute("COMMIT")
    return changed


def follow(seconds: float, rate: int, profile: bool = False) -> None:
    """A follower's CPU per 10,000 row changes under a steady single-row writer; with
    ``profile``, the follower thread's heaviest functions (cProfile) after it."""
    import threading
    from contextlib import nullcontext

    from syncpoint.config import TableConfig
    from syncpoint.vendors.mariadb.log.capture import MariadbLogCapture

    try:
        from syncpoint.vendors.kept import kept
    except ImportError:  # a version without kept readers: a reader a tick
        kept = nullcontext  # type: ignore[assignment]
    with private_mariadb() as admin:
        port = int(admin.rsplit(":", 1)[1].strip("/"))
        root = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
        cur = root.cursor()
        cur.execute("CREATE DATABASE src")
        cur.execute(DDL.format(t="src.t"))
        cap = MariadbLogCapture("bench", f"{admin}src", "repl_")
        conn = cap.connect()
        cap.install(conn, [TableConfig(name="t")])
        stop = threading.Event()
        used: list[float] = []

        prof = cProfile.Profile() if profile else None

        def follower() -> None:
            with kept(), cap.connect() as c:
                start = time.thread_time()
                if prof:
                    prof.enable()
                while not stop.wait(1.0):
                    t = cap.tick(c)
                    cap.purge(c, t.context)
                t = cap.tick(c)
                cap.purge(c, t.context)
                if prof:
                    prof.disable()
                used.append(time.thread_time() - start)

        th = threading.Thread(target=follower)
        th.start()
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            wait = t0 + n / rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            cur.execute("INSERT INTO src.t VALUES (%s, 1, 'c', 'p')", (n,))
            n += 1
        stop.set()
        th.join()
        conn.close()
        root.close()
    print(f"follower: {n:,} single-row transactions at {n / seconds:,.0f}/s for {seconds:.0f} s: "
          f"{used[0]:.2f} s of the follower thread's CPU, {used[0] / n * 10_000:.2f} s per "
          f"10,000 row changes; load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    if prof:
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        pstats.Stats(prof).sort_stats("cumulative").print_stats(40)


def lag(seconds: float, rate: int, interval: float, writers: int) -> None:
    """Capture's lag: single-row transactions at ``rate`` a second (by ``writers``
    connections) for ``seconds`` while a follower thread ticks every ``interval`` seconds
    (its reader kept); a change's lag is the time from its commit to the end of the tick
    whose queue first holds it (a reader of the queue sees it from then on; the apply after
    it is not counted)."""
    import statistics
    import threading

    from syncpoint.config import TableConfig
    from syncpoint.vendors.kept import kept
    from syncpoint.vendors.mariadb.log.capture import MariadbLogCapture

    with private_mariadb() as admin:
        port = int(admin.rsplit(":", 1)[1].strip("/"))
        root = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
        cur = root.cursor()
        cur.execute("CREATE DATABASE src")
        cur.execute(DDL.format(t="src.t"))
        cap = MariadbLogCapture("bench", f"{admin}src", "repl_")
        conn = cap.connect()
        cap.install(conn, [TableConfig(name="t")])
        stop = threading.Event()
        seen: dict[int, float] = {}  # id -> the end of the tick whose queue first held it

        def follower() -> None:
            with kept(), cap.connect() as c:
                q = c.cursor()
                while True:
                    last = stop.is_set()
                    t = cap.tick(c)
                    now = time.perf_counter()
                    q.execute(
                        "SELECT CAST(JSON_VALUE(content, '$.id') AS INT) FROM repl_items "
                        "WHERE context = %s", (t.context,)
                    )  # fmt: skip
                    for (i,) in q.fetchall():
                        seen.setdefault(int(i), now)
                    c.commit()
                    if last:
                        break
                    time.sleep(interval)

        committed: dict[int, float] = {}

        def writer(k: int) -> None:
            w = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
            wc = w.cursor()
            each = rate / writers
            n, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < seconds:
                wait = t0 + n / each - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
                i = n * writers + k
                wc.execute("INSERT INTO src.t VALUES (%s, 1, 'c', 'p')", (i,))
                committed[i] = time.perf_counter()
                n += 1
            w.close()

        th = threading.Thread(target=follower)
        th.start()
        ws = [threading.Thread(target=writer, args=(k,)) for k in range(writers)]
        for w in ws:
            w.start()
        for w in ws:
            w.join()
        time.sleep(interval + 1)
        stop.set()
        th.join()
        conn.close()
        root.close()
    lags = sorted(seen[i] - when for i, when in committed.items() if i in seen)
    n = len(committed)
    print(f"lag: {n:,} single-row transactions at {n / seconds:,.0f}/s ({writers} writers) "
          f"for {seconds:.0f} s, ticks every {interval} s: {len(lags):,} seen; p50 "
          f"{statistics.median(lags):.3f} s, p99 {lags[int(len(lags) * 0.99) - 1]:.3f} s, "
          f"max {lags[-1]:.3f} s; load average {os.getloadavg()[0]:.1f}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--txns", type=int, default=2000)
    ap.add_argument("--rows", type=int, default=10)
    ap.add_argument("--others", type=int, default=0, help="rows written to another database")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--follow", type=float, default=0.0, help="seconds of a follower's run")
    ap.add_argument("--rate", type=int, default=500, help="--follow: transactions a second")
    ap.add_argument("--lag", type=float, default=0.0, help="seconds of a lag measure")
    ap.add_argument("--interval", type=float, default=0.2, help="--lag: seconds between ticks")
    ap.add_argument("--writers", type=int, default=2, help="--lag: writing connections")
    args = ap.parse_args()
    if args.lag:
        lag(args.lag, args.rate, args.interval, args.writers)
        return
    if args.follow:
        follow(args.follow, args.rate, args.profile)
        return

    from syncpoint.config import TableConfig
    from syncpoint.vendors.mariadb.log.capture import MariadbLogCapture

    with private_mariadb() as admin:
        port = int(admin.rsplit(":", 1)[1].strip("/"))
        root = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
        cur = root.cursor()
        for db in ("src", "other"):
            cur.execute(f"CREATE DATABASE {db}")
            cur.execute(DDL.format(t=f"{db}.t"))
        cap = MariadbLogCapture("bench", f"{admin}src", "repl_")
        conn = cap.connect()
        cap.install(conn, [TableConfig(name="t")])
        changed = write(cur, "src.t", args.txns, args.rows)
        if args.others:
            write(cur, "other.t", max(args.others // args.rows, 1), args.rows)
        prof = cProfile.Profile() if args.profile else None
        cpu, t = time.process_time(), time.perf_counter()
        if prof:
            prof.enable()
        cap.tick(conn)
        if prof:
            prof.disable()
        wall, cpu = time.perf_counter() - t, time.process_time() - cpu
        cur.execute("SELECT count(*) FROM src.repl_items")
        queued = int(cur.fetchone()[0])
        conn.close()
        root.close()
    load = os.getloadavg()[0]
    print(
        f"drain of {args.txns} transactions ({changed} rows changed, {queued} queued; "
        f"{args.others} rows of another database): {wall:.2f} s wall, {cpu:.2f} s CPU of "
        f"this process, {queued / wall:,.0f} rows/s; load average {load:.1f}"
    )
    if prof:
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
