"""The Python API as the README shows it: ``syncpoint.Gate`` and ``syncpoint.GateBusy`` are
exported, and a consumer's turn on a fresh gate is refused with ``GateBusy`` until a
producer has finished a turn, as the README says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import syncpoint

README = Path(__file__).resolve().parents[2] / "README.md"


def test_a_consumer_on_a_fresh_gate_waits_for_a_producer(sqlite_db: Any) -> None:
    assert {"Gate", "GateBusy", "gate"} <= set(syncpoint.__all__)
    assert "syncpoint.GateBusy" in README.read_text("utf-8")
    with pytest.raises(syncpoint.GateBusy):
        with syncpoint.gate(sqlite_db.url, "nightly", role="consumer", wait=0):
            raise AssertionError("a consumer ran on a fresh gate")
    with syncpoint.gate(sqlite_db.url, "nightly", role="producer"):
        pass
    loaded = []
    with syncpoint.gate(sqlite_db.url, "nightly", role="consumer", wait=0):
        loaded.append(True)
    assert loaded
    status = syncpoint.Gate(sqlite_db.url, "nightly").status()
    assert status is not None and status.to_dict()["state"] == "WarehouseLoaded"
