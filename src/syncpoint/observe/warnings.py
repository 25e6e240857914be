"""The warnings of ``status`` (and of the ``serve`` page): what an operator must look at.

Each warning is a dict with a stable ``kind``, the ``location`` (and ``subject``: a table or
gate) it is about, a ``message`` that says what to do, and the measured ``value`` against the
``threshold`` of the channel's ``warnings:`` settings. The kinds:

- ``unreachable``: a location could not be read (its part of the status has an error);
- ``not_integrated``: a capture location has no receive stamp at an integrate location yet,
  or its stamp is older than ``warnings.not_integrated_s``;
- ``gate_stuck``: a gate has stayed in a Loading state longer than
  ``warnings.gate_loading_s`` (a failed or hung producer or consumer turn);
- ``table_stopped``: a table's rounds are stopped (the reason is in the message);
- ``queue_growing``: more change records wait in a capture location's queue than
  ``warnings.queue_rows`` (a consumer is stuck, or ``purge`` is not run);
- ``log_retained``: a log capture location holds more log back than
  ``warnings.log_retained_bytes`` (runs stopped: the server's disk fills), or lost it.

Only the status document is read: computing warnings touches no database.
"""

from __future__ import annotations

from typing import Any

from syncpoint.config import WarningsConfig

KINDS = (
    "unreachable",
    "not_integrated",
    "gate_stuck",
    "table_stopped",
    "queue_growing",
    "log_retained",
)


def _w(kind: str, location: str, subject: str | None, message: str, **kw: Any) -> dict[str, Any]:
    return {
        "kind": kind,
        "location": location,
        "subject": subject,
        "message": message,
        "value": kw.get("value"),
        "threshold": kw.get("threshold"),
    }


def status_warnings(data: dict[str, Any], limits: WarningsConfig) -> list[dict[str, Any]]:
    """Every warning the status document ``data`` calls for, in a stable order."""
    found: list[dict[str, Any]] = []
    found += _capture(data.get("capture") or {}, limits)
    found += _integrate(data.get("integrate") or {})
    found += _stamps(data.get("receive_stamps") or {}, data.get("integrate") or {}, limits)
    found += _gates(data.get("gates") or {}, limits)
    for section in ("conflicts", "snapshots"):  # sections other parts of status add
        for loc, st in (data.get(section) or {}).items():
            if isinstance(st, dict) and "error" in st:
                found.append(_w("unreachable", loc, None, f"{loc}: {section}: {st['error']}"))
    return _one_unreachable_per_location(found)


def _one_unreachable_per_location(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A location that cannot be read fails every part of the status for the same reason:
    the operator needs that said once."""
    seen: set[str] = set()
    out = []
    for w in found:
        if w["kind"] == "unreachable":
            if w["location"] in seen:
                continue
            seen.add(w["location"])
        out.append(w)
    return out


def _capture(capture: dict[str, Any], limits: WarningsConfig) -> list[dict[str, Any]]:
    found = []
    for loc, st in capture.items():
        if "error" in st:
            found.append(_w("unreachable", loc, None, f"{loc}: cannot be read: {st['error']}"))
            continue
        n = int(st.get("pending") or 0)
        if n > limits.queue_rows:
            found.append(
                _w(
                    "queue_growing",
                    loc,
                    None,
                    f"{loc}: {n} change records wait in the queue (more than "
                    f"{limits.queue_rows}): check that every application's rounds run, "
                    "then run purge",
                    value=n,
                    threshold=limits.queue_rows,
                )
            )
        found += _log(loc, st.get("log"), limits)
    return found


def _log(loc: str, log: dict[str, Any] | None, limits: WarningsConfig) -> list[dict[str, Any]]:
    if not log:
        return []
    if log.get("lost"):
        return [_w("log_retained", loc, None, f"{loc}: {log['lost']}")]
    held = int(log.get("retained_bytes") or 0)
    if held <= limits.log_retained_bytes:
        return []
    return [
        _w(
            "log_retained",
            loc,
            None,
            f"{loc}: log capture holds {held} bytes of log back (more than "
            f"{limits.log_retained_bytes}), the slot last moved "
            f"{float(log.get('age_seconds') or 0):.0f} s ago: check that run is running; "
            "the server keeps this log on its disk until it is read",
            value=held,
            threshold=limits.log_retained_bytes,
        )
    ]


def _integrate(integrate: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for integ, st in integrate.items():
        if "error" in st:
            found.append(_w("unreachable", integ, None, f"{integ}: cannot be read: {st['error']}"))
            continue
        for t in st.get("tables", []):
            if t.get("stopped"):
                found.append(
                    _w(
                        "table_stopped",
                        integ,
                        t["table"],
                        f"{integ}: {t['table']} from {t['location']}: rounds stopped: "
                        f"{t['stopped']}",
                    )
                )
    return found


def _stamps(
    stamps: dict[str, Any], integrate: dict[str, Any], limits: WarningsConfig
) -> list[dict[str, Any]]:
    found = []
    for integ, st in stamps.items():
        if st is None:  # no run has completed here: every source of its tables is waiting
            sources = {t["location"] for t in integrate.get(integ, {}).get("tables", [])}
            st = {"locations": {loc: {"age_seconds": None} for loc in sorted(sources)}}
        if "error" in st:
            found.append(_w("unreachable", integ, None, f"{integ}: receive stamps: {st['error']}"))
            continue
        for loc, s in st.get("locations", {}).items():
            age = s.get("age_seconds")
            if age is None:
                msg = f"{integ}: {loc} is not integrated yet (no receive stamp): run rounds"
            elif age > limits.not_integrated_s:
                msg = (
                    f"{integ}: {loc} integrated only up to {age:.0f} s ago (more than "
                    f"{limits.not_integrated_s:g} s): check that run is running and that "
                    f"no table from {loc} is stopped"
                )
            else:
                continue
            found.append(
                _w("not_integrated", integ, loc, msg, value=age, threshold=limits.not_integrated_s)
            )
    return found


def _gates(gates: dict[str, Any], limits: WarningsConfig) -> list[dict[str, Any]]:
    found = []
    for loc, gs in gates.items():
        if isinstance(gs, dict) and "error" in gs:
            found.append(_w("unreachable", loc, None, f"{loc}: gates: {gs['error']}"))
            continue
        for g in gs:
            age = g.get("age_s")
            if str(g["state"]).endswith("Loading") and age is not None:
                if age > limits.gate_loading_s:
                    found.append(
                        _w(
                            "gate_stuck",
                            loc,
                            g["gate"],
                            f"{loc}: gate {g['gate']} has been {g['state']} for {age:.0f} s "
                            f"(more than {limits.gate_loading_s:g} s): if its holder "
                            "failed, run `syncpoint gate reset` after checking the data",
                            value=age,
                            threshold=limits.gate_loading_s,
                        )
                    )
    return found
