"""``syncpoint status``: per location and table, what is installed, pending and applied, and
the warnings an operator must look at (``syncpoint.observe.warnings``). ``collect`` builds
the document that ``status --json`` prints (its JSON Schema is
``syncpoint/observe/status.schema.json``); ``serve`` and ``run --metrics-port`` read the same."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from syncpoint.cli import grid
from syncpoint.cli.common import channel, emit_json, err, handled, out

_said: set[str] = set()  # locations whose error was printed: one line each is enough


def _error(loc: str, what: str, st: Any) -> bool:
    """Print ``st``'s error for ``loc`` (once per location); whether there was one."""
    if not (isinstance(st, dict) and "error" in st):
        return False
    if loc not in _said:
        _said.add(loc)
        out.print(f"{loc}: {what}{st['error']}", style="red", markup=False)
    return True


def _capture_table(name: str, st: dict[str, Any]) -> None:
    if _error(name, "", st):
        return
    if not st["installed"]:
        out.print(f"{name}: capture not installed")
        return
    out.print(
        f"{name}: capture installed, stream {st['stream_id']}, position {st['context']}, "
        f"{st['pending']} change records pending"
    )
    rows = [
        (
            row["table"],
            row["status"],
            row["actions"] or "IUD",
            row["trigger_name"] or "",
            str(row["pending"]),
        )
        for row in st["tables"]
    ]
    grid.show(out, ("table", "status", "actions", "trigger", "pending"), rows)
    for ev in st.get("ddl_events", [])[-5:]:
        out.print(f"  DDL {ev.get('db_action')} {ev.get('tablename')} at {ev.get('captured_at')}")
    held = st.get("log") or {}
    if held.get("retained_bytes") is not None:
        age = held.get("age_seconds")
        out.print(
            f"  log retained: {held['retained_bytes']} bytes"
            + (f", {held['unread_bytes']} not read yet" if "unread_bytes" in held else "")
            + (f", position {age:.0f} s old" if age is not None else ""),
            markup=False,
        )
    for problem in st.get("problems", []):
        out.print(f"  [red]problem:[/] {problem}")


def collect(ch: Any, known: Any = None) -> dict[str, Any]:
    """The status document of channel ``ch``, warnings included (``known``: positions of an
    earlier read, which ``serve`` and the metrics pass: ``ops/status.py``)."""
    from syncpoint.observe.warnings import status_warnings

    data: dict[str, Any] = {"channel": ch.cfg.channel, "capture": ch.capture_status()}
    if ch.cfg.integrate_locations():
        data["integrate"] = ch.integrate_status(known) if known else ch.integrate_status()
        data["receive_stamps"] = ch.stamps_status()
        data["snapshots"] = ch.snapshot_status()
        from syncpoint.ops.follower import follower_status

        data["followers"] = follower_status(ch.cfg)
    if any(loc.capture and loc.integrate for loc in ch.cfg.locations.values()):
        from syncpoint.ops.cdr.status import conflict_status

        data["conflicts"] = conflict_status(ch.cfg)
    data["gates"] = ch.gate_status()
    data["warnings"] = status_warnings(data, ch.cfg.warnings)
    return data


def register(app: typer.Typer) -> None:
    @app.command("status")
    def status(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
        """Per location and table: capture, positions, backlog, lag, stamps, gates, warnings."""
        with handled(as_json):
            data = collect(channel())
        if as_json:
            emit_json(data)
            _exit_if_unreachable(data)
            return
        _said.clear()
        for name, st in data["capture"].items():
            _capture_table(name, st)
        if "integrate" in data:
            from syncpoint.cli import status_integrate

            status_integrate.show(data["integrate"], _error)
            _stamps(data["receive_stamps"])
            _snapshots(data["snapshots"])
            _followers(data.get("followers") or {})
        _conflicts(data.get("conflicts") or {})
        _gates(data["gates"])
        for w in data["warnings"]:
            if w["kind"] == "unreachable" and w.get("location") in _said:
                continue  # its error was printed where the location is: said once
            out.print(f"[yellow]warning:[/] {escape(w['message'])}", markup=True)
        _exit_if_unreachable(data)


def _exit_if_unreachable(data: dict[str, Any]) -> None:
    """Exit 1 when a location could not be read (its reason was printed above, once)."""
    from syncpoint.observe.metrics import unreadable

    down = unreadable(data)
    for part in ("gates", "followers"):
        down |= {loc for loc, st in (data.get(part) or {}).items() if _has_error(st)}
    if down:
        names = ", ".join(sorted(down))
        err.print(f"error: could not read {names} (the reason is above)", markup=False)
        raise typer.Exit(1)


def _has_error(st: Any) -> bool:
    return isinstance(st, dict) and "error" in st


def _followers(data: dict[str, Any]) -> None:
    for integ, f in data.items():
        if _error(integ, "follower: ", f):
            continue
        if f["running"]:
            out.print(f"{integ}: a follower is running: {f['holder']}", markup=False)
        else:
            out.print(f"{integ}: no follower (run --follow) is running", markup=False)


def _conflicts(data: dict[str, Any]) -> None:
    for loc, st in data.items():
        if _error(loc, "conflicts: ", st):
            continue
        tombs = st.get("tombstones") or {}
        if tombs.get("count"):
            out.print(
                f"{loc}: {tombs['count']} tombstones, the oldest "
                f"{tombs['oldest_age_seconds']:.0f} s old (purge takes them once every site "
                "is past them)"
            )
        for table, t in st["tables"].items():
            last = t["latest"]
            out.print(
                f"{loc}: {t['count']} conflicts on {table}; latest key {last['key']} group "
                f"{last['column_group']}: {last['winner']} won ({last['resolution']}) "
                f"at {last['decided_at']}"
            )


def _stamps(data: dict[str, Any]) -> None:
    for integ, st in data.items():
        if st is None:
            out.print(f"{integ}: no receive stamps yet (no run has completed here)")
            continue
        if _error(integ, "receive stamps: ", st):
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
        if _error(loc, "gates: ", gates):
            continue
        for g in gates:
            holder = g.get("holder") or {}
            out.print(
                f"{loc}: gate {g['gate']}: {g['state']} for {g.get('age_s', 0):.0f} s "
                f"(last by {holder.get('host')} pid {holder.get('pid')}: {holder.get('command')})"
            )


def _snapshots(data: dict[str, Any]) -> None:
    for integ, rows in data.items():
        if isinstance(rows, dict):
            _error(integ, "snapshots: ", rows)
            continue
        lines = []
        for r in rows:
            rate = f", {r['rows_per_second']} rows/s" if r["rows_per_second"] else ""
            lines.append(
                f"{integ}: snapshot of {r['table']} from {r['location']}: {r['state']}, "
                f"{r['rows_copied']} of ~{r['rows_estimated']} rows copied{rate}"
            )
        if lines:  # printed at once: a line each costs rich's work per call
            out.print(Text("\n".join(lines)), soft_wrap=True)
