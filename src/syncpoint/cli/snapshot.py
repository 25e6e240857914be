"""``syncpoint snapshot [--tables T,...] [--location L] [--truncate] [--restart]``: load
the existing rows of the channel's tables, then hand over to rounds."""

from __future__ import annotations

import logging
from typing import Annotated, Any

import typer

from syncpoint.cli.common import channel, emit_json, err, handled, out


def register(app: typer.Typer) -> None:
    @app.command("snapshot")
    def snapshot(
        tables: Annotated[
            str | None, typer.Option("--tables", help="comma-separated tables (default: all)")
        ] = None,
        location: Annotated[
            str | None, typer.Option("--location", help="only this capture location")
        ] = None,
        truncate: Annotated[
            bool, typer.Option("--truncate", help="empty each target table first, start over")
        ] = False,
        restart: Annotated[
            bool,
            typer.Option(
                "--restart",
                help="copy tables already loaded again; each target table fed by this "
                "source alone then holds exactly the source's rows (rows it no longer has "
                "are deleted)",
            ),
        ] = False,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Copy existing rows to the integrate locations on Spark, then hand over to rounds
        (no change lost or applied twice; the source is never locked against writers)."""
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
        names = [t.strip() for t in tables.split(",") if t.strip()] if tables else None

        def progress(s: Any) -> None:
            if not as_json:
                out.print(
                    f"  {s.table} from {s.location}: {s.rows_copied} of ~{s.estimate} rows copied",
                    markup=False,
                )

        from syncpoint.ops.snapshot import SnapshotIncomplete

        incomplete: SnapshotIncomplete | None = None
        with handled(as_json):
            try:
                report = channel().snapshot(
                    names, location, truncate=truncate, restart=restart, on_progress=progress
                )
            except SnapshotIncomplete as exc:  # the loaded tables are listed too, then exit 1
                report, incomplete = exc.report, exc
        if as_json:
            emit_json(incomplete.to_dict() if incomplete else report)
            if incomplete:
                raise typer.Exit(incomplete.exit_code)
            return
        for r in report["tables"]:
            if r["state"] == "failed":
                out.print(
                    f"{r['integrate']}: {r['table']} from {r['location']}: failed: {r['error']}",
                    markup=False,
                )
            elif r.get("skipped"):
                out.print(
                    f"{r['integrate']}: {r['table']} from {r['location']}: already loaded "
                    "(--restart copies it again)",
                    markup=False,
                )
            else:
                out.print(
                    f"{r['integrate']}: {r['table']} from {r['location']}: {r['rows_copied']} "
                    f"rows copied in {r['seconds']} s ({r['rows_per_second']} rows/s); rounds "
                    f"go on after position {r['t0']}",
                    markup=False,
                )
        if incomplete:
            err.print(f"error: {incomplete}", markup=False)
            raise typer.Exit(incomplete.exit_code)
