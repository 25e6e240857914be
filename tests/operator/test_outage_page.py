"""An outage as an operator sees it: the target PostgreSQL database stops accepting
connections (``ALLOW_CONNECTIONS false`` and its sessions ended) while the application goes
on writing, then comes back and a round catches up.

The real headless browser shows the target's box and arrow red, the error in the header,
the per-table view and the backlog growing; ``/metrics`` (prometheus-client's own parser)
keeps every per-table series with ``syncpoint_location_up`` 0, lag growing and the read
errors counted; after the round, everything is back at 0 and the plot falls.

``SYNCPOINT_SCREENSHOTS=DIR`` saves the three states as PNG files (how docs/images/
status-*.png are made)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from syncpoint.cli.status import collect
from syncpoint.observe.metrics import Metrics
from syncpoint.ops.channel import Channel
from syncpoint.ops.serve.app import make_app
from syncpoint.ops.serve.poller import Poller
from tests.conftest import PG_ADMIN
from tests.operator.test_serve_page import browser, free_port, metric_values  # noqa: F401
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql

pytestmark = pytest.mark.spark


def _admin(*stmts: str) -> None:
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        for s in stmts:
            conn.execute(s)  # type: ignore[arg-type]


def take_away(name: str) -> None:
    _admin(
        f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false',
        f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'",
    )


def give_back(name: str) -> None:
    _admin(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')


def shot(b: Any, name: str) -> None:
    folder = os.environ.get("SYNCPOINT_SCREENSHOTS")
    if folder:
        b.save_screenshot(str(Path(folder) / name))


@pytest.fixture
def pg_pair() -> Any:
    from tests.conftest import make_pg

    gens = [make_pg(), make_pg()]
    dbs = [next(g) for g in gens]
    yield dbs
    give_back(dbs[1].name)  # the drop needs the database reachable again
    for g in gens:
        next(g, None)


def test_the_page_and_metrics_show_a_target_outage_and_the_recovery(
    pg_pair: Any,
    tmp_path: Path,
    spark: Any,
    browser: Any,  # noqa: F811
) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    src, dst = pg_pair
    rk.setup_source(src)
    cfg = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst)
    ch = Channel.from_file(cfg)
    ch.install()
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1'), (2, 'b', 'v2')")
    ch.run(once=True, spark=spark)

    import uvicorn

    poller = Poller(lambda known: collect(ch, known), Metrics("shop"), every=0.5)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(make_app(ch.cfg, poller), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    tbl = (("channel", "shop"), ("integrate", "cen"), ("location", "src"))
    parent = (*tbl, ("table", "public.parent"))
    try:
        # the page redraws its boxes at every poll: an element found just before a redraw
        # is looked up again at the next try
        wait = WebDriverWait(
            browser, 120, poll_frequency=0.3, ignored_exceptions=[StaleElementReferenceException]
        )
        wait.until(lambda _: server.started)
        browser.get(base + "/")
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "g.location[data-name='cen']"))
        wait.until(lambda b: "backlog 0 " in flow_text(b))
        assert box(browser, "cen").get_attribute("data-up") == "1"
        assert browser.find_element(By.ID, "read-error").text == ""
        assert "no follower running" in browser.find_element(By.ID, "follower").text
        shot(browser, "status-ok.png")
        assert probe(base + "/healthz") == (200, {"ok": True, "reasons": []})
        assert probe(base + "/readyz")[0] == 200
        ok = metric_values(base + "/metrics")
        assert ok[("syncpoint_location_up", (("channel", "shop"), ("location", "cen")))] == 1
        assert ok[("syncpoint_backlog_changes", parent)] == 0

        # the target goes away; the application goes on writing
        take_away(dst.name)
        for i in range(3, 9):
            sql(src, f"INSERT INTO parent (id, name, ver) VALUES ({i}, 'n{i}', 'v{i}')")
        wait.until(lambda b: box(b, "cen").get_attribute("data-up") == "0")
        wait.until(lambda b: "backlog 6 " in flow_text(b))
        header = browser.find_element(By.ID, "read-error").text
        assert "cen unreachable" in header and "not currently accepting connections" in header
        arrow = browser.find_element(By.CSS_SELECTOR, "path.flow[data-flow='src->cen']")
        assert "down" in (arrow.get_attribute("class") or "")
        assert "UNREACHABLE" in box(browser, "cen").text
        row = browser.find_element(By.CSS_SELECTOR, "#tables tr[data-table='public.parent']")
        assert "unreachable" in row.text and " 6 " in f" {row.text} "
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#plot-backlog rect.outage"))

        code, body = probe(base + "/healthz")  # a load balancer's probe sees the outage
        assert code == 503 and any(r.startswith("cen unreachable: ") for r in body["reasons"])
        assert probe(base + "/readyz")[0] == 200  # serve itself works
        # the last round is still known (the page's header, loaded now, shows it)
        rows = probe(base + "/api/status")[1]["status"]["integrate"]["cen"]["tables"]
        assert all(r["sync_point_sampled_at"] for r in rows), rows
        during = metric_values(base + "/metrics")
        assert during[("syncpoint_location_up", (("channel", "shop"), ("location", "cen")))] == 0
        assert during[("syncpoint_location_up", (("channel", "shop"), ("location", "src")))] == 1
        assert during[("syncpoint_status_up", (("channel", "shop"),))] == 0
        assert during[("syncpoint_backlog_changes", parent)] == 6  # counted at the source
        assert during[("syncpoint_position", parent)] == ok[("syncpoint_position", parent)]
        assert ("syncpoint_table_stopped", (*tbl, ("table", "public.child"))) in during
        errors = ("syncpoint_read_errors_total", (("channel", "shop"), ("location", "cen")))
        assert during[errors] >= 1
        lag1 = during[("syncpoint_lag_seconds", parent)]
        polls = poller.polls
        wait.until(lambda _: poller.polls >= polls + 3)
        later = metric_values(base + "/metrics")
        assert later[("syncpoint_lag_seconds", parent)] > lag1 > 0  # growing
        assert later[errors] > during[errors]
        shot(browser, "status-outage.png")

        # it comes back; a round catches up
        give_back(dst.name)
        ch.run(once=True, spark=spark)
        wait.until(lambda b: box(b, "cen").get_attribute("data-up") == "1")
        wait.until(lambda b: "backlog 0 " in flow_text(b))
        assert browser.find_element(By.ID, "read-error").text == ""
        assert rk_wait(lambda: probe(base + "/healthz")[0] == 200)
        after = metric_values(base + "/metrics")
        assert after[("syncpoint_location_up", (("channel", "shop"), ("location", "cen")))] == 1
        assert after[("syncpoint_backlog_changes", parent)] == 0
        assert after[("syncpoint_lag_seconds", parent)] == 0
        assert after[errors] >= later[errors]  # a counter
        read_at = (
            "syncpoint_location_last_read_timestamp_seconds",
            tbl[:1] + (("location", "cen"),),
        )
        assert after[read_at] > during[read_at]
        hist = [s["flows"]["src->cen"]["backlog"] for s in poller.history()]
        assert max(hist) == 6 and hist[-1] == 0  # drawn growing, then falling
        time.sleep(1.5)  # the page's next refresh draws the fall
        shot(browser, "status-after.png")
        assert rk.same(src, dst)[0]
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def probe(url: str) -> tuple[int, Any]:
    import json
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def rk_wait(pred: Any) -> bool:
    return rk.wait_until(pred, 30, 0.3)


def box(b: Any, name: str) -> Any:
    from selenium.webdriver.common.by import By

    return b.find_element(By.CSS_SELECTOR, f"g.location[data-name='{name}']")


def flow_text(b: Any) -> str:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By

    try:
        e = b.find_element(By.CSS_SELECTOR, "text.flow-label[data-flow='src->cen']")
        return str(e.text) + " "
    except (NoSuchElementException, StaleElementReferenceException):
        return ""
