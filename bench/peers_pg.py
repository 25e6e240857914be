"""The peers' apply of W1 from a standing start, PostgreSQL to PostgreSQL: native logical
replication (pgoutput) and Londiste 3 (pgqd + londiste workers), on the same workload as
syncpoint's apply row (``apply_pg.make_changes``: COPY, UPDATE, DELETE).

Standing start: replication is set up and caught up on the empty table, the applier is
paused (the subscription disabled, or the Londiste leaf worker stopped; pgqd and the root
worker keep running), W1 runs at the source, then the applier is resumed and the clock
runs until the target equals the source (an index probe every 20 ms, then a checksum of
every row). Both need ``wal_level = logical`` (native) or their own daemons, so they run on
``private_pg.private_cluster``. Every daemon, slot and subscription made here is removed at
the end, on failure too; the databases are the caller's.

    .venv/bin/python bench/peers_pg.py [--changes 480000]   # its own private cluster
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from apply_pg import ORDERS, checksum, make_changes
from psycopg import sql

POLL = 0.02


def split(changes: int) -> tuple[int, int, int]:
    """W1's proportions: 5/8 inserted, 5/16 updated, the rest deleted."""
    n_ins, n_upd = changes * 5 // 8, changes * 5 // 16
    return n_ins, n_upd, changes - n_ins - n_upd


def libpq(url: str) -> str:
    """``postgresql://postgres@127.0.0.1:PORT/DB`` as a key=value string over TCP (Londiste
    run as root would otherwise be ``user=root`` by peer auth on the socket)."""
    rest = url.split("@", 1)[1]
    hostport, db = rest.split("/", 1)
    host, _, port = hostport.partition(":")
    return f"host={host} port={port or 5432} user=postgres dbname={db}"


def caught_up(src: Any, dst: Any, n_ins: int, n_upd: int, n_del: int, timeout: float) -> float:
    """Seconds until ``dst`` equals ``src``: an index probe of the last changes of W1, then
    the checksum of every row (the probe again if it differs); -1.0 on timeout."""
    want = checksum(src)
    last_kept, first_gone = n_ins - n_del, n_ins - n_del + 1
    probe = (
        "SELECT EXISTS (SELECT 1 FROM orders WHERE id = %s) "
        "AND NOT EXISTS (SELECT 1 FROM orders WHERE id IN (%s, %s)) "
        "AND EXISTS (SELECT 1 FROM orders WHERE id = %s AND status = 'paid')"
    )
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if dst.execute(probe, (last_kept, first_gone, n_ins, n_upd)).fetchone()[0]:
            took = time.perf_counter() - t0
            if checksum(dst) == want:
                return took
        time.sleep(POLL)
    return -1.0


def until(check: Callable[[], bool], timeout: float, what: str) -> None:
    t0 = time.perf_counter()
    while not check():
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError(what)
        time.sleep(0.1)


def sentinel_passes(src: Any, dst: Any, timeout: float) -> None:
    """A row in and out at the source, seen in and out at the target: replication runs."""
    src.execute("INSERT INTO orders (id, status) VALUES (-1, 'sentinel')")
    until(lambda: bool(dst.execute("SELECT 1 FROM orders WHERE id = -1").fetchone()),
          timeout, "sentinel row not replicated")  # fmt: skip
    src.execute("DELETE FROM orders WHERE id = -1")
    until(lambda: not dst.execute("SELECT 1 FROM orders WHERE id = -1").fetchone(),
          timeout, "sentinel delete not replicated")  # fmt: skip


# -- native logical replication --------------------------------------------------------------
def native_standing(src_url: str, dst_url: str, changes: int, timeout: float = 900) -> float:
    """Seconds from ``ENABLE`` to the target equal to the source; -1.0 on timeout."""
    n_ins, n_upd, n_del = split(changes)
    name = f"bench_sub_{uuid.uuid4().hex[:8]}"
    src = psycopg.connect(src_url, autocommit=True)
    dst = psycopg.connect(dst_url, autocommit=True)
    sub, pub = sql.Identifier(name), sql.Identifier(name + "_pub")
    made_sub = False
    try:
        src.execute(ORDERS)
        dst.execute(ORDERS)
        src.execute(sql.SQL("CREATE PUBLICATION {} FOR TABLE orders").format(pub))
        # inside one cluster CREATE SUBSCRIPTION waits on itself if it makes the slot
        src.execute("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", (name,))
        dst.execute(
            sql.SQL(
                "CREATE SUBSCRIPTION {} CONNECTION {} PUBLICATION {} "
                "WITH (create_slot = false, slot_name = {}, copy_data = false)"
            ).format(sub, sql.Literal(libpq(src_url)), pub, sql.Literal(name))
        )
        made_sub = True
        sentinel_passes(src, dst, 120)
        dst.execute(sql.SQL("ALTER SUBSCRIPTION {} DISABLE").format(sub))
        until(lambda: not src.execute(
            "SELECT active FROM pg_replication_slots WHERE slot_name = %s", (name,)
        ).fetchone()[0], 60, "walsender did not stop")  # fmt: skip
        make_changes(src, 0, n_ins, n_upd, n_del)
        dst.execute(sql.SQL("ALTER SUBSCRIPTION {} ENABLE").format(sub))
        return caught_up(src, dst, n_ins, n_upd, n_del, timeout)
    finally:
        if made_sub:
            dst.execute(sql.SQL("ALTER SUBSCRIPTION {} DISABLE").format(sub))
            dst.execute(sql.SQL("ALTER SUBSCRIPTION {} SET (slot_name = NONE)").format(sub))
            dst.execute(sql.SQL("DROP SUBSCRIPTION {}").format(sub))
        for _ in range(100):  # the walsender may take a moment to let go of the slot
            try:
                src.execute(
                    "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                    "WHERE slot_name = %s",
                    (name,),
                )
                break
            except psycopg.errors.ObjectInUse:
                time.sleep(0.1)
        src.close()
        dst.close()


