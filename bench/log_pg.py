"""Log capture (``capture: log``) on PostgreSQL beside trigger capture, on a private
instance with ``wal_level = logical`` (``private_pg.py``), each row measured side by side in
one run:

- ``pgbench`` TPC-B-like, scale 5, 4 clients: no capture, log capture with a follower that
  drains the slot every second (``tick``, as ``run --follow`` does), trigger capture;
  databases copied from one initialised database, modes interleaved, medians;
- W1 capture overhead (COPY, UPDATE, DELETE of ``orders``): the application's statements
  with no capture, log capture, trigger capture; for log capture also the drain that
  follows (decoding into the queue, off the application's commit path);
- apply W1 from the log vs from the trigger queue: one ``syncpoint run --once`` each (cold
  start), the targets checked against their sources;
- lag p50/p99 at 1,000 changes/s under ``run --follow --interval 0.2``, log capture then
  trigger capture;
- ``replicas``: ``pgbench`` on three private instances of their own, interleaved: no
  replication; native logical replication (a subscription in a second database of the same
  instance); syncpoint log capture with ``run --follow --interval 1`` into a second database
  of its instance (the four tables in one sync group). Beside the throughput, the CPU of
  every process of each instance by its role (pgbench's backends, the walsender, the
  apply worker, the follower and its backends at the source and the target database, the
  rest), per thousand row changes, up to the replica equal to its source; the walsender's
  per 100,000 transactions; whether the replicas equal their sources afterwards.
  ``--sql-reader``: one more instance whose follower reads the slot with the SQL functions;
  ``--stream-reader``: one more whose follower streams it (the kept session) at every tick
  (the follower's default: the SQL functions while no open transaction holds the slot back);
  ``--before DIR``: one more whose follower runs the syncpoint package in DIR (an older
  tree's ``src``), so that before and after are measured in the same run;
- ``readers`` (not in the default list): the follower's readers of the slot on the same WAL
  at the same time: one private instance, ``pgbench`` on it for ``--readers-seconds``, one
  log capture per reader (the SQL functions, the stream, the follower's choice between
  them), each ticked every ``--readers-interval`` s by a process of its own (the drain and
  the tick, no apply); the CPU of each process and of its server processes (backends,
  walsender) per 1,000 changes, and the rows each queue holds;
- ``lagopen`` (not in the default list): lag at 1,000 changes/s under ``run --follow
  --interval 0.2`` for a minute, then with a transaction held open at the source for
  ``--open-seconds`` (600 by default), p50/p99 of its first and last minute.

    .venv/bin/python bench/log_pg.py [--quick]
        [--only pgbench,w1,apply,lag,replicas,open,lagopen,readers]
        [--readers-interval S] [--readers-seconds S]
        [--runs N] [--w1-rows N] [--sql-reader] [--stream-reader] [--before DIR]
        [--open-seconds S]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).parent))
from apply_pg import ORDERS, channel_file, checksum, make_changes  # noqa: E402
from private_pg import private_cluster  # noqa: E402
from table import Dbs, follow_lag, syncpoint  # noqa: E402

from syncpoint.config import TableConfig  # noqa: E402
from syncpoint.vendors.kept import kept  # noqa: E402
from syncpoint.vendors.postgres.capture import PostgresCapture  # noqa: E402
from syncpoint.vendors.postgres.log.capture import PostgresLogCapture  # noqa: E402

ROWS: list[tuple[str, str, str]] = []


def row(what: str, measured: str, goal: str) -> None:
    ROWS.append((what, measured, goal))
    print(f"  {what}: {measured}", file=sys.stderr, flush=True)


def install(kind: str, url: str, tables: list[TableConfig]) -> Any:
    cls = PostgresLogCapture if kind == "log" else PostgresCapture
    cap = cls("bench", url, "repl_")
    with cap.connect() as c:
        cap.install(c, tables)
    return cap


class Drainer(threading.Thread):
    """Drains a log capture every second, as a follower's ticks do."""

    def __init__(self, cap: Any):
        super().__init__(daemon=True)
        self.cap, self.stop, self.ticks = cap, threading.Event(), 0

    def run(self) -> None:
        # one decoding session kept across the ticks, as a follower keeps it
        with kept(), self.cap.connect() as c:
            while not self.stop.wait(1.0):
                self.cap.tick(c)
                self.ticks += 1


