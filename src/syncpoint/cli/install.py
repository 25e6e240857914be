"""``syncpoint install`` / ``uninstall``: create or remove every object of the prefix."""

from __future__ import annotations

from typing import Annotated

import typer

from syncpoint.cli.common import channel, emit_json, handled, out


def register(app: typer.Typer) -> None:
    @app.command("install")
    def install(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
        """Create all capture objects of this prefix at every capture location (idempotent)."""
        with handled(as_json):
            done = channel().install()
        _show(done, as_json)

    @app.command("uninstall")
    def uninstall(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
        """Remove all objects of this prefix at every capture location (idempotent)."""
        with handled(as_json):
            done = channel().uninstall()
        _show(done, as_json)


def _show(done: dict[str, str], as_json: bool) -> None:
    if as_json:
        emit_json(done)
    else:
        for k, v in done.items():
            out.print(f"{k}: {v}")
