"""``syncpoint purge``: delete change records every registered application has applied."""

from __future__ import annotations

from typing import Annotated

import typer

from syncpoint.cli.common import channel, emit_json, handled, out


def register(app: typer.Typer) -> None:
    @app.command("purge")
    def purge(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
        """Delete change records that every registered application has applied."""
        with handled(as_json):
            done = channel().purge()
        if as_json:
            emit_json(done)
            return
        for loc, d in done.items():
            if d["upto"] is None:
                out.print(f"{loc}: nothing purged (an application has not applied yet)")
            else:
                out.print(f"{loc}: {d['purged']} change records purged, up to {d['upto']}")
            if "tombstones" in d:
                out.print(f"{loc}: {d['tombstones']} tombstones purged")
