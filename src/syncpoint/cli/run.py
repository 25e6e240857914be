"""``syncpoint run [--once] [--follow] [--interval S] [--group G]``: rounds to sync points."""

from __future__ import annotations

import logging
from typing import Annotated, Any

import typer

from syncpoint.cli.common import channel, emit_json, handled, out
from syncpoint.errors import UsageError


def _print_round(r: dict[str, Any]) -> None:
    sps = ", ".join(f"{loc}@{ctx}" for loc, ctx in r["sync_points"].items())
    out.print(
        f"{r['integrate']}: group {r['group']}: {r['changes']} changes read, "
        f"{r['applied']} rows applied, sync points {sps}",
        markup=False,
    )
    for s in r["stopped"]:
        out.print(f"  stopped: {s['location']} {s['table']}: {s['reason']}", markup=False)


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        once: Annotated[bool, typer.Option("--once", help="one pass to fresh sync points")] = False,
        follow: Annotated[
            bool, typer.Option("--follow", help="keep running until SIGTERM/SIGINT")
        ] = False,
        interval: Annotated[
            float, typer.Option("--interval", help="seconds between polls (--follow)")
        ] = 1.0,
        group: Annotated[str | None, typer.Option("--group", help="only this sync group")] = None,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Sample sync points and run rounds until every table reaches them."""
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
        with handled(as_json):
            if once and follow:
                raise UsageError("--once and --follow exclude each other")
            if interval <= 0:
                raise UsageError("--interval must be positive")

            def live(report: Any) -> None:
                if not as_json:
                    for r in report.rounds:
                        if r["changes"] or r["stopped"]:  # idle polls only move positions
                            _print_round(r)

            report = channel().run(
                once=not follow,
                follow=follow,
                interval=interval,
                group=group,
                on_report=live if follow else None,
            )
        if as_json:
            emit_json(report.to_dict())
        elif not follow:
            for r in report.rounds:
                _print_round(r)
            if not report.rounds:
                out.print("nothing to do: every table is at its sync point")
            for t in report.transport:
                if t.get("loaded"):
                    copied = ", ".join(
                        f"{name} ({', '.join(f'{loc}: {n} rows' for loc, n in per.items())})"
                        for name, per in t["tables"].items()
                    )
                    out.print(f"transport: gate {t['gate']}: loaded {copied}", markup=False)
                else:
                    out.print(f"transport: gate {t['gate']}: {t.get('reason')}", markup=False)
