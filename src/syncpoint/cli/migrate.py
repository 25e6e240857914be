"""``syncpoint migrate --location L -- SQL...``: run an application's schema migration so
that capture follows it. Only SQLite needs it (its ``DROP COLUMN`` refuses a column the
capture triggers name); elsewhere plain DDL is followed by itself and this runs the
statements in one transaction where the vendor allows, then polls."""

from __future__ import annotations

from typing import Annotated

import typer

from syncpoint.cli.common import channel, emit_json, handled, out


def register(app: typer.Typer) -> None:
    @app.command(
        "migrate", context_settings={"allow_extra_args": False, "ignore_unknown_options": False}
    )
    def migrate(
        statements: Annotated[list[str], typer.Argument(help="SQL statements, one per argument")],
        location: Annotated[str, typer.Option("--location", "-l", help="capture location")],
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Run schema changes (ALTER TABLE ...) at a capture location with capture following
        them: on SQLite the capture triggers are dropped, the statements run and the triggers
        regenerated in one transaction, so no write falls between."""
        with handled(as_json):
            written = channel().migrate(location, list(statements))
        if as_json:
            emit_json({"location": location, "ddl_records": written})
        else:
            out.print(f"{location}: migration done, {written} DDL records written")
