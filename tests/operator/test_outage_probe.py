"""The operator's outage, under log capture: a follower (``run --follow --metrics-port``)
applies from a PostgreSQL source's WAL; the target database stops accepting connections
while a writer goes on; then it is back; then the follower is SIGKILLed.

What a probe, Prometheus and the person reading the log see:

- ``/healthz`` 200 before, 503 with the reason during the outage, 200 after;
- the lag and backlog on ``/metrics`` growing through the outage (the follower reads the
  log into the queue while its rounds fail), back to 0 after; the failure counters were
  exported at 0 from the start; every metric the shipped alert rules name is on the live
  endpoint;
- log lines each with their time, the failure said once (not once a poll), and a line
  when the rounds commit again;
- the follower killed: a status reader (``serve``'s) that saw it running answers 503;
- a real Prometheus (Debian's) scraping the follower with the shipped rules: the outage's
  alerts (target down, rounds failing) become active during it and are gone after it; the
  killed follower's scrape failing makes ``SyncpointFollowerDown`` active.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from syncpoint.cli.status import collect
from syncpoint.observe.metrics import Metrics
from syncpoint.ops.channel import Channel
from syncpoint.ops.serve.poller import Poller
from tests.conftest import make_pg
from tests.logpg import make_log_db
from tests.operator.test_alert_rules import RULES, rule_metrics
from tests.operator.test_outage_page import give_back, take_away
from tests.operator.test_serve_page import free_port, metric_values
from tests.system import roundkit as rk
from tests.system.test_log_capture_pg import as_log
from tests.system.test_rounds_once import sql

pytestmark = pytest.mark.spark
TIMED = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d ")


@pytest.fixture
def pair(log_pg: str) -> Any:
    gens = [make_log_db(log_pg), make_pg()]
    src, dst = (next(g) for g in gens)
    yield src, dst
    give_back(dst.name)  # the drop needs the database reachable again
    for g in gens:
        next(g, None)


def health(base: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@contextmanager
def prometheus(tmp_path: Path, target: str) -> Iterator[str]:
    """A Prometheus server scraping ``target`` every second with the shipped rules."""
    exe = shutil.which("prometheus")
    assert exe, "prometheus is missing: make deps installs Debian's prometheus package"
    conf = tmp_path / "prometheus.yml"
    conf.write_text(
        yaml.safe_dump(
            {
                "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                "rule_files": [str(RULES)],
                "scrape_configs": [
                    {"job_name": "syncpoint-follower", "static_configs": [{"targets": [target]}]}
                ],
            }
        )
    )
    base = f"http://127.0.0.1:{free_port()}"
    proc = subprocess.Popen(
        [
            exe,
            f"--config.file={conf}",
            f"--storage.tsdb.path={tmp_path / 'tsdb'}",
            f"--web.listen-address={base.removeprefix('http://')}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "prometheus.log").open("wb"),
    )
    try:
        assert rk.wait_until(lambda: _get(base + "/-/ready") == 200, 30, 0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(30)


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return int(r.status)
    except (OSError, urllib.error.HTTPError):
        return 0


def active(prom: str) -> set[str]:
    """The alerts pending or firing now (a `for:` keeps them pending for its time)."""
    with urllib.request.urlopen(prom + "/api/v1/alerts", timeout=10) as r:
        return {a["labels"]["alertname"] for a in json.loads(r.read())["data"]["alerts"]}


def test_a_log_captured_follower_through_a_target_outage(pair: Any, tmp_path: Path) -> None:
    src, dst = pair
    rk.setup_source(src)
    rk.setup_target(dst)
    cfg = as_log(rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst))
    assert rk.syncpoint(cfg, "install").returncode == 0
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1'), (2, 'b', 'v2')")
    env = {**os.environ, "SYNCPOINT_LOG_FILE": str(tmp_path / "spark.log")}
    env.pop("SYNCPOINT_FAILPOINT", None)
    args = ["run", "--follow", "--interval", "0.5", "--metrics-port", "0"]
    exe = str(Path(sys.executable).with_name("syncpoint"))
    errf, outf = tmp_path / "follow.err", tmp_path / "follow.out"
    proc = subprocess.Popen(
        [exe, "-c", str(cfg), *args, "--metrics-interval", "0.5"],
        stdout=outf.open("wb"),
        stderr=errf.open("wb"),
        env=env,
    )
    parent = (("channel", "shop"), ("integrate", "cen"), ("location", "src"))
    parent += (("table", "public.parent"),)
    grp = (("channel", "shop"), ("group", "g"), ("integrate", "cen"))
    failed = ("syncpoint_rounds_failed_total", grp)
    stack = ExitStack()
    try:
        assert rk.wait_until(lambda: "metrics: http" in errf.read_text(), 60, 0.2)
        base = re.search(r"metrics: (http://\S+)/metrics", errf.read_text()).group(1)  # type: ignore[union-attr]
        assert rk.wait_until(lambda: rk.same(src, dst)[0], 120, 0.5)
        assert rk.wait_until(lambda: health(base)[0] == 200, 30, 0.3), health(base)
        prom = stack.enter_context(prometheus(tmp_path, base.removeprefix("http://")))
        backlog = ("syncpoint_backlog_changes", parent)
        # the status has read the position the rounds reached (counted from during the outage)
        position = ("syncpoint_position", parent)
        assert rk.wait_until(
            lambda: (v := metric_values(base + "/metrics")).get(backlog) == 0 and position in v,
            30,
            0.3,
        )
        before = metric_values(base + "/metrics")
        assert before[failed] == 0  # at 0 from the start: increase() sees the first failure
        names = {n for n, _ in before} | {n.removesuffix("_total") for n, _ in before}
        assert rule_metrics(RULES) - {"up"} <= names, rule_metrics(RULES) - names

        take_away(dst.name)
        for i in range(3, 7):
            sql(src, f"INSERT INTO parent (id, name, ver) VALUES ({i}, 'n{i}', 'v{i}')")
        # the status read says why (the rounds' failure may say it first)
        assert rk.wait_until(lambda: "cen unreachable" in str(health(base)[1]), 30, 0.3)
        code, body = health(base)
        assert code == 503 and not body["ok"], body
        assert rk.wait_until(
            lambda: metric_values(base + "/metrics").get(backlog) == 4,
            60,
            0.3,
        )
        first = metric_values(base + "/metrics")
        for i in range(7, 10):  # written during the outage: read from the log all the same
            sql(src, f"INSERT INTO parent (id, name, ver) VALUES ({i}, 'n{i}', 'v{i}')")
        assert rk.wait_until(
            lambda: metric_values(base + "/metrics").get(backlog) == 7,
            60,
            0.3,
        ), metric_values(base + "/metrics").get(("syncpoint_backlog_changes", parent))
        later = metric_values(base + "/metrics")
        lag = ("syncpoint_lag_seconds", parent)
        assert later[lag] > first[lag] > 0  # growing
        assert later[failed] >= 1 and later[("syncpoint_rounds_failing", grp)] == 1
        assert health(base)[0] == 503
        outage = {"SyncpointLocationDown", "SyncpointRoundsFailing"}
        assert rk.wait_until(lambda: outage <= active(prom), 30, 0.5), active(prom)

        give_back(dst.name)
        assert rk.wait_until(lambda: rk.same(src, dst)[0], 60, 0.5)
        assert rk.wait_until(lambda: health(base)[0] == 200, 30, 0.3), health(base)
        assert rk.wait_until(lambda: metric_values(base + "/metrics")[backlog] == 0, 30, 0.3)
        after = metric_values(base + "/metrics")
        assert after[("syncpoint_rounds_failing", grp)] == 0
        assert rk.wait_until(lambda: not active(prom), 30, 0.5), active(prom)  # resolved

        # serve's reader saw the follower running; the follower is killed
        ch = Channel.from_file(cfg)
        poller = Poller(lambda known: collect(ch, known), Metrics("shop"), every=0.5)
        poller.poll()
        assert poller.health_check()[0] == 200, poller.health_check()
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        assert rk.wait_until(lambda: "SyncpointFollowerDown" in active(prom), 30, 0.5)
    finally:
        proc.kill()
        proc.wait(30)
        stack.close()
    poller.poll()
    code, body = poller.health_check()
    assert code == 503 and any("follower" in r and "stopped" in r for r in body["reasons"])
    # nobody reads the log now: the lag still counts what waits in it (read, not drained)
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (20, 'x', 'v20')")

    def lag_now() -> float:
        poller.poll()
        rows = (poller.status or {})["integrate"]["cen"]["tables"]
        return float(next(r for r in rows if r["table"] == "public.parent")["lag_seconds"])

    assert rk.wait_until(lambda: lag_now() > 0, 30, 0.3)
    first_lag = lag_now()
    assert rk.wait_until(lambda: lag_now() > first_lag + 0.5, 30, 0.3)
    unread = (poller.status or {})["capture"]["src"]["log"]
    assert "public.parent" in unread["unread_oldest"] and unread["unread_bytes"] > 0

    log = errf.read_text()
    lines = [ln for ln in log.splitlines() if ln.strip()]
    assert lines and all(TIMED.match(ln) for ln in lines), log
    fails = [ln for ln in lines if "WARNING cen: group g: rounds:" in ln]
    assert len(fails) == 1 and "repeats are counted" in fails[0], log  # not once a poll
    assert any("cen: group g: rounds: commit again after" in ln for ln in lines), log
    assert "Spark's log" not in log  # these rounds stay in the driver: no JVM, no file
    printed = [ln for ln in outf.read_text().splitlines() if ln.strip()]
    assert printed and all(TIMED.match(ln) for ln in printed), printed
