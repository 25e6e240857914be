"""Step 5: a gate handshake (docs/recipes.md) between a batch producer and syncpoint as consumer.

The producer is dec01's nightly extract: in its turn of gate ``nightly`` (held in dec01's
database) it empties the transport table ``daily_totals`` (the consumer loaded the last
batch) and fills it again. The consumer is syncpoint: ``load_transport`` takes its turn and
copies the table into ``cen``. The gate's state is read before, during and after each turn;
a second consumer turn then finds nothing to load and touches nothing.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from syncpoint.demo import shop
from syncpoint.demo.state import DemoState

NEW_GATE = "WarehouseLoaded (a new gate: no row yet)"


def _state(g: Any) -> str:
    st = g.status()
    return str(st.row.state) if st is not None else NEW_GATE


def _consumer(state: DemoState, g: Any, who: str) -> dict[str, Any]:
    """One consumer turn through ``load_transport``, as ``syncpoint`` itself loads."""
    from syncpoint.ops.transport import load_transport

    before = _state(g)
    loaded = load_transport(state.ch)
    if loaded["loaded"]:
        work = [
            f"found {loaded.get('found')}: copied {t} to {loc}: {n} rows"
            for t, per in loaded.get("tables", {}).items()
            for loc, n in per.items()
        ]
    else:
        work = ["no turn, nothing touched: " + str(loaded.get("reason", ""))]
    turn = {
        "role": "consumer",
        "who": who,
        "before": before,
        "found": loaded.get("found"),
        "loaded": loaded["loaded"],
        "tables": loaded.get("tables", {}),
        "work": work,
        "after": _state(g),
    }
    state.event("turn", **turn)
    return turn


def handshake(state: DemoState) -> None:
    from syncpoint.ops.gate import Gate, gate

    cfg = state.ch.cfg
    assert cfg.transport is not None
    src = cfg.transport.location
    url = state.ch.url(src)
    g = Gate(url, cfg.transport.gate, prefix=cfg.prefix, location=src)

    before = _state(g)
    with gate(
        url,
        cfg.transport.gate,
        "producer",
        prefix=cfg.prefix,
        location=src,
        purge_tables=[shop.TRANSPORT_TABLE],
        command="syncpoint demo: dec01 nightly extract",
    ) as turn:
        during = _state(g)
        conn = sqlite3.connect(state.path(src), isolation_level=None, timeout=30)
        try:
            filled = conn.execute(shop.TRANSPORT_FILL).rowcount
        finally:
            conn.close()
    purged = ", ".join(f"{t} ({n} rows)" for t, n in turn.purged.items())
    producer = {
        "role": "producer",
        "who": f"producer: {src}'s nightly extract, in a turn of gate {cfg.transport.gate}",
        "before": before,
        "found": str(turn.found),
        "during": during,
        "purged": turn.purged,
        "filled": filled,
        "work": [
            f"found {turn.found}: emptied {purged or 'nothing'}, then filled "
            f"{shop.TRANSPORT_TABLE} with {filled} rows"
        ],
        "after": _state(g),
    }
    state.event("turn", **producer)
    turns = [
        producer,
        _consumer(state, g, "consumer: syncpoint loads the transport table (load_transport)"),
        _consumer(state, g, "consumer again, before the next extract"),
    ]
    state.results["gate"] = {
        "gate": cfg.transport.gate,
        "location": src,
        "transport_tables": list(cfg.transport.tables),
        "turns": turns,
        "final_state": _state(g),
    }
