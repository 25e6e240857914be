"""``syncpoint serve`` in a real headless browser (Debian's chromium and chromedriver, driven by
Selenium): the page draws the channel's locations, shows a stopped table's reason and a gate,
and updates after a round; ``/metrics`` parsed with prometheus-client's own parser."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

import syncpoint
from syncpoint.cli.status import collect
from syncpoint.errors import TableStopped
from syncpoint.observe.metrics import Metrics
from syncpoint.ops.channel import Channel
from syncpoint.ops.serve.app import make_app
from syncpoint.ops.serve.poller import Poller
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql

pytestmark = pytest.mark.spark
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1100",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def pair(tmp_path: Path) -> Any:
    from tests.conftest import make_pg, make_sqlite

    gens = [make_pg(), make_sqlite(tmp_path)]
    dbs = [next(g) for g in gens]
    yield dbs
    for g in gens:
        next(g, None)


@pytest.fixture
def browser(tmp_path: Path) -> Any:
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("chromium and chromium-driver are not installed (make deps installs them)")
        pytest.skip("chromium and chromium-driver are not installed")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for f in FLAGS:
        opts.add_argument(f)
    profile = tmp_path / "chromium-profile"
    opts.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def flow_label(b: Any) -> str:
    """The label of the arrow src -> cen (the page redraws: read it anew each time)."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By

    try:
        return str(b.find_element(By.CSS_SELECTOR, "text.flow-label[data-flow='src->cen']").text)
    except (NoSuchElementException, StaleElementReferenceException):
        return ""


def metric_values(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = urllib.request.urlopen(url, timeout=30).read().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for fam in text_string_to_metric_families(text)
        for s in fam.samples
    }


def test_the_page_draws_the_channel_shows_stops_and_updates_after_a_round(
    pair: Any, tmp_path: Path, spark: Any, browser: Any
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    src, dst = pair
    rk.setup_source(src)
    cfg = rk.write_config(
        tmp_path / "sp.yaml",
        {"src": src},
        dst,
        extra={
            "sync_groups": {"p": ["parent"], "c": ["child"]},
            "warnings": {"gate_loading_s": 0.001},
        },
    )
    ch = Channel.from_file(cfg)
    ch.install()
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1'), (2, 'b', 'v2')")
    ch.run(once=True, spark=spark)
    sql(src, "ALTER TABLE child DROP COLUMN note")
    sql(src, "INSERT INTO child (id, parent_id, qty, ver) VALUES (10, 1, 1, 'c1')")
    with pytest.raises(TableStopped):
        ch.run(once=True, spark=spark)
    with pytest.raises(RuntimeError):
        with syncpoint.gate(dst.url, "nightly", role="producer"):
            raise RuntimeError("the extract failed")
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (3, 'c', 'v3'), (4, 'd', 'v4')")

    import uvicorn

    poller = Poller(lambda known: collect(ch, known), Metrics("shop"), every=0.5)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(make_app(ch.cfg, poller), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait = WebDriverWait(browser, 120, poll_frequency=0.3)
        wait.until(lambda _: server.started)
        browser.get(f"http://127.0.0.1:{port}/")
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "g.location"))
        names = {
            e.get_attribute("data-name")
            for e in browser.find_elements(By.CSS_SELECTOR, "g.location")
        }
        assert names == {"src", "cen"}
        stopped = browser.find_element(By.ID, "stopped").text
        assert "public.child" in stopped and "DROP COLUMN note" in stopped
        # the stopped child's records and the two new parents, as the status counts them
        rows = {t["table"]: t for t in collect(ch)["integrate"]["cen"]["tables"]}
        backlog = {k: t["backlog"] for k, t in rows.items()}
        assert "held" not in rows["public.parent"]  # a group of its own: it goes on
        with pytest.raises(urllib.error.HTTPError) as unhealthy:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30)
        assert unhealthy.value.code == 503
        assert "public.child from src stopped" in unhealthy.value.read().decode()
        assert backlog["public.parent"] == 2 and backlog["public.child"] >= 1
        before = backlog["public.parent"] + backlog["public.child"]
        wait.until(lambda b: flow_label(b).startswith(f"backlog {before} "))
        assert "gate nightly: OperationalSysLoading" in browser.find_element(By.ID, "channel").text
        kinds = {
            e.get_attribute("data-kind") for e in browser.find_elements(By.CSS_SELECTOR, ".warn")
        }
        assert {"table_stopped", "gate_stuck"} <= kinds

        # a round applies the parents: the page follows without a reload
        with pytest.raises(TableStopped):
            ch.run(once=True, spark=spark)
        wait.until(lambda b: flow_label(b).startswith(f"backlog {before - 2} "))
        assert browser.find_element(By.CSS_SELECTOR, "#plot-backlog polyline[data-flow='src->cen']")
        if os.environ.get("SYNCPOINT_SCREENSHOT"):  # how docs/images/status-page.png is made
            browser.save_screenshot(os.environ["SYNCPOINT_SCREENSHOT"])

        values = metric_values(f"http://127.0.0.1:{port}/metrics")
        tbl = (("channel", "shop"), ("integrate", "cen"), ("location", "src"))
        assert values[("syncpoint_table_stopped", (*tbl, ("table", "public.child")))] == 1
        assert values[("syncpoint_table_stopped", (*tbl, ("table", "public.parent")))] == 0
        assert values[("syncpoint_backlog_changes", (*tbl, ("table", "public.parent")))] == 0
        assert values[("syncpoint_backlog_changes", (*tbl, ("table", "public.child")))] >= 1
        gate = (("channel", "shop"), ("gate", "nightly"), ("location", "cen"))
        assert values[("syncpoint_gate_state", (*gate, ("state", "OperationalSysLoading")))] == 1
        assert values[("syncpoint_gate_state", (*gate, ("state", "WarehouseLoaded")))] == 0
        assert values[("syncpoint_warnings", (("channel", "shop"), ("kind", "table_stopped")))] == 1
        assert values[("syncpoint_status_up", (("channel", "shop"),))] == 1
    finally:
        server.should_exit = True
        thread.join(timeout=30)