# -- pgbench ---------------------------------------------------------------------------------
def pgbench_row(dbs: Dbs, seconds: int, runs: int) -> None:
    pgbench = shutil.which("pgbench")
    if pgbench is None:
        row("pgbench TPC-B-like", "not measured (no pgbench)", ">= 0.95 of uncaptured")
        return
    base = dbs.make("pgb_none")
    host, port = dbs.base.split("@", 1)[1].split(":")
    conn = ["-h", host, "-p", port, "-U", "postgres"]
    subprocess.run([pgbench, *conn, "-i", "-s", "5", "-q", base], check=True,
                   capture_output=True)  # fmt: skip
    modes = {"none": base, "log": dbs.make("pgb_log", base), "trigger": dbs.make("pgb_trg", base)}
    names = ("accounts", "branches", "tellers", "history")
    with psycopg.connect(dbs.url(modes["log"]), autocommit=True) as c:
        # pgbench_history has no key and is only inserted into: FULL costs its INSERTs nothing
        c.execute("ALTER TABLE pgbench_history REPLICA IDENTITY FULL")
    caps = {}
    for m in ("log", "trigger"):
        caps[m] = install(
            m,
            dbs.url(modes[m]),
            [
                TableConfig(
                    name=f"public.pgbench_{t}",
                    key=["tid", "bid", "aid", "delta", "mtime"] if t == "history" else None,
                )
                for t in names
            ],
        )
    tps: dict[str, list[float]] = {m: [] for m in modes}
    order = list(modes)
    for r in range(runs):
        for m in order[r % 3 :] + order[: r % 3]:
            drainer = Drainer(caps["log"]) if m == "log" else None
            if drainer:
                drainer.start()
            out = subprocess.run(
                [pgbench, *conn, "-n", "-c", "4", "-j", "2", "-T", str(seconds), modes[m]],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            if drainer:
                drainer.stop.set()
                drainer.join()
            line = next(ln for ln in out.stdout.splitlines() if ln.startswith("tps"))
            tps[m].append(float(line.split()[2]))
    med = {m: statistics.median(v) for m, v in tps.items()}
    row(
        f"pgbench TPC-B-like, scale 5, 4 clients, {seconds} s x {runs} interleaved",
        f"log capture {med['log']:,.0f} tps ({med['log'] / med['none']:.2f} of "
        f"{med['none']:,.0f} uncaptured); trigger capture {med['trigger']:,.0f} tps "
        f"({med['trigger'] / med['none']:.2f})",
        ">= 0.95 of uncaptured",
    )


# -- W1 capture overhead -----------------------------------------------------------------------
def w1_row(dbs: Dbs, n_ins: int, runs: int) -> None:
    n_upd, n_del = n_ins // 2, n_ins // 10
    times: dict[str, list[float]] = {"none": [], "log": [], "trigger": []}
    drains: list[float] = []
    for r in range(runs):
        order = list(times)
        for m in order[r % 3 :] + order[: r % 3]:
            url = dbs.url(dbs.make(f"w1_{m}"))
            with psycopg.connect(url, autocommit=True) as s:
                s.execute(ORDERS)
                cap = None if m == "none" else install(m, url, [TableConfig(name="public.orders")])
                times[m].append(make_changes(s, 0, n_ins, n_upd, n_del))
                if m == "log" and cap is not None:
                    t = time.perf_counter()
                    with cap.connect() as c:
                        cap.tick(c)
                    drains.append(time.perf_counter() - t)
    med = {m: statistics.median(v) for m, v in times.items()}
    changes = n_ins + n_upd + n_del
    row(
        f"capture W1 ({changes:,} changes: COPY {n_ins:,}, UPDATE {n_upd:,}, "
        f"DELETE {n_del:,}), {runs} interleaved",
        f"log capture {med['log'] / med['none']:.2f}x no capture ({med['none']:.2f} s); "
        f"trigger capture {med['trigger'] / med['none']:.2f}x; the drain after it "
        f"{statistics.median(drains):.2f} s ({changes / statistics.median(drains):,.0f} "
        "changes/s, off the application's commit path)",
        "log <= 1.2x",
    )


# -- apply W1 ------------------------------------------------------------------------------------
def apply_row(dbs: Dbs, changes: int, master: str) -> None:
    n_ins, n_upd = changes * 5 // 8, changes * 5 // 16
    n_del = changes - n_ins - n_upd
    took: dict[str, tuple[float, int, bool]] = {}
    for kind in ("trigger", "log"):
        src, dst = dbs.make(f"ap_{kind}"), dbs.make(f"ap_{kind}_dst")
        s = psycopg.connect(dbs.url(src), autocommit=True)
        s.execute(ORDERS)
        cfg = channel_file(dbs.url(src), dbs.url(dst), master, driver_round_max=0,
                           conf={"spark.sql.shuffle.partitions": "4"})  # fmt: skip
        data = json.loads(cfg.read_text())
        data["locations"]["src"]["capture"] = "log" if kind == "log" else True
        cfg.write_text(json.dumps(data))
        assert syncpoint(cfg, "install", stdout=subprocess.DEVNULL).wait() == 0
        make_changes(s, 0, n_ins, n_upd, n_del)
        t = time.perf_counter()
        done = syncpoint(cfg, "run", "--once", "--json", stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)  # fmt: skip
        out, _ = done.communicate()
        wall = time.perf_counter() - t
        with psycopg.connect(dbs.url(dst), autocommit=True) as d:
            equal = checksum(s) == checksum(d)
        took[kind] = (wall, int(json.loads(out)["changes"]), equal)
        s.close()
    (tw, tn, te), (lw, ln, le) = took["trigger"], took["log"]
    row(
        f"apply W1 ({ln:,} changes), one `run --once` from a cold start, from the log vs "
        "from the trigger queue",
        f"log {ln / lw:,.0f} changes/s ({lw:.1f} s, drain included; target equal: {le}); "
        f"trigger queue {tn / tw:,.0f} changes/s ({tw:.1f} s; equal: {te})",
        "log no slower",
    )


# -- lag -------------------------------------------------------------------------------------------
def lag_row(dbs: Dbs, seconds: float, master: str) -> None:
    """Lag with log capture, then with trigger capture, in the same run."""
    got: dict[str, str] = {}
    for kind in ("log", "trigger"):
        src, dst = dbs.make(f"lag_{kind}"), dbs.make(f"lag_{kind}_dst")
        s = psycopg.connect(dbs.url(src), autocommit=True)
        s.execute(ORDERS)
        cfg = channel_file(dbs.url(src), dbs.url(dst), master,
                           conf={"spark.sql.shuffle.partitions": "4"})  # fmt: skip
        data = json.loads(cfg.read_text())
        data["locations"]["src"]["capture"] = "log" if kind == "log" else True
        cfg.write_text(json.dumps(data))
        assert syncpoint(cfg, "install", stdout=subprocess.DEVNULL).wait() == 0
        lags, _ = follow_lag(cfg, s, dbs.url(dst), seconds)
        p50, p99 = lags[len(lags) // 2], lags[int(len(lags) * 0.99)]
        got[kind] = f"p50 {p50:.2f} s, p99 {p99:.2f} s ({len(lags):,} changes)"
        s.close()
    row(
        f"lag, run --follow --interval 0.2, 1,000 changes/s for {seconds:.0f} s",
        f"log capture {got['log']}; trigger capture {got['trigger']}",
        "p50 <= 0.3 s, p99 <= 1 s",
    )


def lag_open_row(dbs: Dbs, seconds: float, master: str) -> None:
    """Lag with log capture while a transaction holds an xid open at the source from the
    start (the slot's restart position cannot pass it): p50/p99 of the whole run and of
    its first and last minute, which must be no worse; before it, a minute (at most) with
    no transaction held, in the same conditions."""
    base = _lag_case(dbs, min(seconds, 60), master, False)
    held = _lag_case(dbs, seconds, master, True)
    row(
        f"lag, run --follow --interval 0.2, 1,000 changes/s, a transaction open at the "
        f"source for {seconds:.0f} s",
        f"open: {held}; none open ({min(seconds, 60):.0f} s, just before): {base}; load "
        f"average {os.getloadavg()[0]:.1f}",
        "p50 <= 0.3 s, p99 <= 1 s, not growing with the open transaction's age",
    )


def _lag_case(dbs: Dbs, seconds: float, master: str, hold: bool) -> str:
    name = "lago" if hold else "lagn"
    src, dst = dbs.make(name), dbs.make(f"{name}_dst")
    s = psycopg.connect(dbs.url(src), autocommit=True)
    s.execute(ORDERS)
    s.execute("CREATE TABLE idle (id int)")
    cfg = channel_file(dbs.url(src), dbs.url(dst), master,
                       conf={"spark.sql.shuffle.partitions": "4"})  # fmt: skip
    data = json.loads(cfg.read_text())
    data["locations"]["src"]["capture"] = "log"
    cfg.write_text(json.dumps(data))
    assert syncpoint(cfg, "install", stdout=subprocess.DEVNULL).wait() == 0
    held = psycopg.connect(dbs.url(src))
    if hold:
        held.execute("INSERT INTO idle VALUES (1)")  # an xid, held open for the whole run
    try:
        lags_by_id, committed = _lag_by_id(cfg, s, dbs.url(dst), seconds)
        with psycopg.connect(dbs.url(src), autocommit=True) as a:
            (behind,) = a.execute(
                "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn) FROM "
                "pg_replication_slots WHERE database = current_database()"
            ).fetchone()
    finally:
        held.rollback()
        held.close()
        s.close()
    t0 = min(committed.values())

    def pct(ids: list[int]) -> str:
        got = sorted(lags_by_id[i] for i in ids if i in lags_by_id)
        if not got:
            return "none seen"
        return f"p50 {got[len(got) // 2]:.2f} s, p99 {got[int(len(got) * 0.99)]:.2f} s"

    first = [i for i, t in committed.items() if t - t0 < 60]
    last = [i for i, t in committed.items() if t - t0 > seconds - 60]
    rate = len(committed) / max(1e-9, max(committed.values()) - t0)
    return (
        f"{pct(list(committed))} ({len(lags_by_id):,} changes, {rate:,.0f} a second in "
        f"transactions of 10); first minute {pct(first)}, last minute {pct(last)}; the slot "
        f"{int(behind or 0) / 1e6:,.0f} MB behind its restart position at the end"
    )


def _lag_by_id(
    cfg: Path, src: Any, dst_url: str, seconds: float
) -> tuple[dict[int, float], dict[int, float]]:
    """``follow_lag``'s measurement, each change's lag by its id; the writer commits 10
    rows at a time, 100 times a second, and never writes more than its rate to catch up
    (on a loaded machine single-row transactions do not reach 1,000 a second, and a writer
    that catches up would write for long after ``seconds``)."""
    from table import until_seen, watch, write

    flog = open(cfg.parent / "follow.log", "a")  # noqa: SIM115 - closed below
    follow = syncpoint(cfg, "run", "--follow", "--interval", "0.2", stdout=flog, stderr=flog)
    try:
        write(src, 1, 1)  # the target table is made by the first round
        until_seen(dst_url, 1, 180)
        seen: dict[int, float] = {}
        last: dict[str, int] = {}
        watcher = threading.Thread(target=watch, args=(dst_url, last, seen, seconds + 60))
        watcher.start()
        committed: dict[int, float] = {}
        t0, i = time.perf_counter(), 2
        while (now := time.perf_counter()) - t0 < seconds:
            if (i - 2) / 1000 > now - t0:  # ahead of the rate: wait
                time.sleep(0.002)
                continue
            write(src, i, 10)
            at = time.perf_counter()
            for n in range(i, i + 10):
                committed[n] = at
            i += 10
        last["id"] = max(committed)
        watcher.join()
    finally:
        follow.terminate()
        follow.wait(30)
        flog.close()
    return {i: seen[i] - committed[i] for i in committed if i in seen}, committed


# -- pgbench beside native logical replication ---------------------------------------------------
PGBENCH_TABLES = ("accounts", "branches", "tellers", "history")
HISTORY_KEY = ["tid", "bid", "aid", "delta", "mtime"]
TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pids: list[int]) -> float:
    """CPU seconds (user + system) of these processes and all their descendants."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            fields = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(d)] = int(fields[1])
        times[int(d)] = (int(fields[11]) + int(fields[12])) / TICK
    keep = set(pids)
    grew = True
    while grew:
        more = {p for p, pp in parents.items() if pp in keep and p not in keep}
        keep |= more
        grew = bool(more)
    return sum(times.get(p, 0.0) for p in keep)


def _pgbench(base: str, db: str, *args: str) -> str:
    host, port = base.split("@", 1)[1].split(":")
    cmd = ["pgbench", "-h", host, "-p", port, "-U", "postgres", *args, db]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def _lsn(conn: Any) -> str:
    return str(conn.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0])


def _caught_up(conn: Any, upto: str, timeout: float = 120) -> bool:
    """Every slot of the instance confirmed ``upto`` (its replica has it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        (behind,) = conn.execute(
            "SELECT count(*) FROM pg_replication_slots WHERE confirmed_flush_lsn < %s::pg_lsn",
            (upto,),
        ).fetchone()
        if not behind:
            return True
        time.sleep(0.2)
    return False


def _walsender(conn: Any) -> int | None:
    row = conn.execute("SELECT active_pid FROM pg_replication_slots WHERE active").fetchone()
    return None if row is None else int(row[0])


def _same(base: str) -> bool:
    """The replica database equals its source (balances, history rows)."""
    q = (
        "SELECT (SELECT sum(abalance) FROM pgbench_accounts), "
        "(SELECT sum(bbalance) FROM pgbench_branches), (SELECT count(*) FROM pgbench_history), "
        "(SELECT sum(delta) FROM pgbench_history)"
    )
    with psycopg.connect(f"{base}/pgb") as a, psycopg.connect(f"{base}/pgb_dst") as b:
        return bool(a.execute(q).fetchone() == b.execute(q).fetchone())


def _until_same(base: str, timeout: float = 180) -> bool:
    deadline = time.monotonic() + timeout
    while not _same(base):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


class Roles(threading.Thread):
    """CPU seconds of every process of a private instance by its role, sampled from /proc
    every ``every`` s while it runs (a process that ends keeps its last sample): pgbench's
    backends, the walsender, the subscription's apply worker, the follower's backends at
    the source and at the target database, the rest (checkpointer, WAL writer,
    autovacuum...). Roles come from pg_stat_activity, asked when a new process appears."""

    def __init__(self, base: str, every: float = 0.3):
        super().__init__(daemon=True)
        self.conn = psycopg.connect(f"{base}/postgres", autocommit=True)
        self.me = self.conn.info.backend_pid
        data = self.conn.execute("SHOW data_directory").fetchone()[0]
        self.postmaster = int(Path(data, "postmaster.pid").read_text().split()[0])
        self.every, self.stop = every, threading.Event()
        self.role: dict[int, str] = {}
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self._sample(True)

    def _classify(self, pids: set[int]) -> None:
        rows = self.conn.execute(
            "SELECT pid, backend_type, datname, application_name FROM pg_stat_activity"
        ).fetchall()
        for pid, kind, db, app in rows:
            if pid not in pids or pid in self.role:
                continue
            if pid == self.me:
                self.role[pid] = "bench"
            elif kind == "walsender":
                self.role[pid] = "walsender"
            elif kind == "logical replication worker":
                self.role[pid] = "apply worker"
            elif kind == "client backend" and app == "pgbench":
                self.role[pid] = "pgbench"
            elif kind == "client backend" and db == "pgb":
                self.role[pid] = "follower@src"
            elif kind == "client backend":
                self.role[pid] = "follower@dst"
        for pid in pids:
            self.role.setdefault(pid, "other")

    def _sample(self, start: bool = False) -> None:
        now: dict[int, float] = {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                fields = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.postmaster:
                now[int(d)] = (int(fields[11]) + int(fields[12])) / TICK
        new = {p for p in now if p not in self.role}
        if new:
            self._classify(new)
        for pid, t in now.items():
            if start or pid not in self.first:
                self.first.setdefault(pid, 0.0 if not start else t)
            self.last[pid] = t

    def run(self) -> None:
        while not self.stop.wait(self.every):
            self._sample()

    def done(self) -> dict[str, float]:
        self.stop.set()
        self.join()
        self._sample()
        self.conn.close()
        out: dict[str, float] = {}
        for pid, t in self.last.items():
            role = self.role.get(pid, "other")
            if role != "bench":
                out[role] = out.get(role, 0.0) + t - self.first.get(pid, 0.0)
        return out


def replicas_row(
    seconds: int,
    runs: int,
    master: str,
    sql_reader: bool = False,
    before: str | None = None,
    stream_reader: bool = False,
) -> None:
    if shutil.which("pgbench") is None:
        row("pgbench beside native logical replication", "not measured (no pgbench)", "")
        return
    settings = {"max_replication_slots": "10", "max_wal_senders": "10"}
    logs = (
        ("log",)
        + (("logsql",) if sql_reader else ())
        + (("logstream",) if stream_reader else ())
        + (("logbefore",) if before else ())
    )
    with ExitStack() as stack:
        bases = {m: stack.enter_context(private_cluster(settings)) for m in
                 ("none", "native", *logs)}  # fmt: skip
        for m, base in bases.items():
            with psycopg.connect(f"{base}/postgres", autocommit=True) as a:
                for db in ("pgb", "pgb_dst") if m != "none" else ("pgb",):
                    a.execute(f"CREATE DATABASE {db}")
                    _pgbench(base, db, "-i", "-s", "5", "-q")
        tables = ", ".join(f"pgbench_{t}" for t in PGBENCH_TABLES)
        # native: a publication, its slot, a subscription in the instance's second database
        nat = stack.enter_context(psycopg.connect(f"{bases['native']}/pgb", autocommit=True))
        nat.execute(f"CREATE PUBLICATION bench_pub FOR TABLE {tables}")
        nat.execute("SELECT pg_create_logical_replication_slot('bench_sub', 'pgoutput')")
        with psycopg.connect(f"{bases['native']}/pgb_dst", autocommit=True) as d:
            d.execute(
                "CREATE SUBSCRIPTION bench_sub CONNECTION "
                f"'{bases['native']}/pgb' "
                "PUBLICATION bench_pub WITH (create_slot = false, slot_name = 'bench_sub', "
                "copy_data = false)"
            )
        conns: dict[str, Any] = {"native": nat}
        followers: dict[str, Any] = {}
        for m in logs:
            # syncpoint: capture: log, a follower applying into the second database
            c = stack.enter_context(psycopg.connect(f"{bases[m]}/pgb", autocommit=True))
            c.execute("ALTER TABLE pgbench_history REPLICA IDENTITY FULL")
            with psycopg.connect(f"{bases[m]}/pgb_dst", autocommit=True) as d:
                # the channel's key of the keyless history table, indexed where rows are
                # applied by it (the native subscription only appends)
                d.execute(f"CREATE INDEX ON pgbench_history ({', '.join(HISTORY_KEY)})")
                # and not null: a nullable key column is matched by IS NOT DISTINCT FROM,
                # which no index serves (each round would scan the whole history)
                d.execute(
                    "ALTER TABLE pgbench_history "
                    + ", ".join(f"ALTER {k} SET NOT NULL" for k in HISTORY_KEY)
                )
            cfg = channel_file(f"{bases[m]}/pgb", f"{bases[m]}/pgb_dst", master)
            data = json.loads(cfg.read_text())
            data["locations"]["src"]["capture"] = "log"
            data["tables"] = [
                {"name": f"public.pgbench_{t}", "snapshot": "none",
                 **({"key": HISTORY_KEY} if t == "history" else {})}
                for t in PGBENCH_TABLES
            ]  # fmt: skip
            # one sync group: pgbench's transactions write all four tables, and native
            # replication applies them transaction by transaction (one round a tick, not four)
            data["sync_groups"] = {"pgbench": [f"public.pgbench_{t}" for t in PGBENCH_TABLES]}
            cfg.write_text(json.dumps(data))
            assert syncpoint(cfg, "install", stdout=subprocess.DEVNULL).wait() == 0
            flog = open(cfg.parent / "follow.log", "a")  # noqa: SIM115 - closed below
            stack.callback(flog.close)
            # logsql, logstream: the same follower reading the slot with the SQL functions,
            # or through the kept session, at every tick
            reader = {"logsql": "sql", "logstream": "stream"}.get(m)
            env = {**os.environ, **({"SYNCPOINT_PG_LOG_READER": reader} if reader else {})}
            if m == "logbefore":  # the same follower, another tree's code (--before)
                env["PYTHONPATH"] = str(before)
            followers[m] = syncpoint(cfg, "run", "--follow", "--interval", "1", stdout=flog,
                                     stderr=flog, env=env)  # fmt: skip
            conns[m] = c
        for m, c in conns.items():
            if m in ("log", "logsql"):
                continue  # no walsender: its ticks read the slot in a backend
            deadline = time.monotonic() + 180
            while _walsender(c) is None and time.monotonic() < deadline:
                time.sleep(0.5)
        tps: dict[str, list[float]] = {m: [] for m in bases}
        # per mode: CPU ms per 1,000 changes of each role, one dict a run
        cpu: dict[str, list[dict[str, float]]] = {m: [] for m in bases}
        per_txn: dict[str, list[float]] = {m: [] for m in bases}  # walsender s / 100k txns
        loads: list[float] = []
        order = list(bases)
        try:
            for r in range(runs):
                for m in order[r % len(order) :] + order[: r % len(order)]:
                    c = conns.get(m)
                    if m == "native":
                        with psycopg.connect(f"{bases[m]}/pgb_dst") as d:
                            (pid,) = d.execute(
                                "SELECT pid FROM pg_stat_subscription WHERE relid IS NULL"
                            ).fetchone()
                        worker = [int(pid)]
                    else:
                        worker = [followers[m].pid] if m in followers else []
                    roles = Roles(bases[m])
                    roles.start()
                    worker0 = cpu_of(worker) if worker else 0.0
                    out = _pgbench(bases[m], "pgb", "-n", "-c", "4", "-j", "2", "-T",
                                   str(seconds))  # fmt: skip
                    loads.append(os.getloadavg()[0])
                    line = next(ln for ln in out.splitlines() if ln.startswith("tps"))
                    tps[m].append(float(line.split()[2]))
                    txns = int(next(ln for ln in out.splitlines()
                                    if "transactions actually processed" in ln
                                    ).split(":")[1].split("/")[0])  # fmt: skip
                    if c is not None:
                        # the CPU up to the replica equal to its source: decoding, applying
                        if not _caught_up(c, _lsn(c)) or not _until_same(bases[m]):
                            print(f"  {m}: the replica did not catch up", file=sys.stderr)
                    by_role = roles.done()
                    if worker:
                        by_role["follower" if m != "native" else "apply worker"] = (
                            cpu_of(worker) - worker0
                        )
                    changes = txns * 4 / 1000  # TPC-B-like: 3 updates and an insert
                    cpu[m].append({k: v / changes * 1000 for k, v in by_role.items()})
                    per_txn[m].append(by_role.get("walsender", 0.0) / txns * 100_000)
                    print(f"  run {r + 1} {m}: {tps[m][-1]:,.0f} tps, load "
                          f"{loads[-1]:.1f}; ms/1k changes: "
                          + ", ".join(f"{k} {v:.1f}" for k, v in sorted(cpu[m][-1].items())),
                          file=sys.stderr, flush=True)  # fmt: skip
            equal = {m: _until_same(bases[m]) for m in conns}
        finally:
            for f in followers.values():
                f.send_signal(signal.SIGTERM)
            for f in followers.values():
                f.wait(120)
        with psycopg.connect(f"{bases['native']}/pgb_dst", autocommit=True) as d:
            d.execute("ALTER SUBSCRIPTION bench_sub DISABLE")
            d.execute("ALTER SUBSCRIPTION bench_sub SET (slot_name = NONE)")
            d.execute("DROP SUBSCRIPTION bench_sub")
    med = {m: statistics.median(v) for m, v in tps.items()}

    def role(m: str, k: str) -> float:
        return statistics.median(run.get(k, 0.0) for run in cpu[m])

    def roles_text(m: str) -> str:
        keys = sorted({k for run in cpu[m] for k in run})
        return ", ".join(f"{k} {role(m, k):.1f}" for k in keys)

    names = {"none": "none", "native": "native", "log": "syncpoint",
             "logsql": "syncpoint (SQL reader)", "logstream": "syncpoint (stream reader)",
             "logbefore": "syncpoint before"}  # fmt: skip
    sides = [m for m in names if m in bases and m != "none"]
    row(
        f"pgbench TPC-B-like, scale 5, 4 clients, {seconds} s x {runs} interleaved, "
        f"{len(bases)} instances: no replication, native logical replication, syncpoint log "
        "capture (run --follow --interval 1)"
        + (", the same with the SQL functions' reader" if sql_reader else "")
        + (", the same with the stream reader" if stream_reader else "")
        + (f", the same with the code of {before}" if before else "")
        + f"; load average {min(loads):.1f}-{max(loads):.1f}",
        f"none {med['none']:,.0f} tps; "
        + "; ".join(f"{names[m]} {med[m] / med['none']:.2f} of it" for m in sides)
        + "; walsender CPU per 100,000 transactions: "
        + ", ".join(f"{names[m]} {statistics.median(per_txn[m]):.2f} s" for m in sides)
        + "; CPU ms per 1,000 changes by process: "
        + "; ".join(f"{names[m]}: {roles_text(m)}" for m in ("none", *sides))
        + "; replicas equal: "
        + ", ".join(f"{names[m]} {equal[m]}" for m in sides),
        ">= 0.95 of none and ahead of native; decoding CPU <= native's",
    )


# -- the readers on the same WAL ------------------------------------------------------------------
_TICKER = """
import resource, sys, time
from syncpoint.vendors.kept import kept
from syncpoint.vendors.postgres.log.capture import PostgresLogCapture
url, prefix, interval, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
cap = PostgresLogCapture("bench", url, prefix)
with kept(), cap.connect() as c:
    cap.tick(c)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0, n = time.monotonic(), 0
    while time.monotonic() - t0 < seconds:
        cap.tick(c)
        n += 1
        time.sleep(interval)
    for _ in range(max(3, int(20 / interval))):  # the queue up to the end of pgbench's WAL
        cap.tick(c)
        time.sleep(interval)
r = resource.getrusage(resource.RUSAGE_SELF)
print(n, r.ru_utime + r.ru_stime - r0.ru_utime - r0.ru_stime, flush=True)
"""


def readers_row(seconds: int, interval: float) -> None:
    if shutil.which("pgbench") is None:
        row("the log readers on the same WAL", "not measured (no pgbench)", "")
        return
    readers = {"sql": "sql", "stream": "stream", "chosen": ""}
    with private_cluster({"max_replication_slots": "10", "max_wal_senders": "10"}) as base:
        with psycopg.connect(f"{base}/postgres", autocommit=True) as a:
            a.execute("CREATE DATABASE pgb")
        _pgbench(base, "pgb", "-i", "-s", "5", "-q")
        url = f"{base}/pgb"
        with psycopg.connect(url, autocommit=True) as c:
            c.execute("ALTER TABLE pgbench_history REPLICA IDENTITY FULL")
        for r in readers:
            cap = PostgresLogCapture("bench", url, f"{r}_")
            with cap.connect() as c:
                cap.install(c, [TableConfig(name=f"public.pgbench_{t}",
                                            key=HISTORY_KEY if t == "history" else None)
                                for t in PGBENCH_TABLES])  # fmt: skip
        procs = {
            r: subprocess.Popen(
                [sys.executable, "-c", _TICKER, f"{url}?application_name=bench_{r}", f"{r}_",
                 str(interval), str(seconds + 5)],
                env={**os.environ, "SYNCPOINT_PG_LOG_READER": how}, stdout=subprocess.PIPE,
                text=True,
            )  # fmt: skip
            for r, how in readers.items()
        }
        first: dict[int, tuple[str, float]] = {}
        last: dict[int, float] = {}
        stop = threading.Event()
        mon = psycopg.connect(f"{base}/postgres", autocommit=True)

        def sample() -> None:
            for pid, app in mon.execute(
                "SELECT pid, application_name FROM pg_stat_activity "
                "WHERE application_name LIKE 'bench\\_%'"
            ).fetchall():
                if pid not in first:
                    first[pid] = (app[len("bench_") :], _cpu_one(pid) or 0.0)
            for pid in first:
                c = _cpu_one(pid)
                if c is not None:
                    last[pid] = c

        def loop() -> None:
            while not stop.wait(0.3):
                sample()

        th = threading.Thread(target=loop)
        th.start()
        time.sleep(3)
        load0 = os.getloadavg()[0]
        out = _pgbench(base, "pgb", "-n", "-c", "4", "-j", "2", "-T", str(seconds))
        txns = int(next(ln for ln in out.splitlines() if "actually processed" in ln)
                   .split(":")[1].split("/")[0])  # fmt: skip
        got = {r: p.communicate()[0].split() for r, p in procs.items()}
        stop.set()
        th.join()
        sample()
        server: dict[str, float] = {}
        for pid, (r, c0) in first.items():
            server[r] = server.get(r, 0.0) + last.get(pid, c0) - c0
        changes = txns * 4 / 1000  # thousands: CPU seconds per 1,000 changes, in ms below
        parts = []
        for r in readers:
            n, own = int(got[r][0]), float(got[r][1])
            with psycopg.connect(url) as q:
                (rows,) = q.execute(f"SELECT count(*) FROM {r}_items").fetchone()
            parts.append(
                f"{r}: {(own + server.get(r, 0.0)) / changes * 1000:.1f} ms (its process "
                f"{own / changes * 1000:.1f}, the server's "
                f"{server.get(r, 0.0) / changes * 1000:.1f}), "
                f"{n} ticks, {rows:,} rows"
            )
        mon.close()
    row(
        f"the log readers on the same WAL: pgbench (4 clients, {seconds} s, {txns * 4:,} "
        f"changes) and one capture per reader ticked every {interval:g} s (drain and tick, "
        f"no apply); load average {load0:.1f}-{os.getloadavg()[0]:.1f}",
        "CPU ms per 1,000 changes: " + "; ".join(parts),
        "the follower's choice costs no more than the cheaper reader",
    )


def _cpu_one(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICK


# -- a transaction left open at the source -------------------------------------------------------
def _open_mode(dbs: Dbs, mode: str, seconds: float) -> str:
    url = dbs.url(dbs.make(f"open_{mode}"))
    with psycopg.connect(url, autocommit=True) as s:
        s.execute("CREATE TABLE w (id bigint PRIMARY KEY, v text)")
        s.execute("CREATE TABLE idle (id int)")
    cap = install("log", url, [TableConfig(name="public.w")])
    held = psycopg.connect(url)
    held.execute("INSERT INTO idle VALUES (1)")  # an xid, held open: the slot cannot pass it
    stop = threading.Event()
    ticks: list[tuple[float, float]] = []  # (when, seconds)

    def writer() -> None:
        with psycopg.connect(url, autocommit=True) as w:
            n, t0 = 0, time.perf_counter()
            while not stop.is_set():
                due = t0 + n / 2000
                if time.perf_counter() < due:
                    time.sleep(due - time.perf_counter())
                w.execute(
                    "INSERT INTO w SELECT g, 'x' FROM generate_series(%s::bigint, %s::bigint) g",
                    (n, n + 19),
                )
                n += 20

    def ticker() -> None:
        block = kept() if mode == "stream" else ExitStack()
        with block, cap.connect() as c:
            t0 = time.perf_counter()
            while not stop.wait(1.0):
                t = time.perf_counter()
                cap.tick(c)
                ticks.append((t - t0, time.perf_counter() - t))

    threads = [threading.Thread(target=writer), threading.Thread(target=ticker)]
    for th in threads:
        th.start()
    time.sleep(seconds)
    with psycopg.connect(url, autocommit=True) as s:
        (behind,) = s.execute(
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn) FROM "
            "pg_replication_slots WHERE database = current_database()"
        ).fetchone()
    stop.set()
    for th in threads:
        th.join()
    held.rollback()
    held.close()
    first = statistics.median(d for w, d in ticks if w < 10)
    last = statistics.median(d for w, d in ticks if w > seconds - 10)
    return (f"ticks {first:.2f} s in the first 10 s, {last:.2f} s in the last 10 s, "
            f"{int(behind) / 1e6:,.0f} MB behind the restart position")  # fmt: skip


def open_row(dbs: Dbs, seconds: float) -> None:
    got = {mode: _open_mode(dbs, mode, seconds) for mode in ("sql", "stream")}
    row(
        f"a transaction open at the source for {seconds:.0f} s, 2,000 rows/s, a tick a second",
        f"SQL functions (before): {got['sql']}; one session kept (run --follow now): "
        f"{got['stream']}",
        "a tick's cost does not grow with the open transaction's age",
    )


def log_rows(
    only: set[str],
    quick: bool,
    runs: int,
    master: str,
    w1_rows: int | None = None,
    sql_reader: bool = False,
    open_seconds: float | None = None,
    before: str | None = None,
    stream_reader: bool = False,
    readers_interval: float = 1.0,
    readers_seconds: int | None = None,
) -> list[tuple[str, str, str]]:
    """The rows in ``only`` (pgbench, w1, apply, lag), measured on a private instance with
    ``wal_level = logical`` started and removed here; for ``table.py`` too."""
    ROWS.clear()
    with private_cluster({"max_replication_slots": "20"}) as base:
        dbs = Dbs(base)
        try:
            if "pgbench" in only:
                pgbench_row(dbs, 5 if quick else 15, runs)
            if "w1" in only:
                w1_row(dbs, w1_rows or (20_000 if quick else 300_000), runs)
            if "apply" in only:
                apply_row(dbs, 20_000 if quick else 100_000, master)
            if "lag" in only:
                lag_row(dbs, 5 if quick else 15, master)
            if "replicas" in only:
                replicas_row(5 if quick else 15, runs, master, sql_reader, before,
                             stream_reader)  # fmt: skip
            if "open" in only:
                open_row(dbs, 30 if quick else 90)
            if "lagopen" in only:
                lag_open_row(dbs, open_seconds or (90 if quick else 600), master)
            if "readers" in only:
                readers_row(readers_seconds or (20 if quick else 40), readers_interval)
        finally:
            # a database with a slot cannot be dropped
            dbs.admin.execute(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                "WHERE NOT active"
            )
            dbs.drop_all()
            dbs.admin.close()
    return list(ROWS)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="pgbench,w1,apply,lag,replicas,open")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--runs", type=int, default=None, help="interleaved runs of each mode")
    ap.add_argument("--w1-rows", type=int, default=None, help="rows W1 copies in")
    ap.add_argument("--sql-reader", action="store_true",
                    help="replicas: a fourth instance whose follower reads the slot with the "
                    "SQL functions")  # fmt: skip
    ap.add_argument("--readers-interval", type=float, default=1.0,
                    help="readers: seconds between ticks")  # fmt: skip
    ap.add_argument("--readers-seconds", type=int, default=None,
                    help="readers: pgbench's seconds")  # fmt: skip
    ap.add_argument("--stream-reader", action="store_true",
                    help="replicas: one more instance whose follower streams the slot at "
                    "every tick")  # fmt: skip
    ap.add_argument(
        "--open-seconds",
        type=float,
        default=None,
        help="lagopen: how long the transaction stays open (default 600)",
    )
    ap.add_argument("--before", default=None,
                    help="replicas: one more instance whose follower runs the syncpoint "
                    "package found in this folder (PYTHONPATH: an older tree's src)")  # fmt: skip
    args = ap.parse_args()
    runs = args.runs or (1 if args.quick else 3)
    rows = log_rows(set(args.only.split(",")), args.quick, runs, args.master, args.w1_rows,
                    args.sql_reader, args.open_seconds, args.before,
                    args.stream_reader, args.readers_interval,
                    args.readers_seconds)  # fmt: skip
    print("| what | measured | goal |\n|---|---|---|")
    for what, measured, goal in rows:
        print(f"| {what} | {measured} | {goal} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
