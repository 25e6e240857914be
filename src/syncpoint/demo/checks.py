"""Step 6 and 7: the target checked against the sources, and what is not built yet.

Every check reads the databases themselves (plain ``sqlite3``, read-only), not syncpoint's
own bookkeeping, except where the bookkeeping is what is checked (backlog, stamps, gate):

- each target table equals the union of the two sources, row for row (count and a SHA-256
  of the sorted rows);
- no orphan rows at the target, and no row of a rolled-back transaction;
- the change records the rounds read add up to the changes the writers committed (nothing
  lost, nothing read twice);
- ``status`` shows backlog 0 and no stopped table;
- each source's receive stamp at ``cen`` is at or after its last captured change;
- the gate went through its states in order and the transport table arrived whole.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from syncpoint.demo import shop
from syncpoint.demo.state import DemoState


def _norm(v: Any) -> Any:
    """Numbers compared by value (SQLite may keep 30 as integer or real); the rest as is."""
    if isinstance(v, int | float) and not isinstance(v, bool):
        return format(Decimal(repr(v)).normalize(), "f")
    return v


def _rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        return [tuple(_norm(v) for v in r) for r in conn.execute(sql).fetchall()]
    finally:
        conn.close()


def _digest(rows: list[tuple[Any, ...]]) -> str:
    return hashlib.sha256(json.dumps(sorted(rows, key=repr)).encode()).hexdigest()


def _count(path: Path, sql: str) -> int:
    return int(_rows(path, sql)[0][0])


def compare_tables(state: DemoState) -> None:
    target = state.path(shop.TARGET)
    tables = {}
    for t in shop.TABLES:
        per_source = {loc: _rows(state.path(loc), shop.SELECT[t]) for loc in shop.LOCATIONS}
        union = [r for rows in per_source.values() for r in rows]
        there = _rows(target, shop.SELECT[t])
        a, b = _digest(union), _digest(there)
        tables[t] = {
            "sources": {loc: len(rows) for loc, rows in per_source.items()},
            "target": len(there),
            "sources_sha256": a,
            "target_sha256": b,
        }
        counts = " + ".join(f"{loc} {len(rows)}" for loc, rows in per_source.items())
        state.check(
            f"{t}: cen equals dec01 ∪ dec02",
            a == b and len(union) == len(there),
            f"{counts} = {len(union)} rows, cen {len(there)} rows; "
            f"sha256 {a[:12]} {'=' if a == b else '≠'} {b[:12]}",
        )
    state.results["tables"] = tables
    orphans = {what: _count(target, q) for what, q in shop.ORPHANS.items()}
    state.check(
        "no orphan rows at cen",
        not any(orphans.values()),
        ", ".join(f"{what}: {n}" for what, n in orphans.items()),
    )
    ghosts = _count(target, shop.GHOSTS)
    state.check(
        "nothing of the rolled-back transactions at cen",
        ghosts == 0,
        f"{ghosts} rows named {shop.GHOST}",
    )


def compare_changes(state: DemoState) -> None:
    writers = state.results.get("writers", {})
    made = sum(w["total_changes"] for w in writers.values())
    read = sum(r["changes"] for r in state.results.get("rounds", []))
    state.check(
        "change records read by rounds = row changes committed by the writers",
        made == read,
        f"{read} read in {len(state.results.get('rounds', []))} rounds, {made} committed",
    )


def backlog(state: DemoState) -> None:
    rows = [r for st in state.results["status"]["integrate"].values() for r in st.get("tables", [])]
    behind = [r for r in rows if r.get("backlog") != 0 or r.get("stopped")]
    lag = max((r.get("lag_seconds") or 0.0 for r in rows), default=0.0)
    state.check(
        "status: backlog 0 everywhere, no table stopped",
        bool(rows) and not behind,
        f"{len(rows)} (location, table) pairs, {len(behind)} behind, lag {lag:.1f} s"
        + "".join(f"; {r['location']} {r['table']}: {r.get('backlog')}" for r in behind),
    )


def stamps(state: DemoState) -> None:
    per = state.results["stamps"]["locations"]
    for loc in shop.LOCATIONS:
        last = state.results.get("writers", {}).get(loc, {}).get("last_change_at")
        stamp = per.get(loc, {}).get("cap_begin")
        ok = stamp is not None and last is not None and stamp >= datetime.fromisoformat(last)
        state.check(
            f"receive stamp of {loc} covers its last change",
            ok,
            f"stamp {_hms(stamp)} ≥ last change captured {_hms(last)} (UTC, {loc}'s clock)"
            if ok
            else f"stamp {_hms(stamp)}, last change captured {_hms(last)}",
        )


def _hms(t: datetime | str | None) -> str:
    if t is None:
        return "none"
    t = datetime.fromisoformat(t) if isinstance(t, str) else t
    return t.strftime("%H:%M:%S.%f")[:-3]


def gate(state: DemoState) -> None:
    g = state.results["gate"]
    producer, consumer, again = g["turns"]
    path = [
        (producer["during"], "OperationalSysLoading"),
        (producer["after"], "OperationalSysLoaded"),
        (consumer["found"], "OperationalSysLoaded"),
        (consumer["after"], "WarehouseLoaded"),
        (again["after"], "WarehouseLoaded"),
    ]
    state.check(
        "gate: producer and consumer took turns in the order the gate rules give",
        all(got == want for got, want in path) and consumer["loaded"] and not again["loaded"],
        " → ".join(str(got) for got, _ in path[:4])
        + f"; a second consumer turn {'loaded again' if again['loaded'] else 'found nothing'}",
    )
    src = _rows(state.path(g["location"]), shop.TRANSPORT_SELECT)
    there = _rows(state.path(shop.TARGET), shop.TRANSPORT_SELECT)
    state.check(
        "gate: the transport table arrived whole",
        _digest(src) == _digest(there) and bool(src),
        f"{shop.TRANSPORT_TABLE}: {len(src)} rows at {g['location']}, {len(there)} at cen; "
        f"sha256 {'equal' if _digest(src) == _digest(there) else 'different'}",
    )


def run_checks(state: DemoState) -> None:
    for step in (compare_tables, compare_changes, backlog, stamps, gate):
        step(state)
