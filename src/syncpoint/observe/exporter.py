"""``run --follow --metrics-port N``: the channel's metrics served from the running process.

Rounds feed the counters as they commit or fail; a thread reads the status (the same
document as ``syncpoint status``) every ``every`` seconds (``--metrics-interval``, 15 by
default) for lag, backlog, stamps and gates, on its own connections, so the rounds never
wait for it. It reads as ``serve`` does (``ops/serve/poller.py``), so both export the same
series under the same names; docs/operations.md says which to scrape.

Routes: ``/metrics`` (and any other path, as prometheus-client serves), ``/healthz``: 503
with the reasons when a location cannot be read, a table is stopped or a group's latest
round failed (``observe/health.py``), and ``/readyz``.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from syncpoint.errors import WorkFailed
from syncpoint.observe.metrics import Metrics

log = logging.getLogger("syncpoint.metrics")


@dataclass
class Exporter:
    metrics: Metrics
    poller: Any
    port: int
    server: Any
    thread: threading.Thread
    stopping: threading.Event

    def round_ok(self, r: dict[str, Any]) -> None:
        self.metrics.observe_round(r)
        self.poller.health.round_ok(r["integrate"], r["group"])

    def round_failed(self, f: dict[str, Any]) -> None:
        self.metrics.round_failed(f["integrate"], f["group"])
        self.poller.health.round_failed(f["integrate"], f["group"], f["error"])

    def stop(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


def _app(poller: Any) -> Callable[..., Iterable[bytes]]:
    from prometheus_client import make_wsgi_app

    metrics = make_wsgi_app(poller.metrics.exposed)

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path not in ("/healthz", "/readyz"):
            return metrics(environ, start_response)  # type: ignore[no-any-return]
        code, body = poller.health_check() if path == "/healthz" else poller.ready_check()
        text = json.dumps(body).encode()
        start_response(
            "200 OK" if code == 200 else "503 Service Unavailable",
            [("Content-Type", "application/json"), ("Content-Length", str(len(text)))],
        )
        return [text]

    return app


def start_exporter(ch: Any, port: int, host: str = "0.0.0.0", every: float = 15.0) -> Exporter:  # noqa: S104 - scraped from other hosts
    from wsgiref.simple_server import make_server

    from prometheus_client.exposition import ThreadingWSGIServer, _SilentHandler

    from syncpoint.cli.status import collect
    from syncpoint.ops.serve.poller import Poller

    metrics = Metrics(ch.cfg.channel, exporter="follower")
    metrics.declare(ch.cfg, rounds=True)
    poller = Poller(lambda known: collect(ch, known), metrics, every, say=False)
    try:
        server = make_server(host, port, _app(poller), ThreadingWSGIServer, _SilentHandler)
    except OSError as exc:
        raise WorkFailed(
            f"--metrics-port {port}: cannot listen on {host}:{port}: {exc.strerror or exc} "
            "(another process uses the port? choose another)"
        ) from None
    threading.Thread(target=server.serve_forever, name="syncpoint-http", daemon=True).start()
    stopping = threading.Event()

    def refresh() -> None:
        while not stopping.is_set():
            poller.poll()  # a failed read is logged and counted, never raised
            stopping.wait(every)

    t = threading.Thread(target=refresh, name="syncpoint-metrics", daemon=True)
    t.start()
    return Exporter(metrics, poller, server.server_port, server, t, stopping)
