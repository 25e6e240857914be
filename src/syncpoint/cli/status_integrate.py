"""The integrate part of ``syncpoint status``: positions, sync points, backlog, lag, stops."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from syncpoint.cli import grid
from syncpoint.cli.common import out


def show(data: dict[str, Any], error: Callable[[str, str, Any], bool]) -> None:
    """``error(location, what, part)`` prints a part's error once per location."""
    for integ, st in data.items():
        if error(integ, "", st):
            continue
        out.print(f"{integ}: integrate, application {st['application']}")
        headers = (
            "from",
            "table",
            "target",
            "group",
            "position",
            "sync point",
            "backlog",
            "lag s",
            "stopped",
        )
        rows = []
        for r in st["tables"]:
            lag = r.get("lag_seconds")
            rows.append(
                (
                    r["location"],
                    r["table"],
                    r["target"],
                    r["group"],
                    "-" if r["position"] is None else str(r["position"]),
                    "-" if r["sync_point"] is None else str(r["sync_point"]),
                    "?" if r.get("backlog") is None else str(r["backlog"]),
                    "?" if lag is None else f"{lag:.1f}",
                    "yes, see below"
                    if r.get("stopped")
                    else ("error" if r.get("error") else ("held" if r.get("held") else "")),
                )
            )
        grid.show(out, headers, rows)
        if any(r["position"] is None and not r.get("error") for r in st["tables"]):
            out.print(
                "  a table without a position has had no round here yet: `syncpoint snapshot` "
                "loads its rows first (unless it says snapshot: none), then `syncpoint run`",
                markup=False,
            )
        # reasons are long: printed whole below the table (in a column they wrap one word
        # per line)
        for r in st["tables"]:
            for what in ("stopped", "held", "error"):
                if r.get(what):
                    out.print(f"  {what}: {r['location']} {r['table']}: {r[what]}", markup=False)
