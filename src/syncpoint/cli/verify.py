"""``syncpoint verify [--tables T,...] [--repair] [--json]``: compare each target table with
its sources; exit 1 when a difference persists (after ``--repair``: when it was found)."""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from syncpoint.cli.common import channel, emit_json, handled, out


def register(app: typer.Typer) -> None:
    @app.command("verify")
    def verify(
        tables: Annotated[
            str | None, typer.Option("--tables", help="comma-separated tables (default: all)")
        ] = None,
        repair: Annotated[
            bool, typer.Option("--repair", help="write the source's rows for differing keys")
        ] = False,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Compare each target table with its sources (per-range counts and checksums on
        Spark, differing ranges re-checked after a round); list what still differs."""
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
        names = [t.strip() for t in tables.split(",") if t.strip()] if tables else None
        with handled(as_json):
            report = channel().verify(names, repair=repair)
        if as_json:
            emit_json(report.to_dict())
        else:
            for t in report.tables:
                diffs = t["differences"]
                out.print(
                    f"{t['integrate']}: {t['target']} (from {', '.join(t['sources'])}): "
                    f"{t['rows']} rows, {t['ranges']} ranges, "
                    + (f"{len(diffs)} difference(s)" if diffs else "equal"),
                    markup=False,
                )
                for s in t["stopped"]:
                    out.print(
                        f"  rounds from {s['location']} are stopped: {s['reason']}", markup=False
                    )
                for d in diffs:
                    cols = f" in {', '.join(d['columns'])}" if d["columns"] else ""
                    out.print(f"  {d['kind']}: key {d['key']}{cols}", markup=False)
            if report.repaired:
                out.print(f"repaired {report.repaired} row(s) at the target", markup=False)
            for t in report.tables:
                for d in t.get("not_repaired", []):
                    out.print(f"  not repaired: key {d['key']}: {d['reason']}", markup=False)
        if report.differences > report.repaired:
            raise typer.Exit(1)
