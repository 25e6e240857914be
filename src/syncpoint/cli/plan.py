"""``syncpoint plan``: print, per location, the SQL ``install`` would run."""

from __future__ import annotations

from typing import Annotated

import typer

from syncpoint.cli.common import channel, emit_json, handled, out


def register(app: typer.Typer) -> None:
    @app.command("plan")
    def plan(
        uninstall: Annotated[
            bool, typer.Option("--uninstall", help="Show what uninstall would drop instead.")
        ] = False,
        keep_positions: Annotated[
            bool, typer.Option("--keep-positions", help="With --uninstall: as uninstall's.")
        ] = False,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Print, per location, the SQL that install (or, with --uninstall, uninstall) would
        run; changes nothing."""
        with handled(as_json):
            ch = channel()
            plans = ch.plan_uninstall(keep_positions) if uninstall else ch.plan()
        if as_json:
            emit_json(plans)
            return
        for loc, stmts in plans.items():
            out.print(f"-- location {loc}: {len(stmts)} statements", markup=False)
            for s in stmts:
                if all(ln.lstrip().startswith("--") for ln in s.strip().splitlines()):
                    out.print(s.strip(), markup=False)  # a note, not a statement
                    continue
                out.print(s.rstrip().rstrip(";") + ";\n", markup=False)
