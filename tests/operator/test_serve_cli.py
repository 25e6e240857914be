"""``syncpoint serve`` as a user starts it: it listens on the port given, answers the page, its
JSON, ``/healthz`` and ``/metrics`` (parsed with prometheus-client's parser), and stops on
SIGTERM. No Spark is started."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.conftest import make_sqlite
from tests.operator.test_serve_page import free_port, metric_values
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


TIMED = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d ")


def test_serve_answers_page_json_health_and_metrics(tmp_path: Path) -> None:
    gens = [make_sqlite(tmp_path), make_sqlite(tmp_path)]
    src, dst = (next(g) for g in gens)
    rk.setup_source(src)
    cfg = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst)
    assert rk.syncpoint(cfg, "install").returncode == 0
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1')")
    port = free_port()
    exe = str(Path(sys.executable).with_name("syncpoint"))
    proc: Any = subprocess.Popen(
        [exe, "-c", str(cfg), "serve", "--port", str(port), "--interval", "0.5"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline, code = time.monotonic() + 60, 0
        while time.monotonic() < deadline and code != 200:
            try:
                code, _ = get(base + "/healthz")
            except OSError:
                pass
            time.sleep(0.3)
        assert code == 200, proc.stderr.read() if proc.poll() is not None else "not healthy"
        code, page = get(base + "/")
        assert code == 200 and "<title>syncpoint status</title>" in page
        doc = json.loads(get(base + "/api/status")[1])
        assert sorted(loc["name"] for loc in doc["locations"]) == ["cen", "src"]
        assert doc["flows"]["src->cen"]["backlog"] == 1
        assert "url" not in json.dumps(doc["locations"])  # never a URL (passwords)
        values = metric_values(base + "/metrics")
        parent = (
            ("channel", "shop"),
            ("integrate", "cen"),
            ("location", "src"),
            ("table", "parent"),
        )
        assert values[("syncpoint_backlog_changes", parent)] == 1
        assert values[("syncpoint_queue_changes", (("channel", "shop"), ("location", "src")))] == 1
        assert isinstance(json.loads(get(base + "/api/history")[1])["samples"], list)
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
        assert f"http://127.0.0.1:{port}/" in err
        # a long-running command's lines each start with their time
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert lines and all(TIMED.match(ln) for ln in lines), err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for g in gens:
            next(g, None)
