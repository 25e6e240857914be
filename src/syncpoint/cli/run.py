"""``syncpoint run [--once] [--follow] [--interval S] [--group G] [--metrics-port N]``: rounds
to sync points.

Text output is one line per round as it commits (tables, changes read, rows applied, time and
rate), with a rich spinner while a round works when stdout is a terminal, plain lines
otherwise; ``--json`` prints one JSON document and nothing else on stdout. Spark's and the
JVM's own log goes to the log file (``--verbose``: stderr).
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

import typer

from syncpoint.cli.common import channel, emit_json, err, handled, out, state, when_jvm_starts
from syncpoint.errors import UsageError
from syncpoint.observe.logtext import now_text, timed_logging


def round_line(r: dict[str, Any]) -> str:
    sps = ", ".join(f"{loc}@{ctx}" for loc, ctx in r["sync_points"].items())
    secs = float(r.get("seconds") or 0.0)
    per_s = r["changes"] / secs if secs > 0 else 0.0
    rate = f", {per_s:,.0f} changes/s" if per_s >= 10 else f", {per_s:.2g} changes/s"
    rate = rate if per_s > 0 else ""
    return (
        f"{r['integrate']}: group {r['group']}: {len(r.get('tables', []))} tables, "
        f"{r['changes']} changes read, {r['applied']} rows applied in {secs:.1f} s{rate}, "
        f"sync points {sps}"
    )


def _print_round(r: dict[str, Any], timed: bool = False) -> None:
    """``timed`` (a follower's lines, read back from a log days later): each with its time."""
    at = f"{now_text()} " if timed else ""
    out.print(at + round_line(r), markup=False)
    for s in r["stopped"]:
        out.print(f"{at}  stopped: {s['location']} {s['table']}: {s['reason']}", markup=False)


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        once: Annotated[bool, typer.Option("--once", help="one pass to fresh sync points")] = False,
        follow: Annotated[
            bool, typer.Option("--follow", help="keep running until SIGTERM/SIGINT")
        ] = False,
        interval: Annotated[
            float,
            typer.Option("--interval", help="seconds between the starts of two polls (--follow)"),
        ] = 1.0,
        group: Annotated[str | None, typer.Option("--group", help="only this sync group")] = None,
        metrics_port: Annotated[
            int | None,
            typer.Option(
                "--metrics-port",
                help="with --follow: serve Prometheus metrics on this port (0: any free port)",
            ),
        ] = None,
        metrics_interval: Annotated[
            float,
            typer.Option(
                "--metrics-interval",
                help="with --metrics-port: seconds between the status reads behind the metrics",
                min=0.5,
            ),
        ] = 15.0,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Sample sync points and run rounds until every table reaches them."""
        from syncpoint.ops import run as runner

        if follow:
            timed_logging()
        else:
            logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
        at = (lambda: f"{now_text()} ") if follow else (lambda: "")
        with handled(as_json):
            if once and follow:
                raise UsageError("--once and --follow exclude each other")
            if interval <= 0:
                raise UsageError("--interval must be positive")
            if metrics_port is not None and not follow:
                raise UsageError("--metrics-port needs --follow")
            ch = channel()
            if not as_json and not state.verbose:
                # said when a JVM starts: rounds that stay in the driver start none
                def say_log(path: str) -> None:
                    err.print(f"{at()}Spark's log: {path}", markup=False, style="dim")

                when_jvm_starts(say_log)
            exporter = None
            if metrics_port is not None:
                from syncpoint.observe.exporter import start_exporter

                exporter = start_exporter(ch, metrics_port, every=metrics_interval)
                err.print(
                    f"{at()}metrics: http://127.0.0.1:{exporter.port}/metrics (health: /healthz)",
                    markup=False,
                )
            spinner = _Spinner(enabled=not as_json and out.is_terminal)

            def on_round(r: dict[str, Any]) -> None:
                if exporter is not None:
                    exporter.round_ok(r)
                if as_json or (follow and not r["changes"] and not r["stopped"]):
                    return  # idle polls of a follower only move positions
                spinner.pause()
                _print_round(r, timed=follow)
                spinner.resume()

            def on_failure(f: dict[str, Any]) -> None:
                if exporter is not None:
                    exporter.round_failed(f)

            try:
                with runner.listening(on_round, on_failure), spinner:
                    report = ch.run(once=not follow, follow=follow, interval=interval, group=group)
            finally:
                if exporter is not None:
                    exporter.stop()
        if as_json:
            emit_json(report.to_dict())
            return
        if not follow and not report.rounds:
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


class _Spinner:
    """A rich status line on a terminal while rounds work; nothing otherwise."""

    def __init__(self, enabled: bool):
        self.status = out.status("running rounds…") if enabled else None

    def __enter__(self) -> _Spinner:
        if self.status is not None:
            self.status.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.status is not None:
            self.status.stop()

    def pause(self) -> None:
        if self.status is not None:
            self.status.stop()

    def resume(self) -> None:
        if self.status is not None:
            self.status.start()
