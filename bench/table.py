"""``make bench``: one table of every figure of the performance targets, measured in this
run, with the ratios taken in the same run, the machine's core count and its load.

Rows (PostgreSQL 15 to PostgreSQL 15; W1 = COPY 300k, UPDATE 150k, DELETE 30k; W2 =
20,000 single-row transactions). The capture, pgbench and lag rows run on the shared
cluster (``--pg``); the apply rows, the peers' apply and the memory row on a private
PostgreSQL 15 instance this script starts (``private_pg.py``: ``wal_level = logical``,
which the shared cluster cannot get without a restart), so that syncpoint and the peers
apply W1 on the same server; the table says where each row ran.

- apply W1, warm JVM (a second ``run --once`` in a process whose Spark session is up), on
  the direct path and, in the same run, on Spark's JDBC read (``SYNCPOINT_ROUND_PATH=spark``);
- apply W1, one ``syncpoint run --once`` command from a cold start (JVM start included);
- a raw ``COPY TO | COPY FROM`` pipe of the rows the warm W1 left, between the same databases;
- log capture beside trigger capture (``log_pg.py``, on a private instance of its own):
  ``pgbench``, W1 capture overhead and the drain, apply W1 from the log and from the
  trigger queue, lag p50/p99;
- apply W1 MariaDB to PostgreSQL, PostgreSQL to MariaDB and MariaDB to MariaDB, warm and
  cold, each beside a raw pipe by the client between the same servers (``apply_cross.py``);
- capture overhead on W1 and W2: no capture, syncpoint's triggers, PgQ's C trigger
  (``capture_insert_pg.py``'s interleaved runs);
- ``pgbench`` TPC-B-like, scale 5, 4 clients: one database copied (``CREATE DATABASE ...
  TEMPLATE``) without capture, with syncpoint's, with PgQ's, runs interleaved;
- lag from source commit to target visibility under ``run --follow --interval 0.2`` with a
  writer at 1,000 changes/s, and the time a fresh ``run --follow`` takes to catch up a 10 s
  backlog;
- the peers' apply of W1 from a standing start: native logical replication and Londiste 3
  (``peers_pg.py``), beside syncpoint's warm apply of the same W1 on the same server;
- memory: 10 million changes in one ``syncpoint run --once`` (``memory_10m.py``): the
  driver JVM's peak heap and the Python process's peak RSS, the target checked;
- small tables (``small_tables.py``): ``snapshot`` and ``verify`` of 14 small tables, each
  one process with its start-up, and ``verify`` of a 1,000,000-row table against its
  ``snapshot``;
- cost per table (``table_count.py``): one sync group of 10, 50, 200 and 500 tables, an
  empty ``run --once``, one after 5 tables changed 10 rows each, and ``status``, each one
  process timed from outside; the slope in ms a table and the ratio of 200 tables to 10.

A peer that cannot be installed or measured here is a row that says so. Every database it
makes is dropped at the end; nothing is hard-coded.

    .venv/bin/python bench/table.py [--quick] [--no-peers] [--no-memory] [--apply-on-shared]
        [--pg postgresql://postgres@127.0.0.1:5432]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
import traceback
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).parent))
import apply_cross  # noqa: E402
import capture_insert_pg as cap  # noqa: E402
import capture_vendor  # noqa: E402
import memory_10m  # noqa: E402
import peers_pg  # noqa: E402
import small_tables  # noqa: E402
import sysbench_maria  # noqa: E402
import table_count  # noqa: E402
from apply_pg import ORDERS, channel_file, checksum, make_changes  # noqa: E402
from private_pg import private_cluster  # noqa: E402

BIN = Path(sys.executable).parent
ROWS: list[tuple[str, str, str, str, str]] = []  # what, measured, goal, peers / note, where
SHARED = "shared"
PRIVATE = "private"
# the table's labels, set in main (MariaDB's server and SQLite's files are the only ones)
WHERE = {
    SHARED: "shared",
    PRIVATE: "private",
    "mariadb": "MariaDB",
    "sqlite": "SQLite file",
    "cross": "shared and MariaDB",
    "log": "private (wal_level logical), its own",
}


def row(what: str, measured: str, goal: str, note: str = "", where: str = SHARED) -> None:
    ROWS.append((what, measured, goal, note, where))
    print(f"  {what}: {measured}  {note}", file=sys.stderr, flush=True)


class Dbs:
    """Throwaway databases of this run, dropped at the end."""

    def __init__(self, base: str):
        self.base = base
        self.admin = psycopg.connect(f"{base}/postgres", autocommit=True)
        self.names: list[str] = []

    def make(self, role: str, template: str | None = None) -> str:
        name = f"sp_table_{uuid.uuid4().hex[:8]}_{role}"
        extra = f' TEMPLATE "{template}"' if template else ""
        self.admin.execute(f'CREATE DATABASE "{name}"{extra}')
        self.names.append(name)
        return name

    def url(self, name: str) -> str:
        return f"{self.base}/{name}"

    def drop_all(self) -> None:
        for n in self.names:
            self.admin.execute(f'DROP DATABASE IF EXISTS "{n}" WITH (FORCE)')


SHUFFLE = {"spark.sql.shuffle.partitions": "4"}


def syncpoint(cfg: Path, *args: str, **kw: Any) -> Any:
    return subprocess.Popen([str(BIN / "syncpoint"), "-c", str(cfg), *args], **kw)


# -- apply ---------------------------------------------------------------------------------
def apply_rows(dbs: Dbs, changes: int, master: str, where: str) -> float:
    """The apply rows; returns the warm apply's changes/s (the peers' rows compare to it)."""
    from syncpoint.config import SparkConfig
    from syncpoint.ops.channel import Channel
    from syncpoint.ops.session import get_session
    from syncpoint.spark.session import stop_session

    n_ins, n_upd = changes * 5 // 8, changes * 5 // 16
    n_del = changes - n_ins - n_upd
    src, dst, raw = dbs.make("src"), dbs.make("dst"), dbs.make("raw")
    s = psycopg.connect(dbs.url(src), autocommit=True)
    s.execute(ORDERS)
    cfg = channel_file(dbs.url(src), dbs.url(dst), master, conf=SHUFFLE, driver_round_max=0)
    assert syncpoint(cfg, "install", stdout=subprocess.DEVNULL).wait() == 0
    # cold: one command, JVM and Spark start included
    make_changes(s, 0, n_ins, n_upd, n_del)
    t = time.perf_counter()
    done = syncpoint(cfg, "run", "--once", "--json", stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL)  # fmt: skip
    out, _ = done.communicate()
    cold = time.perf_counter() - t
    cold_changes = json.loads(out)["changes"]
    # warm: a session that is up, as in a long-running run --follow
    ch = Channel.from_file(cfg)
    spark = get_session(SparkConfig(master=master, conf={"spark.sql.shuffle.partitions": "4"}))
    spark.range(1).count()
    # warm: a long-running process has applied rounds of this size before (the JIT has
    # compiled their paths: the first such round of a session takes about 1.7x a later one)
    make_changes(s, 10 * n_ins, n_ins, n_upd, n_del)
    ch.run(once=True, spark=spark)
    make_changes(s, 20 * n_ins, n_ins, n_upd, n_del)
    t = time.perf_counter()
    report = ch.run(once=True, spark=spark)
    warm = time.perf_counter() - t
    # the same W1 once more through Spark's JDBC read and netting (the path before the
    # direct one), warmed up alike, in the same run
    os.environ["SYNCPOINT_ROUND_PATH"] = "spark"
    try:
        make_changes(s, 30 * n_ins, n_ins, n_upd, n_del)
        ch.run(once=True, spark=spark)
        make_changes(s, 40 * n_ins, n_ins, n_upd, n_del)
        t = time.perf_counter()
        jdbc_report = ch.run(once=True, spark=spark)
        jdbc = time.perf_counter() - t
    finally:
        os.environ.pop("SYNCPOINT_ROUND_PATH", None)
    stop_session()
    d = psycopg.connect(dbs.url(dst), autocommit=True)
    equal = checksum(s) == checksum(d)
    # the rows the measured warm W1 left (its ids; earlier rounds' rows are other ids)
    w1_rows = f"SELECT * FROM orders WHERE id > {20 * n_ins} AND id <= {21 * n_ins}"
    final = int(s.execute(f"SELECT count(*) FROM ({w1_rows}) w").fetchone()[0])
    r = psycopg.connect(dbs.url(raw), autocommit=True)
    r.execute(ORDERS)
    t = time.perf_counter()
    buf = io.BytesIO()
    with s.cursor().copy(f"COPY ({w1_rows}) TO STDOUT (FORMAT binary)") as cp:
        for chunk in cp:
            buf.write(chunk)
    with r.cursor().copy("COPY orders FROM STDIN (FORMAT binary)") as cp:
        cp.write(buf.getvalue())
    pipe = time.perf_counter() - t
    warm_rate, cold_rate = report.changes / warm, cold_changes / cold
    row(
        f"apply W1 ({report.changes:,} changes), warm JVM, direct path (COPY database to "
        "database by the driver's threads with a local master, netted at the target)",
        f"{warm_rate:,.0f} changes/s ({warm:.1f} s)",
        ">= native logical replication's rate in the same run",
        f"target equals source: {equal}",
        where,
    )
    row(
        f"apply W1 ({jdbc_report.changes:,} changes), warm JVM, Spark's JDBC read and netting "
        "(the path before)",
        f"{jdbc_report.changes / jdbc:,.0f} changes/s ({jdbc:.1f} s)",
        "-",
        f"the direct path took {warm / jdbc:.2f}x its time",
        where,
    )
    row(
        f"apply W1 ({cold_changes:,} changes), one `run --once` from a cold start",
        f"{cold_rate:,.0f} changes/s ({cold:.1f} s)",
        ">= 80,000 changes/s",
        "a new process: whatever it starts (a direct round copies in the driver's threads "
        "and starts no JVM)",
        where,
    )
    row(
        f"raw COPY TO | COPY FROM pipe of the {final:,} rows the warm W1 left",
        f"{final / pipe:,.0f} rows/s ({pipe:.2f} s); warm apply took {warm / pipe:.1f}x the pipe",
        "apply within 2x of it",
        "",
        where,
    )
    for c in (s, d, r):
        c.close()
    return warm_rate


# -- peers and memory (private instance) -----------------------------------------------------
def peer_rows(dbs: Dbs, changes: int, warm_rate: float | None) -> None:
    """Native logical replication and Londiste 3 replaying W1 from a standing start."""
    londiste = all(shutil.which(b) for b in ("londiste", "pgqd"))
    for name, fn, missing in (
        ("native logical replication (pgoutput)", peers_pg.native_standing, None),
        (
            "Londiste 3 replay (pgqd + londiste worker, defaults)",
            peers_pg.londiste_standing,
            None if londiste else "python3-londiste or pgqd not installed",
        ),
    ):
        what = f"{name}, W1 ({changes:,} changes) from a standing start"
        if missing:
            row(what, "not measured", "-", missing, PRIVATE)
            continue
        src, dst = dbs.make("peer_src"), dbs.make("peer_dst")
        try:
            took = fn(dbs.url(src), dbs.url(dst), changes)
        except Exception as e:  # a peer that fails is a row that says so
            traceback.print_exc()
            row(what, "failed", "-", f"{type(e).__name__}: {e}", PRIVATE)
            continue
        if took < 0:
            row(what, "did not catch up in 900 s", "-", "", PRIVATE)
            continue
        rate = changes / took
        note = (
            f"{rate / warm_rate:.2f}x syncpoint's warm apply of the same W1 on the same server; "
            if warm_rate
            else ""
        )
        row(what, f"{rate:,.0f} changes/s ({took:.1f} s)", "-", note + "target equals source",
            PRIVATE)  # fmt: skip


def memory_row(base: str, changes: int, master: str) -> None:
    m = memory_10m.measure(base, changes, master)
    ok = m["exit"] == 0 and m["target_equals_source"]
    # the direct path's rounds start no JVM: there is no heap to sample then
    heap = (
        f"driver JVM heap peak {m['heap_peak_mib']:,} MiB used of "
        f"{m['heap_committed_peak_mib']:,} (at most {m['after_collection_peak_mib']:,} MiB "
        "outlived a collection)"
        if m["jvm_started"]
        else "no JVM started (every round on the direct path)"
    )
    jvm = (
        f"-Xmx {m['driver_memory']}; JVM peak RSS {m['jvm_rss_peak_mib']:,} MiB; "
        if m["jvm_started"]
        else ""
    )
    row(
        f"memory, {changes:,} changes in one `syncpoint run --once`",
        f"{heap}, Python peak RSS {m['python_rss_peak_mib']:,} MiB; "
        f"{m['changes_applied'] or 0:,} changes in {m['run_s']:.0f} s",
        "heap < 1 GB, Python < 500 MB",
        jvm + ("target equals source" if ok else f"exit {m['exit']}, see {m['log']}"),
        PRIVATE,
    )


# -- capture -------------------------------------------------------------------------------
def capture_rows(url: str, runs: int, w1_rows: int, w2: int) -> None:
    modes = ["none", "capture", "pgq"] if pgq_available(url) else ["none", "capture"]
    text = cap.copy_text(w1_rows)
    res: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    try:
        for r in range(runs):
            order = modes[r % len(modes) :] + modes[: r % len(modes)]
            for m, got in cap.run_once(url, order, text, w2).items():
                res[m].append(got)
    finally:
        for m in modes:
            cap.drop(url, m)
    keys = ("w1", "w2", "w1_cpu", "w2_cpu")
    med = {m: {k: statistics.median(x[k] for x in res[m]) for k in keys} for m in modes}
    for step, name, goal in (
        ("w1", "capture W1 bulk statements vs no capture", "<= 2.5x"),
        ("w2", "capture W2 single-row transactions vs no capture", "<= 1.10x, <= PgQ"),
    ):
        n = w2 if step == "w2" else w1_rows * 1.6

        def ratio(m: str, k: str, step: str = step) -> float:
            return med[m][step + k] / med["none"][step + k]

        per = (med["capture"][step] - med["none"][step]) / n
        note = (
            f"PgQ's C trigger {ratio('pgq', ''):.2f}x wall, {ratio('pgq', '_cpu'):.2f}x "
            "backend CPU (same run)"
            if "pgq" in med
            else "PgQ: postgresql-15-pgq3 not installed"
        )
        row(
            name,
            f"{ratio('capture', ''):.2f}x wall ({per * 1e6:+.1f} us each), "
            f"{ratio('capture', '_cpu'):.2f}x backend CPU",
            goal,
            note,
        )


def pgq_available(url: str) -> bool:
    with psycopg.connect(url, autocommit=True) as c:
        return bool(
            c.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'pgq'").fetchone()
        )


def pgbench_row(dbs: Dbs, seconds: int, runs: int) -> None:
    if shutil.which("pgbench") is None:
        row("pgbench TPC-B-like, scale 5, 4 clients", "not measured", "<= -10%", "no pgbench")
        return
    from syncpoint.config import TableConfig
    from syncpoint.vendors.postgres.capture import PostgresCapture

    base = dbs.make("pgb_none")
    host = dbs.base.split("@", 1)[1].split("/", 1)[0].split(":")
    conn = ["-h", host[0], "-p", host[1] if len(host) > 1 else "5432", "-U", "postgres"]
    subprocess.run(["pgbench", *conn, "-i", "-s", "5", "-q", base], check=True,
                   capture_output=True)  # fmt: skip
    modes = {"none": base, "capture": dbs.make("pgb_cap", base)}
    tables = ("accounts", "branches", "tellers", "history")
    c = PostgresCapture("bench", dbs.url(modes["capture"]), "repl_")
    k = c.connect()
    c.install(
        k,
        [
            TableConfig(
                name=f"public.pgbench_{t}",
                key=["tid", "bid", "aid", "delta", "mtime"] if t == "history" else None,
            )
            for t in tables
        ],
    )
    k.close()
    if pgq_available(f"{dbs.base}/postgres"):
        modes["pgq"] = dbs.make("pgb_pgq", base)
        with psycopg.connect(dbs.url(modes["pgq"]), autocommit=True) as p:
            p.execute("CREATE EXTENSION pgq")
            p.execute("SELECT pgq.create_queue('bench')")
            for t in tables:
                p.execute(
                    f"CREATE TRIGGER bench_pgq AFTER INSERT OR UPDATE OR DELETE ON "
                    f"pgbench_{t} FOR EACH ROW EXECUTE FUNCTION pgq.logutriga('bench')"
                )
    tps: dict[str, list[float]] = {m: [] for m in modes}
    names = list(modes)
    for r in range(runs):
        for m in names[r % len(names) :] + names[: r % len(names)]:
            out = subprocess.run(
                ["pgbench", *conn, "-n", "-c", "4", "-j", "2", "-T", str(seconds), modes[m]],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            line = next(ln for ln in out.stdout.splitlines() if ln.startswith("tps"))
            tps[m].append(float(line.split()[2]))
    med = {m: statistics.median(v) for m, v in tps.items()}
    note = (
        f"PgQ's C trigger {med['pgq']:,.0f} tps ({med['pgq'] / med['none'] - 1:+.0%})"
        if "pgq" in med
        else "PgQ not installed"
    )
    row(
        f"pgbench TPC-B-like, scale 5, 4 clients, {seconds} s x {runs} interleaved",
        f"{med['capture']:,.0f} vs {med['none']:,.0f} tps uncaptured "
        f"({med['capture'] / med['none'] - 1:+.0%})",
        "<= -10%",
        note,
    )


# -- lag and catch-up ------------------------------------------------------------------------
def lag_rows(dbs: Dbs, master: str, seconds: float, spark_only: bool) -> None:
    """Lag and catch-up with the default engine choice (small rounds netted by the driver),
    or, with ``spark_only``, every round through Spark (``driver_round_max: 0``)."""
    src, dst = dbs.make("lag_src"), dbs.make("lag_dst")
    s = psycopg.connect(dbs.url(src), autocommit=True)
    s.execute(ORDERS)
    how = " (every round through Spark)" if spark_only else ""
    extra = {"driver_round_max": 0} if spark_only else {}
    cfg = channel_file(dbs.url(src), dbs.url(dst), master, conf=SHUFFLE, **extra)
    assert syncpoint(cfg, "install", stdout=subprocess.DEVNULL).wait() == 0
    lags, committed = follow_lag(cfg, s, dbs.url(dst), seconds)
    p50, p99 = lags[len(lags) // 2], lags[int(len(lags) * 0.99)]
    row(
        f"lag, run --follow --interval 0.2, 1,000 changes/s for {seconds:.0f} s{how}",
        f"p50 {p50:.2f} s, p99 {p99:.2f} s ({len(lags):,} changes)",
        "p50 <= 0.3 s, p99 <= 1 s",
        "Londiste: about 1 s median (peer research, not this run)",
    )
    # catch-up: a 10 s backlog, then a fresh run --follow
    start = max(committed) + 1
    backlog = write_at_rate(s, start, 10, 1000)
    t = time.perf_counter()
    log = open(cfg.parent / "follow.log", "a")  # noqa: SIM115 - closed below
    follow = syncpoint(cfg, "run", "--follow", "--interval", "0.2", stdout=log, stderr=log)
    try:
        ok = until_seen(dbs.url(dst), max(backlog), 300)
        took = time.perf_counter() - t
    finally:
        follow.terminate()
        follow.wait(30)
        log.close()
    row(
        f"a fresh run --follow catches up a 10 s backlog (10,000 changes){how}",
        f"{took:.1f} s" if ok else "did not catch up in 300 s",
        "<= 12 s",
    )
    s.close()


def follow_lag(
    cfg: Path, src: Any, dst_url: str, seconds: float
) -> tuple[list[float], dict[int, float]]:
    """``run --follow --interval 0.2`` of ``cfg`` while ``src`` gets single-row
    transactions at 1,000/s for ``seconds``: each change's lag from its commit to its
    visibility at the target (sorted), and the commit times (id -> time)."""
    log = open(cfg.parent / "follow.log", "a")  # noqa: SIM115 - closed below
    follow = syncpoint(cfg, "run", "--follow", "--interval", "0.2", stdout=log, stderr=log)
    try:
        write(src, 1, 1)  # the target table is made by the first round
        until_seen(dst_url, 1, 180)
        # the target is watched while the writer writes (a thread: visibility times are
        # taken as they happen)
        seen: dict[int, float] = {}
        last: dict[str, int] = {}  # the last id written, once the writer is done
        watcher = threading.Thread(target=watch, args=(dst_url, last, seen, seconds + 60))
        watcher.start()
        committed = write_at_rate(src, 2, seconds, 1000)
        last["id"] = max(committed)
        watcher.join()
    finally:
        follow.terminate()
        follow.wait(30)
        log.close()
    return sorted(seen[i] - committed[i] for i in committed if i in seen), committed


def write(conn: Any, i: int, n: int) -> None:
    conn.execute(
        "INSERT INTO orders (id, customer_id, amount, status, note) "
        "SELECT g, g %% 1000, 1.5, 'new', 'lag' FROM generate_series(%s::bigint, %s) g",
        (i, i + n - 1),
    )


def write_at_rate(conn: Any, start: int, seconds: float, rate: int) -> dict[int, float]:
    """Single-row transactions at ``rate`` per second; id -> commit time."""
    out: dict[int, float] = {}
    t0 = time.perf_counter()
    i = start
    while (now := time.perf_counter()) - t0 < seconds:
        due = int((now - t0) * rate)
        while i - start < due:
            write(conn, i, 1)
            out[i] = time.perf_counter()
            i += 1
        time.sleep(0.001)
    return out


def watch(url: str, last: dict[str, int], seen: dict[int, float], timeout: float) -> None:
    """When each id became visible at the target (polled every 10 ms), until the writer's
    last id (``last["id"]``, set when it is done) is seen."""
    with psycopg.connect(url, autocommit=True) as c:
        t0 = time.perf_counter()
        high = 0
        while high < last.get("id", high + 1) and time.perf_counter() - t0 < timeout:
            got = c.execute("SELECT coalesce(max(id), 0) FROM orders").fetchone()[0]
            now = time.perf_counter()
            for i in range(high + 1, int(got) + 1):
                seen[i] = now
            high = max(high, int(got))
            time.sleep(0.01)


def until_seen(url: str, i: int, timeout: float) -> bool:
    t0 = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as c:
        while time.perf_counter() - t0 < timeout:
            try:
                if c.execute("SELECT 1 FROM orders WHERE id = %s", (i,)).fetchone():
                    return True
            except psycopg.errors.UndefinedTable:
                pass
            time.sleep(0.02)
    return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--quick", action="store_true", help="smaller workloads, one run each")
    ap.add_argument(
        "--only",
        default="capture,vendors,pgbench,apply,cross,lag,log,peers,memory,small,count",
        help="rows to measure",
    )
    ap.add_argument("--no-peers", action="store_true", help="skip the peers' apply rows")
    ap.add_argument("--no-memory", action="store_true", help="skip the 10M-change memory row")
    ap.add_argument(
        "--apply-on-shared",
        action="store_true",
        help="the apply rows on --pg instead of the private instance",
    )
    args = ap.parse_args()
    runs = 1 if args.quick else 3
    only = [
        o
        for o in args.only.split(",")
        if not (o == "peers" and args.no_peers) and not (o == "memory" and args.no_memory)
    ]
    private = ("apply" in only and not args.apply_on_shared) or "peers" in only or "memory" in only
    dbs = Dbs(args.pg)
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    host = args.pg.rsplit("@", 1)[-1]
    with ExitStack() as stack:
        pdbs = dbs
        if private:
            base = stack.enter_context(private_cluster(memory_10m.PRIVATE_SETTINGS))
            pdbs = Dbs(base)
            stack.callback(pdbs.drop_all)
            WHERE[PRIVATE] = f"private {base.rsplit(':', 1)[1]} (wal_level logical)"
        WHERE[SHARED] = f"shared {host}"
        measure(args, only, runs, dbs, pdbs)
    load1 = os.getloadavg()
    print(
        f"\n{os.cpu_count()} CPUs; load average {load0[0]:.1f} at the start, "
        f"{load1[0]:.1f} at the end; {time.perf_counter() - t0:.0f} s\n"
    )
    print("| what | measured | goal | peers in the same run / note | server |")
    print("|---|---|---|---|---|")
    for *cells, where in ROWS:
        print("| " + " | ".join(c.replace("|", "\\|") for c in (*cells, WHERE[where])) + " |")


def measure(args: argparse.Namespace, only: list[str], runs: int, dbs: Dbs, pdbs: Dbs) -> None:
    """Every row asked for; ``pdbs``: the private instance's databases (or ``dbs``)."""
    warm_rate = None
    try:
        if "capture" in only:
            capture_rows(f"{args.pg}/postgres", runs, 30_000 if args.quick else 300_000,
                         2_000 if args.quick else 20_000)  # fmt: skip
        if "vendors" in only:  # MariaDB's and SQLite's capture, the same W1 and W2
            for vendor in ("mariadb", "sqlite"):
                for what, measured, ratio in capture_vendor.capture_rows(
                    vendor, runs, 30_000 if args.quick else 300_000, 2_000 if args.quick else 20_000
                ):
                    goal = "<= 2.5x" if " W1 " in what else "<= 1.10x"
                    row(what, f"{ratio} ({measured})", goal, where=vendor)
        if "vendors" in only and shutil.which("sysbench"):  # MariaDB: none, triggers, log
            pairs = runs + (0 if args.quick else 2)
            res = sysbench_maria.run_modes(
                pairs, 10 if args.quick else 30, modes=("none", "trigger", "log", "replica")
            )
            cpu = {m: statistics.median(v) * 1000 for m, v in
                   sysbench_maria.CPU_PER_1000.items() if v}  # fmt: skip
            for mode, goal in (
                ("trigger", ""),
                ("log", ">= 0.90 and >= a native replica's"),
                ("replica", ""),
            ):
                tps, p95 = (a / b for a, b in zip(res[mode], res["none"], strict=True))
                what = "a native replica connected" if mode == "replica" else f"{mode} capture"
                who = "the replica server" if mode == "replica" else "the follower"
                used = (
                    f"; {who}: {cpu[mode]:.0f} ms CPU per 1,000 row changes" if mode in cpu else ""
                )
                row(f"sysbench oltp_read_write, {what} vs none",
                    f"{tps:.2f} of the throughput, p95 {p95:.2f}x{used}", goal,
                    "4 tables x 100,000 rows, 4 threads; binary log on in every mode",
                    where="mariadb")  # fmt: skip
        if "pgbench" in only:
            pgbench_row(dbs, 5 if args.quick else 15, runs)
        w1 = 48_000 if args.quick else 480_000
        if "apply" in only:
            on_shared = args.apply_on_shared or pdbs is dbs
            warm_rate = apply_rows(
                dbs if on_shared else pdbs, w1, args.master, SHARED if on_shared else PRIVATE
            )
        if "cross" in only:  # MariaDB to PostgreSQL, back, and to MariaDB, beside raw pipes
            for what, measured, goal, note in apply_cross.cross_rows(
                w1, args.master, ["my-pg", "pg-my", "my-my"]
            ):
                row(what, measured, goal, note, where="cross")
        if "lag" in only:
            for spark_only in (False, True):
                lag_rows(dbs, args.master, 5 if args.quick else 15, spark_only)
        if "log" in only:  # capture: log beside triggers, on its own private instance
            import log_pg  # it imports this module's helpers: loaded once they exist

            for what, measured, goal in log_pg.log_rows(
                {"pgbench", "w1", "apply", "lag", "replicas", "open"}, args.quick, runs,
                args.master,
            ):
                row(f"log capture: {what}", measured, goal, where="log")
        if "peers" in only:
            peer_rows(pdbs, w1, warm_rate if not args.apply_on_shared else None)
        if "memory" in only:
            memory_row(pdbs.base, 1_000_000 if args.quick else 10_000_000, args.master)
        if "small" in only:  # snapshot and verify of many small tables, verify of a large one
            for what, measured, goal in small_tables.small_rows(
                args.pg, 100_000 if args.quick else 1_000_000
            ):
                row(what, measured, goal)
        if "count" in only:  # a sync group of 10 to 500 tables, 5 of them changed
            sizes = (10, 50, 200) if args.quick else table_count.SIZES
            for what, measured, goal in table_count.count_rows(args.pg, sizes, runs):
                row(what, measured, goal)
    finally:
        dbs.drop_all()


if __name__ == "__main__":
    main()
