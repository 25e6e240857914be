"""``syncpoint serve [--host H] [--port N] [--interval S]``: the status page and ``/metrics``."""

from __future__ import annotations

import socket
from typing import Annotated

import typer

from syncpoint.cli.common import channel, err, handled
from syncpoint.errors import WorkFailed


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve(
        port: Annotated[int, typer.Option("--port", help="TCP port of the page")] = 8600,
        host: Annotated[
            str, typer.Option("--host", help="address to listen on (0.0.0.0: every interface)")
        ] = "127.0.0.1",
        interval: Annotated[
            float, typer.Option("--interval", help="seconds between status reads", min=0.5)
        ] = 5.0,
    ) -> None:
        """Serve a status page (the channel drawn, backlog and lag over the last hour,
        stopped tables, gates, conflicts, DDL events) and /metrics for Prometheus."""
        import uvicorn

        from syncpoint.cli.status import collect
        from syncpoint.observe.logtext import now_text, timed_logging, uvicorn_log_config
        from syncpoint.observe.metrics import Metrics
        from syncpoint.ops.serve.app import make_app
        from syncpoint.ops.serve.poller import Poller

        timed_logging()
        with handled(False):
            ch = channel()
            sock = _bind(host, port)
            metrics = Metrics(ch.cfg.channel)
            metrics.declare(ch.cfg, rounds=False)
            poller = Poller(lambda known: collect(ch, known), metrics, every=interval)
            web = make_app(ch.cfg, poller)
            err.print(
                f"{now_text()} syncpoint serve: http://{host}:{port}/ (status every "
                f"{interval:g} s), metrics at /metrics, health at /healthz; Ctrl-C stops",
                markup=False,
            )
            config = uvicorn.Config(
                web, log_level="warning", access_log=False, log_config=uvicorn_log_config()
            )
            uvicorn.Server(config).run(sockets=[sock])


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything starts: a port in use is said plainly
    (exit 1), never left to the web server's own exit."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise WorkFailed(
            f"cannot listen on {host}:{port}: {exc.strerror or exc} "
            "(another process uses the port? choose another with --port)"
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock
