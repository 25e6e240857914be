"""``syncpoint validate``: check the configuration and every location; list each problem."""

from __future__ import annotations

from typing import Annotated

import typer

from syncpoint.cli.common import channel, emit_json, err, handled, out


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
        """Check the config and connect to every location; list every problem found."""
        with handled(as_json):
            ch = channel()
            problems = ch.validate()
        bad = {loc: ps for loc, ps in problems.items() if ps}
        if as_json:
            emit_json({"ok": not bad, "source": ch.source, "problems": problems})
        else:
            for loc, ps in problems.items():
                if ps:
                    for p in ps:
                        err.print(f"{ch.source}: {loc}: {p}")
                else:
                    out.print(f"{loc}: ok")
        if bad:
            raise typer.Exit(2)
