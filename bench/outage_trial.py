"""The operator's outage trial, minute by minute: a writer at 50 rows/s at a PostgreSQL
source (``--capture log``: a private server with ``wal_level = logical``; ``trigger``: the
shared one) or a MariaDB one (``--source mariadb``: a private server, log capture), a
follower (``run --follow --metrics-port``), ``serve``, and a real Prometheus (Debian's)
scraping both with deploy/prometheus/syncpoint-rules.yml. The target database refuses
connections for ``--outage`` seconds, then is back; later the follower is SIGKILLed.

Every ``--every`` seconds one line: the follower's and serve's ``/healthz``, the backlog and
lag serve exports, the follower's failed rounds, and the alerts Prometheus holds (pending or
firing). At the end: ``verify`` after a last ``run --once`` (PostgreSQL: an order-free
checksum too), and the follower's log lines (timed, repeats counted).

    .venv/bin/python bench/outage_trial.py --capture log
    .venv/bin/python bench/outage_trial.py --source mariadb
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import psycopg
import yaml
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "deploy" / "prometheus" / "syncpoint-rules.yml"
SHARED = "postgresql://postgres@127.0.0.1:5432"
EXE = str(Path(sys.executable).with_name("syncpoint"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return 0, str(e)


def metrics(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    code, text = get(url)
    if code != 200:
        return {}
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for fam in text_string_to_metric_families(text)
        for s in fam.samples
    }


def admin(base: str, *stmts: str) -> None:
    with psycopg.connect(f"{base}/postgres", autocommit=True) as c:
        for s in stmts:
            c.execute(s)  # type: ignore[arg-type]


def database(base: str) -> tuple[str, str]:
    name = f"sp_trial_{uuid.uuid4().hex[:8]}"
    admin(base, f'CREATE DATABASE "{name}"')
    return name, f"{base}/{name}"


def drop(base: str, name: str) -> None:
    admin(
        base,
        f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true',
        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
        f"WHERE database = '{name}' AND NOT active",
        f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)',
    )


def connect(url: str) -> Any:
    """A DB-API connection in autocommit mode to a PostgreSQL or MariaDB URL."""
    if url.startswith("postgresql"):
        return psycopg.connect(url, autocommit=True)
    import pymysql

    rest = url.split("@", 1)[1]
    host, port_db = rest.split(":", 1)
    port, db = port_db.split("/", 1)
    return pymysql.connect(host=host, port=int(port), user="root", database=db, autocommit=True)


class Writer(threading.Thread):
    def __init__(self, url: str, per_s: float) -> None:
        super().__init__(daemon=True)
        self.url, self.per_s, self.n = url, per_s, 0
        self.stopping = threading.Event()

    def run(self) -> None:
        c = connect(self.url)
        cur = c.cursor()
        t0 = time.monotonic()
        while not self.stopping.is_set():
            self.n += 1
            cur.execute("INSERT INTO t (id, v) VALUES (%s, %s)", (self.n, f"row {self.n}"))
            time.sleep(max(0.0, t0 + self.n / self.per_s - time.monotonic()))
        c.close()


def checksum(url: str) -> tuple[int, int]:
    with psycopg.connect(url) as c:
        row = c.execute("SELECT count(*), coalesce(sum(hashtext(id || v)), 0) FROM t").fetchone()
        return int(row[0]), int(row[1])  # type: ignore[index]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--capture", choices=("log", "trigger"), default="log")
    ap.add_argument("--source", choices=("postgresql", "mariadb"), default="postgresql")
    ap.add_argument("--outage", type=float, default=60.0)
    ap.add_argument("--every", type=float, default=10.0)
    ap.add_argument("--rate", type=float, default=50.0)
    a = ap.parse_args()
    prom_exe = shutil.which("prometheus")
    if not prom_exe:
        raise SystemExit("prometheus is missing: make deps installs Debian's package")
    with ExitStack() as stack:
        sys.path.insert(0, str(ROOT))
        src_base = SHARED
        table = "public.t"
        if a.source == "mariadb":
            from tests.private_mariadb import make_log_maria_db, private_mariadb

            a.capture = "log"
            gen = make_log_maria_db(stack.enter_context(private_mariadb()))
            src = next(gen).url  # type: ignore[attr-defined]
            stack.callback(next, gen, None)
            table = "t"
        elif a.capture == "log":
            from bench.private_pg import private_cluster

            src_base = stack.enter_context(private_cluster({"fsync": "off"}))
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sp_trial_")))
        if a.source == "postgresql":
            src_name, src = database(src_base)
            stack.callback(drop, src_base, src_name)
        dst_name, dst = database(SHARED)
        stack.callback(drop, SHARED, dst_name)
        c = connect(src)
        c.cursor().execute("CREATE TABLE t (id integer PRIMARY KEY, v varchar(40))")
        c.close()
        cfg = work / "sp.yaml"
        cfg.write_text(
            yaml.safe_dump(
                {
                    "channel": "shop",
                    "application": "wh",
                    "locations": {
                        "src": {"url": src, "capture": a.capture if a.capture == "log" else True},
                        "cen": {"url": dst, "integrate": True},
                    },
                    "tables": [{"name": table, "snapshot": "none"}],
                    "sync_groups": {"g": ["t"]},
                    "spark": {"master": "local[1]"},
                }
            )
        )
        env = {**os.environ, "SYNCPOINT_LOG_FILE": str(work / "spark.log")}
        subprocess.run([EXE, "-c", str(cfg), "install"], check=True, env=env)
        mport, sport, pport = free_port(), free_port(), free_port()
        ferr = work / "follower.err"
        follower = subprocess.Popen(
            [EXE, "-c", str(cfg), "run", "--follow", "--interval", "1",
             "--metrics-port", str(mport), "--metrics-interval", "5"],
            stdout=(work / "follower.out").open("wb"), stderr=ferr.open("wb"), env=env,
        )  # fmt: skip
        stack.callback(follower.kill)
        serve = subprocess.Popen(
            [EXE, "-c", str(cfg), "serve", "--port", str(sport), "--interval", "5"],
            stdout=subprocess.DEVNULL, stderr=(work / "serve.err").open("wb"), env=env,
        )  # fmt: skip
        stack.callback(serve.terminate)
        pconf = work / "prometheus.yml"
        pconf.write_text(
            yaml.safe_dump(
                {
                    "global": {"scrape_interval": "5s", "evaluation_interval": "5s"},
                    "rule_files": [str(RULES)],
                    "scrape_configs": [
                        {"job_name": "syncpoint-follower",
                         "static_configs": [{"targets": [f"127.0.0.1:{mport}"]}]},
                        {"job_name": "syncpoint-serve",
                         "static_configs": [{"targets": [f"127.0.0.1:{sport}"]}]},
                    ],
                }
            )
        )  # fmt: skip
        prom = subprocess.Popen(
            [prom_exe, f"--config.file={pconf}", f"--storage.tsdb.path={work / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{pport}"],
            stdout=subprocess.DEVNULL, stderr=(work / "prometheus.log").open("wb"),
        )  # fmt: skip
        stack.callback(prom.terminate)
        fbase, sbase, pbase = (f"http://127.0.0.1:{p}" for p in (mport, sport, pport))
        deadline = time.monotonic() + 120
        while get(fbase + "/healthz")[0] != 200 or get(sbase + "/healthz")[0] != 200:
            if time.monotonic() > deadline:
                raise SystemExit("the follower or serve never became healthy")
            time.sleep(0.5)
        writer = Writer(src, a.rate)
        writer.start()
        t0 = time.monotonic()
        away, back, kill, end = (
            20.0,
            20.0 + a.outage,
            20.0 + a.outage + 60.0,
            20.0 + a.outage + 150.0,
        )
        phase, events = "before", []
        tbl = (
            ("channel", "shop"),
            ("integrate", "cen"),
            ("location", "src"),
            ("table", table),
        )
        grp = (("channel", "shop"), ("group", "g"), ("integrate", "cen"))
        print(
            f"{a.source}, capture {a.capture}, writer {a.rate:g} rows/s, outage {a.outage:g} s; "
            f"load {os.getloadavg()[0]:.1f}"
        )
        print(
            f"{'t s':>5} {'phase':<9} {'follower':>8} {'serve':>5} {'backlog':>7} {'lag s':>6} "
            f"{'failed':>6}  alerts (pending/firing)"
        )
        next_row = 0.0
        while (now := time.monotonic() - t0) < end:
            if phase == "before" and now >= away:
                admin(
                    SHARED,
                    f'ALTER DATABASE "{dst_name}" ALLOW_CONNECTIONS false',
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    f"WHERE datname = '{dst_name}'",
                )
                phase = "outage"
            elif phase == "outage" and now >= back:
                admin(SHARED, f'ALTER DATABASE "{dst_name}" ALLOW_CONNECTIONS true')
                phase = "after"
            elif phase == "after" and now >= kill:
                follower.send_signal(signal.SIGKILL)
                phase = "killed"
            if now >= next_row:
                next_row += a.every
                fh, sh = get(fbase + "/healthz")[0], get(sbase + "/healthz")
                sm, fm = metrics(sbase + "/metrics"), metrics(fbase + "/metrics")
                code, text = get(pbase + "/api/v1/alerts")
                alerts = json.loads(text)["data"]["alerts"] if code == 200 else []
                names = ", ".join(
                    sorted(f"{x['labels']['alertname']}:{x['state'][0]}" for x in alerts)
                )
                print(
                    f"{now:5.0f} {phase:<9} {fh or '-':>8} {sh[0]:>5} "
                    f"{sm.get(('syncpoint_backlog_changes', tbl), float('nan')):7.0f} "
                    f"{sm.get(('syncpoint_lag_seconds', tbl), float('nan')):6.1f} "
                    f"{fm.get(('syncpoint_rounds_failed_total', grp), float('nan')):6.0f}  {names}",
                    flush=True,
                )
                if sh[0] != 200:
                    events.append(f"{now:.0f} s serve: {json.loads(sh[1])['reasons'][:1]}")
            time.sleep(0.5)
        writer.stopping.set()
        writer.join()
        done = subprocess.run([EXE, "-c", str(cfg), "run", "--once"], capture_output=True, env=env)
        print(f"last run --once: exit {done.returncode}")
        verify = subprocess.run([EXE, "-c", str(cfg), "verify"], capture_output=True, env=env)
        print(f"verify: exit {verify.returncode} (0: every table equal)")
        if a.source == "postgresql":
            s, d = checksum(src), checksum(dst)
            same = "equal" if s == d else "DIFFER"
            print(f"source {s[0]} rows, target {d[0]} rows; checksums {same}")
        lines = [ln for ln in ferr.read_text().splitlines() if ln.strip()]
        timed = sum(
            bool(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d ", ln)) for ln in lines
        )
        print(f"follower's stderr: {len(lines)} lines, {timed} timed:")
        for ln in lines:
            print("  " + ln[:220])
        for e in events[:3]:
            print("  " + e)


if __name__ == "__main__":
    main()
