"""``run --follow --metrics-port N``: the running process serves the channel's metrics (rounds,
changes applied, round durations, backlog) in the Prometheus text format, parsed with
prometheus-client's own parser; SIGTERM still ends the run cleanly (exit 0)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import syncpoint
from tests.operator.test_serve_page import metric_values
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql

pytestmark = pytest.mark.spark


def test_a_follower_serves_its_metrics(tmp_path: Path) -> None:
    from tests.conftest import make_sqlite

    gens = [make_sqlite(tmp_path), make_sqlite(tmp_path)]
    src, dst = (next(g) for g in gens)
    rk.setup_source(src)
    cfg = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst)
    assert rk.syncpoint(cfg, "install").returncode == 0
    bad = rk.syncpoint(cfg, "run", "--once", "--metrics-port", "0")
    assert bad.returncode == 2 and "--metrics-port needs --follow" in bad.stderr
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1'), (2, 'b', 'v2')")
    exe = str(Path(sys.executable).with_name("syncpoint"))
    env = {**os.environ, "SYNCPOINT_LOG_FILE": str(tmp_path / "spark.log")}
    env.pop("SYNCPOINT_FAILPOINT", None)
    proc: Any = subprocess.Popen(
        [exe, "-c", str(cfg), "run", "--follow", "--interval", "0.5", "--metrics-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        url = None
        for line in proc.stderr:  # the port is chosen by the system and printed
            m = re.search(r"metrics: (http://\S+/metrics)", line)
            if m:
                url = m.group(1)
                break
        assert url, "no metrics address printed"
        applied = (("channel", "shop"), ("group", "g"), ("integrate", "cen"))
        values: dict[Any, float] = {}
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            values = metric_values(url)
            if values.get(("syncpoint_changes_applied_total", applied), 0) >= 2 and any(
                k[0] == "syncpoint_backlog_changes" for k in values
            ):
                break
            time.sleep(0.5)
        assert values[("syncpoint_changes_applied_total", applied)] == 2
        assert values[("syncpoint_changes_read_total", applied)] == 2
        assert values[("syncpoint_round_duration_seconds_count", applied)] >= 1
        assert values[("syncpoint_rounds_total", applied)] >= 1
        # the status thread read lag and backlog
        assert values[("syncpoint_status_up", (("channel", "shop"),))] == 1
        tbl = (("channel", "shop"), ("integrate", "cen"), ("location", "src"), ("table", "parent"))
        info = (
            "syncpoint_build_info",
            (("channel", "shop"), ("exporter", "follower"), ("version", syncpoint.__version__)),
        )
        assert values[info] == 1
        assert values[("syncpoint_backlog_changes", tbl)] in (0, 2)  # before or after the round
        # a second follower's --metrics-port on the same port: one line, exit 1
        port = url.split(":")[2].split("/")[0]
        busy = rk.syncpoint(cfg, "run", "--follow", "--metrics-port", port)
        assert busy.returncode == 1, busy.stderr
        assert "Traceback" not in busy.stderr and "Errno" not in busy.stderr, busy.stderr
        lines = busy.stderr.strip().splitlines()
        assert len(lines) == 1 and f"--metrics-port {port}: cannot listen" in lines[0], lines
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0
        assert "2 changes read, 2 rows applied" in out
        assert rk.same(src, dst)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for g in gens:
            next(g, None)
