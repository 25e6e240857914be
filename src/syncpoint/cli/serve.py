"""``syncpoint serve [--host H] [--port N] [--interval S]``: the status page and ``/metrics``."""

from __future__ import annotations

from typing import Annotated

import typer

from syncpoint.cli.common import channel, err, handled


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
        from syncpoint.observe.metrics import Metrics
        from syncpoint.ops.serve.app import make_app
        from syncpoint.ops.serve.poller import Poller

        with handled(False):
            ch = channel()
            poller = Poller(lambda: collect(ch), Metrics(ch.cfg.channel), every=interval)
            web = make_app(ch.cfg, poller)
            err.print(
                f"syncpoint serve: http://{host}:{port}/ (status every {interval:g} s), "
                f"metrics at /metrics; Ctrl-C stops",
                markup=False,
            )
            uvicorn.run(web, host=host, port=port, log_level="warning", access_log=False)
