"""Step 8 and 9: what ``syncpoint status`` reports, the receive stamps of ``cen``, and a
``purge`` of the change records every consumer has applied.

The stamps are read from ``{prefix}stin_{channel}_cen`` (leader and trailer) and the
per-location detail behind it, through the same store the runs write them with.
"""

from __future__ import annotations

from syncpoint.demo import shop
from syncpoint.demo.state import DemoState


def status(state: DemoState) -> None:
    from syncpoint.ops.gate import gate_states
    from syncpoint.vendors.stampstore import StampStore

    ch = state.ch
    cfg = ch.cfg
    data = {
        "capture": ch.capture_status(),
        "integrate": ch.integrate_status(),
        "gates": gate_states(cfg),
    }
    store = StampStore("sqlite", cfg.prefix, cfg.channel, shop.TARGET)
    with ch.connection(shop.TARGET) as conn:
        store.ensure(conn)  # only when no run has stamped yet: then the table is empty
        row = store.row(conn)
        per = store.read(conn)
    stamps = {
        "table": store.table_name,
        "row": row,
        "locations": {
            loc: {"cap_begin": t, "sync_point": ctx} for loc, (t, ctx) in sorted(per.items())
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
