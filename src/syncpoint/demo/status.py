"""Step 8 and 9: what ``syncpoint status`` reports, the receive stamps of ``cen``, and a
``purge`` of the change records every consumer has applied.

The stamps are read from ``{prefix}stin_{channel}_cen`` (leader and trailer) and the
per-location detail behind it, as ``syncpoint status`` reads them.
"""

from __future__ import annotations

from syncpoint.demo import shop
from syncpoint.demo.state import DemoState


def status(state: DemoState) -> None:
    ch = state.ch
    data = {
        "capture": ch.capture_status(),
        "integrate": ch.integrate_status(),
        "gates": ch.gate_status(),
    }
    report = ch.stamps_status().get(shop.TARGET) or {}
    stamps = {
        "table": report.get("table"),
        "row": report.get("stamps"),
        "locations": {
            loc: {"cap_begin": s["cap_begin"], "sync_point": s["sync_point"]}
            for loc, s in sorted(report.get("locations", {}).items())
            if s["cap_begin"] is not None
        },
    }
    state.results["status"] = data
    state.results["stamps"] = stamps
    state.event("status", status=data, stamps=stamps)


def purge(state: DemoState) -> None:
    """Delete the change records every registered application has applied."""
    before = {loc: st.get("pending") for loc, st in state.ch.capture_status().items()}
    done = state.ch.purge()
    after = {loc: st.get("pending") for loc, st in state.ch.capture_status().items()}
    state.results["purge"] = {
        loc: {"queued_before": before.get(loc), **r, "queued_after": after.get(loc)}
        for loc, r in done.items()
    }
    state.event("purge", purge=state.results["purge"])
