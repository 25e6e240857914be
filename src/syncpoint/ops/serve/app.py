"""The web app of ``syncpoint serve`` (Starlette, served by uvicorn).

Routes: ``/`` the page; ``/api/status`` the latest status document with the channel's
layout (locations and their roles) and the flows; ``/api/history`` the last hour of backlog
and lag per flow; ``/metrics`` the Prometheus text format; ``/healthz`` (503 with the
reasons when a location is unreachable, a table stopped or the follower gone:
``observe/health.py``) and ``/readyz``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from syncpoint.observe.metrics import CONTENT_TYPE
from syncpoint.ops.serve.poller import Poller

PAGE = Path(__file__).with_name("page.html")


def _jsonable(o: Any) -> Any:
    import json

    from syncpoint.cli.common import _default

    return json.loads(json.dumps(o, default=_default))


def layout(cfg: Any) -> dict[str, Any]:
    """Locations with their roles, in the order the config names them (no URLs: secrets)."""
    return {
        "channel": cfg.channel,
        "application": cfg.application,
        "locations": [
            {"name": n, "capture": bool(loc.capture), "integrate": bool(loc.integrate)}
            for n, loc in cfg.locations.items()
        ],
        # capture location -> integrate location: drawn even when no table could be counted
        "links": [
            [src, integ] for integ in cfg.integrate_locations() for src in cfg.sources_of(integ)
        ],
    }


def make_app(cfg: Any, poller: Poller, start: bool = True) -> Starlette:
    """The app over a ``Poller``; ``start``: run the poller's thread for the app's lifetime."""
    shape = layout(cfg)

    async def page(request: Request) -> Response:
        return HTMLResponse(PAGE.read_text("utf-8"))

    async def status(request: Request) -> Response:
        return JSONResponse(_jsonable({**shape, **poller.snapshot()}))

    async def history(request: Request) -> Response:
        return JSONResponse(_jsonable({"window_s": 3600, "samples": poller.history()}))

    async def metrics(request: Request) -> Response:
        return Response(poller.metrics.render(), media_type=CONTENT_TYPE)

    async def healthz(request: Request) -> Response:
        code, body = poller.health_check()
        return JSONResponse(body, status_code=code)

    async def readyz(request: Request) -> Response:
        code, body = poller.ready_check()
        return JSONResponse(body, status_code=code)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if start:
            poller.start()
        try:
            yield
        finally:
            if start:
                poller.stop()

    return Starlette(
        routes=[
            Route("/", page),
            Route("/api/status", status),
            Route("/api/history", history),
            Route("/metrics", metrics),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
        ],
        lifespan=lifespan,
    )
