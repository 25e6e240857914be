"""Two channels of the same application at the same target: each one's ``status`` shows its
own snapshots, never the other channel's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from syncpoint.ops.channel import Channel
from tests.conftest import make_sqlite
from tests.system import roundkit as rk


def test_a_channel_shows_its_own_snapshots_only(tmp_path: Path) -> None:
    gens = [make_sqlite(tmp_path) for _ in range(3)]
    one, two, dst = (next(g) for g in gens)
    chans: list[Any] = []
    for loc, db in (("one", one), ("two", two)):
        rk.setup_source(db)
        cfg = rk.write_config(tmp_path / f"{loc}.yaml", {loc: db}, dst, snapshot="required")
        ch = Channel.from_file(cfg)
        ch.install()  # its tables are empty: recorded as loaded (snapshots of no rows)
        chans.append(ch)
    for ch, loc in zip(chans, ("one", "two"), strict=True):
        shown = ch.snapshot_status()["cen"]
        assert shown and {s["location"] for s in shown} == {loc}, shown
