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
- ``capture_broken``: a watched table's capture is not whole at its capture location (a
  capture trigger dropped or disabled by hand, a replica identity removed: its status is
  ERROR with the reason, or TRIGGER MISSING/DISABLED); its rounds stop where it broke;
- ``queue_growing``: more change records wait in a capture location's queue than
  ``warnings.queue_rows`` (a consumer is stuck, or ``purge`` is not run);
- ``log_retained``: a log-captured location keeps more of its log for us than
  ``warnings.retained_log_bytes``, or our position in it is older than
  ``warnings.retained_log_s`` (runs are not draining it);
- ``log_lost``: the log no longer holds a log-captured location's position.

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
    "capture_broken",
    "queue_growing",
    "log_retained",
    "log_lost",
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
        # a lost log position stops every table with its reason: log_lost says it once
        lost = bool((st.get("log") or {}).get("lost"))
        for t in [] if lost else st.get("tables") or []:
            state = str(t.get("status") or "")
            if state.startswith(("ERROR", "TRIGGER MISSING", "TRIGGER DISABLED")):
                found.append(
                    _w(
                        "capture_broken",
                        loc,
                        t.get("table"),
                        f"{loc}: capture of {t.get('table')}: {state}",
                    )
                )
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
        found += _log(loc, st.get("log") or {}, limits)
    return found


def _log(loc: str, held: dict[str, Any], limits: WarningsConfig) -> list[dict[str, Any]]:
    """Warnings of a log-captured location: the log it keeps for us, a lost position."""
    if held.get("lost"):
        return [_w("log_lost", loc, None, f"{loc}: {held['lost']}")]
    size, age = held.get("retained_bytes"), held.get("age_seconds")
    if size is not None and size > limits.retained_log_bytes:
        msg = (
            f"{loc}: the database keeps {size} bytes of its log for capture (more than "
            f"{limits.retained_log_bytes}): check that runs are running"
        )
        return [_w("log_retained", loc, None, msg, value=size, threshold=limits.retained_log_bytes)]
    if age is not None and age > limits.retained_log_s:
        msg = (
            f"{loc}: capture's position in the log is {age:.0f} s old (more than "
            f"{limits.retained_log_s:g} s): check that runs are running"
        )
        return [_w("log_retained", loc, None, msg, value=age, threshold=limits.retained_log_s)]
    return []


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
