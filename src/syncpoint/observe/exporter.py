"""``run --follow --metrics-port N``: the channel's metrics served from the running process.

Rounds feed the counters as they commit or fail; a thread reads the status (the same
document as ``syncpoint status``) every ``every`` seconds (``--metrics-interval``, 15 by
default) for lag, backlog, stamps and gates, on its own connections, so the rounds never
wait for it. It reads as ``serve`` does (``ops/serve/poller.py``), so both export the same
series under the same names; docs/operations.md says which to scrape.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from syncpoint.observe.metrics import Metrics

log = logging.getLogger("syncpoint.metrics")


@dataclass
class Exporter:
    metrics: Metrics
    port: int
    server: Any
    thread: threading.Thread
    stopping: threading.Event

    def stop(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


def start_exporter(ch: Any, port: int, host: str = "0.0.0.0", every: float = 15.0) -> Exporter:  # noqa: S104 - scraped from other hosts
    from prometheus_client import start_http_server

    from syncpoint.cli.status import collect
    from syncpoint.ops.serve.poller import Poller

    metrics = Metrics(ch.cfg.channel, exporter="follower")
    server, _thread = start_http_server(port, addr=host, registry=metrics.exposed)
    stopping = threading.Event()
    poller = Poller(lambda known: collect(ch, known), metrics, every)

    def refresh() -> None:
        while not stopping.is_set():
            poller.poll()  # a failed read is logged and counted, never raised
            stopping.wait(every)

    t = threading.Thread(target=refresh, name="syncpoint-metrics", daemon=True)
    t.start()
    return Exporter(metrics, server.server_port, server, t, stopping)
