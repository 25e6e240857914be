"""The metrics of a status document sequence through a source outage: the per-table series
stay, their lag keeps growing from the last read, the location is down and its read errors
counted; a table that leaves the channel loses its series."""

from __future__ import annotations

import time
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from syncpoint.observe.metrics import Metrics

T = {"location": "src", "table": "t", "stream_id": "s", "stopped": None}


def values(m: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for fam in text_string_to_metric_families(m.render().decode())
        for s in fam.samples
    }


def doc(src: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"capture": {"src": src}, "integrate": {"cen": {"tables": rows}}, "warnings": []}


def test_a_source_outage_keeps_the_series_and_grows_the_lag() -> None:
    m = Metrics("shop")
    m.update(doc({"pending": 3}, [{**T, "position": 7, "backlog": 3, "lag_seconds": 10.0}]))
    tbl = (("channel", "shop"), ("integrate", "cen"), ("location", "src"), ("table", "t"))
    src = (("channel", "shop"), ("location", "src"))
    before = values(m)
    assert before[("syncpoint_lag_seconds", tbl)] == 10.0
    assert before[("syncpoint_location_up", src)] == 1
    time.sleep(0.3)
    down = {**T, "position": 7, "backlog": None, "lag_seconds": None, "error": "no route"}
    m.update(doc({"error": "no route"}, [down]))
    during = values(m)
    assert during[("syncpoint_lag_seconds", tbl)] >= 10.3  # grown by the time since
    assert during[("syncpoint_backlog_changes", tbl)] == 3  # the last known
    assert during[("syncpoint_position", tbl)] == 7
    assert during[("syncpoint_location_up", src)] == 0
    assert during[("syncpoint_read_errors_total", src)] == 1
    assert during[("syncpoint_status_up", (("channel", "shop"),))] == 0
    assert (
        during[("syncpoint_location_last_read_timestamp_seconds", src)]
        == (before[("syncpoint_location_last_read_timestamp_seconds", src)])
    )
    m.update(doc({"pending": 0}, [{**T, "position": 9, "backlog": 0, "lag_seconds": 0.0}]))
    after = values(m)
    assert after[("syncpoint_lag_seconds", tbl)] == 0
    assert after[("syncpoint_location_up", src)] == 1
    m.update(doc({"pending": 0}, []))  # the table left the channel
    assert ("syncpoint_lag_seconds", tbl) not in values(m)


def test_a_target_unread_before_anything_was_known_exports_no_made_up_values() -> None:
    m = Metrics("shop")
    m.update({"capture": {"src": {"pending": 0}}, "integrate": {"cen": {"error": "down"}}})
    v = values(m)
    assert not any(k[0] == "syncpoint_lag_seconds" for k in v)
    assert v[("syncpoint_location_up", (("channel", "shop"), ("location", "cen")))] == 0
