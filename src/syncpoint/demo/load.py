"""The initial load and the proof: ``snapshot`` copies the rows the sources held before
capture was installed, then rounds go on from its hand-over; at the end ``verify`` finds
cen equal to the sources, finds a difference planted at cen, and ``--repair`` removes it."""

from __future__ import annotations

import sqlite3

from syncpoint.demo import shop
from syncpoint.demo.state import DemoState


def snapshot(state: DemoState) -> None:
    state.note(
        "the sources held rows before capture was installed: snapshot copies them to cen on "
        "Spark (the sources stay writable), then rounds carry every later change"
    )
    report = state.ch.snapshot()
    rows = [
        {k: r.get(k) for k in ("location", "table", "rows_copied", "t0")} for r in report["tables"]
    ]
    state.results["snapshot"] = rows
    for r in rows:
        state.note(f"  {r['table']} from {r['location']}: {r['rows_copied']} rows copied")
    want = {(loc, t): n for loc in shop.LOCATIONS for t, n in shop.EXISTING.items()}
    got = {(r["location"], r["table"]): r["rows_copied"] for r in rows}
    state.check("snapshot copied every existing row", got == want, f"copied {got}")


def verify(state: DemoState) -> None:
    report = state.ch.verify()
    state.results["verify"] = report.to_dict()
    state.check(
        "verify: cen equals the sources",
        report.differences == 0,
        f"{report.differences} difference(s)",
    )
    # a difference planted at cen, as a careless hand could make it
    key = shop.ID_BASE[shop.LOCATIONS[0]] + shop.EXISTING_OFFSET + 1
    conn = sqlite3.connect(state.path(shop.TARGET), isolation_level=None, timeout=30)
    try:
        conn.execute("UPDATE customers SET country = 'XX' WHERE id = ?", (key,))
    finally:
        conn.close()
    state.note(f"planted at cen: customer {key} moved to country XX behind syncpoint's back")
    found = state.ch.verify(["customers"])
    diffs = [d for t in found.tables for d in t["differences"]]
    state.results["verify_planted"] = found.to_dict()
    for d in diffs:
        state.note(f"  verify: {d['kind']}: key {d['key']} in {', '.join(d['columns'])}")
    state.check(
        "verify finds the planted difference",
        [(d["key"], d["kind"], d["columns"]) for d in diffs]
        == [([str(key)], "different", ["country"])],
        f"{diffs}",
    )
    fixed = state.ch.verify(["customers"], repair=True)
    again = state.ch.verify(["customers"])
    state.check(
        "verify --repair repairs it",
        fixed.repaired == 1 and again.differences == 0,
        f"repaired {fixed.repaired}, then {again.differences} difference(s)",
    )