# -- Londiste 3 ------------------------------------------------------------------------------
class Londiste:
    """Root (``src``) and leaf (``dst``) nodes of one queue, pgqd ticking only these two
    databases, and the two workers as child processes (stopped by their pids)."""

    def __init__(self, src_url: str, dst_url: str):
        self.dir = Path(tempfile.mkdtemp(prefix="sp_bench_londiste_"))
        self.src, self.dst = libpq(src_url), libpq(dst_url)
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        tag = uuid.uuid4().hex[:8]
        base = self.src.rsplit(" dbname=", 1)[0]
        dbs = ", ".join(u.rsplit("=", 1)[1] for u in (self.src, self.dst))
        (self.dir / "pgqd.ini").write_text(
            f"[pgqd]\nlogfile = {self.dir}/pgqd.log\npidfile = {self.dir}/pgqd.pid\n"
            f"base_connstr = {base}\ninitial_database = postgres\ndatabase_list = {dbs}\n"
        )
        for node, db in (("root", self.src), ("leaf", self.dst)):
            (self.dir / f"{node}.ini").write_text(
                f"[londiste]\njob_name = bench_{node}_{tag}\ndb = {db}\n"
                f"queue_name = bench_q\nlogfile = {self.dir}/{node}.log\n"
                f"pidfile = {self.dir}/{node}.pid\n"
            )

    def londiste(self, node: str, *args: str) -> None:
        subprocess.run(["londiste", "-q", str(self.dir / f"{node}.ini"), *args],
                       check=True, capture_output=True, timeout=300)  # fmt: skip

    def start(self, name: str) -> None:
        cmd = (
            ["pgqd", "-q", str(self.dir / "pgqd.ini")]
            if name == "pgqd"
            else ["londiste", "-q", str(self.dir / f"{name}.ini"), "worker"]
        )
        log = open(self.dir / f"{name}.out", "ab")  # noqa: SIM115 - the child keeps it
        self.procs[name] = subprocess.Popen(cmd, stdout=log, stderr=log)
        log.close()

    def stop(self, name: str) -> None:
        p = self.procs.pop(name, None)
        if p is None or p.poll() is not None:
            return
        p.send_signal(signal.SIGINT)  # their "stop safely"
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

    def setup(self) -> None:
        self.londiste("root", "create-root", "bench_root", self.src)
        self.londiste("leaf", "create-leaf", "bench_leaf", self.dst, f"--provider={self.src}")
        for name in ("pgqd", "root", "leaf"):
            self.start(name)
        self.londiste("root", "add-table", "public.orders")
        self.londiste("leaf", "add-table", "public.orders")

    def close(self) -> None:
        for name in list(self.procs):
            self.stop(name)
        # the leaf worker's table copy is a daemon of its own (``copy ... -d``): found by
        # this run's ini directory in its command line
        for pid in os.listdir("/proc"):
            try:
                if (
                    pid.isdigit()
                    and str(self.dir).encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
                ):
                    os.kill(int(pid), signal.SIGTERM)
            except OSError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)


def londiste_standing(src_url: str, dst_url: str, changes: int, timeout: float = 900) -> float:
    """Seconds from the leaf worker's restart to the target equal to the source."""
    n_ins, n_upd, n_del = split(changes)
    src = psycopg.connect(src_url, autocommit=True)
    dst = psycopg.connect(dst_url, autocommit=True)
    ld = Londiste(src_url, dst_url)
    try:
        src.execute(ORDERS)
        dst.execute(ORDERS)
        ld.setup()
        until(lambda: dst.execute(
            "SELECT merge_state FROM londiste.get_table_list('bench_q') "
            "WHERE table_name = 'public.orders'"
        ).fetchone() == ("ok",), 300, "londiste table not in sync")  # fmt: skip
        sentinel_passes(src, dst, 120)
        ld.stop("leaf")
        make_changes(src, 0, n_ins, n_upd, n_del)
        ld.start("leaf")
        return caught_up(src, dst, n_ins, n_upd, n_del, timeout)
    finally:
        ld.close()
        src.close()
        dst.close()


def main() -> None:
    import argparse
    import os

    from private_pg import private_cluster

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=480_000)
    args = ap.parse_args()
    with private_cluster() as base, psycopg.connect(f"{base}/postgres", autocommit=True) as a:
        for peer, fn in (("native", native_standing), ("londiste", londiste_standing)):
            for db in ("src", "dst"):
                a.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(f"{peer}_{db}")))
            took = fn(f"{base}/{peer}_src", f"{base}/{peer}_dst", args.changes)
            print(f"{peer:9} {took:8.2f} s  {args.changes / took:>10,.0f} changes/s  "
                  f"load {os.getloadavg()[0]:.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
