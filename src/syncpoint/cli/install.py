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
    def uninstall(
        keep_positions: Annotated[
            bool,
            typer.Option(
                "--keep-positions",
                help="Keep stream positions, sync points and receive stamps at integrate "
                "locations (a later install and run continue where they were).",
            ),
        ] = False,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Remove every object of this prefix at every location: capture triggers, tables
        and functions, and the integrate control tables (idempotent)."""
        with handled(as_json):
            done = channel().uninstall(keep_positions=keep_positions)
        _show(done, as_json)


def _show(done: dict[str, str], as_json: bool) -> None:
    if as_json:
        emit_json(done)
    else:
        for k, v in done.items():
            out.print(f"{k}: {v}")
