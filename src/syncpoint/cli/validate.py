"""``syncpoint validate``: check the configuration and every location; list each problem.

The text report is one stream (stdout), in order: the file's problems, then each location's
problems or its ``ok``, then the notes, so that a terminal shows them as they belong
together; the exit code says whether there was any problem."""

from __future__ import annotations

from typing import Annotated

import typer

from syncpoint.cli.common import emit_json, handled, out, state


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
        """Check the config and connect to every location; list every problem found, a
        privilege install or run will lack among them, with the GRANT that gives it (one
        stream, in order with each location's ok; exit 2 when there is any)."""
        from syncpoint.ops.channel import Channel

        with handled(as_json):
            source, in_file, problems, notes = Channel.check_file(state.config_path)
        bad = bool(in_file) or any(problems.values())
        if as_json:
            emit_json(
                {
                    "ok": not bad,
                    "source": source,
                    "config": in_file,
                    "problems": problems,
                    "notes": notes,
                }
            )
        else:
            for p in in_file:
                out.print(p, markup=False)
            for loc, ps in problems.items():
                if ps:
                    for p in ps:
                        out.print(f"{source}: {loc}: {p}", markup=False)
                else:
                    out.print(f"{loc}: ok")
            for loc, ns in notes.items():
                for n in ns:
                    out.print(f"{loc}: {n}", markup=False)
        if bad:
            raise typer.Exit(2)
