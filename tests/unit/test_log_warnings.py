"""status warnings of log-captured locations: the log kept for capture over its thresholds
(bytes, age of the position), and a position the log no longer holds."""

from __future__ import annotations

from syncpoint.config import WarningsConfig
from syncpoint.observe.warnings import KINDS, status_warnings


def _doc(log: dict[str, object]) -> dict[str, object]:
    return {"capture": {"src": {"installed": True, "pending": 0, "log": log}}}


def test_retained_log_over_the_thresholds_warns() -> None:
    limits = WarningsConfig(retained_log_bytes=1000, retained_log_s=60)
    assert status_warnings(_doc({"retained_bytes": 999, "age_seconds": 59}), limits) == []
    (w,) = status_warnings(_doc({"retained_bytes": 1001, "age_seconds": 1}), limits)
    assert (w["kind"], w["value"], w["threshold"]) == ("log_retained", 1001, 1000)
    (w,) = status_warnings(_doc({"retained_bytes": 10, "age_seconds": 61.0}), limits)
    assert (w["kind"], w["threshold"]) == ("log_retained", 60)
    assert "run" in w["message"]


def test_a_lost_position_warns_with_the_way_back() -> None:
    (w,) = status_warnings(
        _doc({"retained_bytes": 5, "lost": "purged: run syncpoint snapshot"}), WarningsConfig()
    )
    assert w["kind"] == "log_lost" and "snapshot" in w["message"]
    assert {"log_retained", "log_lost"} <= set(KINDS)


def test_a_log_location_status_document_is_valid() -> None:
    import json
    from pathlib import Path

    import jsonschema

    import syncpoint

    schema = json.loads(
        (Path(syncpoint.__file__).parent / "observe" / "status.schema.json").read_text("utf-8")
    )
    held = {"retained_bytes": 2048, "age_seconds": 90000.0, "lost": None, "gtid": "0-1-5"}
    doc: dict[str, object] = {
        "channel": "c",
        "capture": {
            "src": {"installed": True, "stream_id": "s", "context": 3, "pending": 0,
                    "tables": [], "log": held}  # fmt: skip
        },
        "gates": {},
    }
    doc["warnings"] = status_warnings(doc, WarningsConfig())
    assert [w["kind"] for w in doc["warnings"]] == ["log_retained"]  # type: ignore[index]
    jsonschema.validate(doc, schema)
