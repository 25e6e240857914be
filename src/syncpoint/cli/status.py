"""``syncpoint status``: per location and table, what is installed, pending and applied."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from syncpoint.cli.common import channel, emit_json, handled, out


def _capture_table(name: str, st: dict[str, Any]) -> None:
    if "error" in st:
        out.print(f"[red]{name}: {st['error']}[/]")
        return
    if not st["installed"]:
        out.print(f"{name}: capture not installed")
        return
    out.print(
        f"{name}: capture installed, stream {st['stream_id']}, position {st['context']}, "
        f"{st['pending']} change records pending"
    )
    t = Table("table", "status", "actions", "trigger", "pending")
    for row in st["tables"]:
        t.add_row(
            row["table"],
            row["status"],
            row["actions"] or "IUD",
            row["trigger_name"] or "",
            str(row["pending"]),
        )
    out.print(t)
    for ev in st.get("ddl_events", [])[-5:]:
        out.print(f"  DDL {ev.get('db_action')} {ev.get('tablename')} at {ev.get('captured_at')}")
    for problem in st.get("problems", []):
        out.print(f"  [red]problem:[/] {problem}")


def register(app: typer.Typer) -> None:
    @app.command("status")
    def status(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
        """Per location and table: capture, positions, backlog, lag, stamps, gates."""
        with handled(as_json):
            ch = channel()
            data: dict[str, Any] = {"channel": ch.cfg.channel, "capture": ch.capture_status()}
            extra = getattr(ch, "integrate_status", None)
            if extra is not None:
                data["integrate"] = extra()
        if as_json:
            emit_json(data)
            return
        for name, st in data["capture"].items():
            _capture_table(name, st)
        if "integrate" in data:
            import importlib

            importlib.import_module("syncpoint.cli.status_integrate").show(data["integrate"])
