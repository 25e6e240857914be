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
            if ch.cfg.integrate_locations():
                data["integrate"] = ch.integrate_status()
                data["receive_stamps"] = ch.stamps_status()
            data["gates"] = ch.gate_status()
        if as_json:
            emit_json(data)
            return
        for name, st in data["capture"].items():
            _capture_table(name, st)
        if "integrate" in data:
            from syncpoint.cli import status_integrate

            status_integrate.show(data["integrate"])
            _stamps(data["receive_stamps"])
        _gates(data["gates"])


def _stamps(data: dict[str, Any]) -> None:
    for integ, st in data.items():
        if st is None:
            out.print(f"{integ}: no receive stamps yet (no run has completed here)")
            continue
        if "error" in st:
            out.print(f"[red]{integ}: receive stamps: {st['error']}[/]")
            continue
        row = st["stamps"] or {}
        out.print(
            f"{integ}: receive stamps ({st['table']}): leader {row.get('leader_cap_loc')} "
            f"at {row.get('leader_cap_begin')}, trailer {row.get('trailer_cap_loc')} "
            f"at {row.get('trailer_cap_begin')}"
        )
        t = Table("capture location", "integrated up to", "age s", "sync point")
        for loc, s in st["locations"].items():
            age = s["age_seconds"]
            t.add_row(
                loc,
                str(s["cap_begin"] or "nothing guaranteed yet"),
                "-" if age is None else f"{age:.1f}",
                str(s["sync_point"] or "-"),
            )
        out.print(t)


def _gates(data: dict[str, Any]) -> None:
    for loc, gates in data.items():
        if isinstance(gates, dict) and "error" in gates:
            out.print(f"[red]{loc}: gates: {gates['error']}[/]")
            continue
        for g in gates:
            holder = g.get("holder") or {}
            out.print(
                f"{loc}: gate {g['gate']}: {g['state']} for {g.get('age_s', 0):.0f} s "
                f"(last by {holder.get('host')} pid {holder.get('pid')}: {holder.get('command')})"
            )
