"""``make demo`` piped to a file: the status tables are as wide as their cells, not padded
with spaces to the 1,000 columns a pipe gets (so that no line is cut)."""

from __future__ import annotations

from syncpoint.cli import demo
from syncpoint.cli.common import out


def test_the_demo_status_tables_are_not_padded_when_piped() -> None:
    row = {"location": "dec01", "table": "main.sales", "position": 3, "sync_point": 3}
    data = {
        "status": {
            "capture": {},
            "integrate": {
                "cen": {"application": "wh", "tables": [{**row, "backlog": 0, "lag_seconds": 0}]}
            },
        },
        "stamps": {
            "table": "repl_stamps",
            "row": {"leader_cap_loc": "dec01"},
            "locations": {"dec01": {"cap_begin": None, "sync_point": 3}},
        },
    }
    width = out.width
    out.width = 1000  # what a pipe gets (common.py)
    try:
        with out.capture() as cap:
            demo.Printer(1).on_status(data)
    finally:
        out.width = width
    lines = cap.get().splitlines()
    assert any("main.sales" in ln for ln in lines)
    assert max(len(ln) for ln in lines) < 120, max(len(ln) for ln in lines)
