"""Rounds wait for snapshots: ``run`` refuses a table (exit 1, with what to do) whose
existing rows were never loaded, unless its entry says ``snapshot: none`` (a table that
starts empty). A table is loaded when its snapshot is ``done`` at that integrate location,
or when it already has a stream position there without any snapshot record (rounds began
before snapshots existed: nothing changes for it). A snapshot still copying always
refuses: its hand-over sets the position the rounds must start from."""

from __future__ import annotations

from typing import Any

from syncpoint.config import TableConfig
from syncpoint.errors import TableStopped
from syncpoint.ops.snapshot import state as st


def refuse_unloaded(
    target: Any,
    conn: Any,
    application: str,
    tables: dict[str, list[TableConfig]],
    positioned: set[tuple[str, str]],
) -> None:
    """``tables``: per capture location, the tables of the group to be run."""
    wanted = [(loc, t) for loc, ts in tables.items() for t in ts if t.snapshot != "none"]
    if not wanted:
        return
    st.ensure(target, conn)
    states = st.read(target, conn, application)
    missing = []
    for loc, t in wanted:
        s = states.get((loc, str(t.ref)))
        if s is not None and s.done:
            continue
        if s is None and (loc, str(t.ref)) in positioned:
            continue
        how = (
            f"its snapshot is still copying ({s.rows_copied} of ~{s.rows_estimated} rows)"
            if s is not None
            else "its existing rows were never loaded"
        )
        missing.append(f"{t.name} from {loc}: {how}")
    if missing:
        raise TableStopped(
            "rounds refused: " + "; ".join(missing) + ". Run `syncpoint snapshot` first, or "
            "declare `snapshot: none` in the table's entry if the table started empty",
            location=target.location,
        )
