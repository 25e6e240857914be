"""The integrate side of ``status`` (docs/operations.md): per integrate location, capture
location and table, where this channel's application stands.

- ``position``: the last applied tick; ``stream_id`` it belongs to;
- ``sync_point``: the tick the table's sync group was last sampled at (and when);
- ``backlog``: change records in (position, newest tick], i.e. committed, ticked and not
  yet applied (records committed after the newest tick show in the capture side's
  ``pending``); ``lag_seconds``: age of the oldest of them on the capture clock, 0 when
  there is no backlog;
- ``stopped``: why the table's rounds stopped, when they did.

Positions and sync points are only read; no control table is created (a target where no
run has been yet has no positions, a SQLite target file no run has made yet is not created)
and no DDL is polled. Nothing is written anywhere, not even a tick: the backlog counts the
records after the table's position that are committed when the status reads them, ticked
or not yet (``Capture.backlog_query``), so it counts every change committed before the
status was asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from syncpoint.config import ChannelConfig
from syncpoint.core.positions import INITIAL
from syncpoint.core.rounds import target_name
from syncpoint.errors import WorkFailed
from syncpoint.ops.location import Location, close


def _age(oldest: Any) -> float:
    if oldest is None:
        return 0.0
    if isinstance(oldest, str):
        oldest = datetime.fromisoformat(oldest.strip().replace(" ", "T"))
    if oldest.tzinfo is None:
        oldest = oldest.replace(tzinfo=UTC)
    return max(0.0, (datetime.now(UTC) - oldest).total_seconds())


@dataclass(frozen=True)
class Known:
    """A position read earlier (``serve`` and the metrics remember them across reads)."""

    context: int
    stream_id: str
    # when the group's last round sampled its sync point: shown through an outage
    sampled_at: Any = None


def known_positions(status: dict[str, Any]) -> dict[str, dict[tuple[str, str], Known]]:
    """The positions of a status document, per integrate location, to pass to the next
    read as ``known``."""
    out: dict[str, dict[tuple[str, str], Known]] = {}
    for integ, st in (status.get("integrate") or {}).items():
        for t in (st or {}).get("tables", []):
            if t.get("position") is not None and t.get("stream_id"):
                out.setdefault(integ, {})[(t["location"], t["table"])] = Known(
                    int(t["position"]), str(t["stream_id"]), t.get("sync_point_sampled_at")
                )
    return out


def integrate_status(
    cfg: ChannelConfig, known: dict[str, dict[tuple[str, str], Known]] | None = None
) -> dict[str, Any]:
    """``known``: positions read before; an integrate location that cannot be read is then
    still reported table by table (``unreachable`` says why), its backlog and lag counted
    from those positions on the capture side, so that they grow during the outage."""
    app = cfg.application
    group_of = {str(t.ref): g for g, ts in cfg.groups().items() for t in ts}
    out: dict[str, Any] = {}
    sources: dict[str, Any] = {}
    for integ in cfg.integrate_locations():
        place = Location.of(cfg, integ)
        target = place.integrate_side
        entry: dict[str, Any] = {"application": app, "tables": []}
        stored: dict[Any, Any] = {}
        sps: dict[Any, Any] = {}
        stops: dict[Any, Any] = {}
        try:
            # status must not make a database file no run has made yet
            conn = None if place.file_not_made else target.connect()
        except WorkFailed as exc:
            if not (known or {}).get(integ):
                out[integ] = {"error": str(exc)}
                continue
            conn, entry["unreachable"], stored = None, str(exc), dict(known[integ])  # type: ignore[index]
        try:
            if conn is not None and target.has_control_tables(conn):
                stored = {(p.location, p.table): p for a, p in target.positions(conn) if a == app}
                sps = target.sync_points(conn, app)
                stops = {(s["location"], s["table"]): s for s in target.stops(conn, app)}
        finally:
            close(conn)
        for loc in cfg.sources_of(integ):
            cloc = cfg.locations[loc]
            src = sources.get(loc) or _source(Location.of(cfg, loc))
            sources[loc] = src
            at = cfg.tables_at(loc)
            backlogs = _backlogs(src, [(t.ref, stored.get((loc, str(t.ref)))) for t in at])
            for t, backlog in zip(at, backlogs, strict=True):
                name = str(t.ref)
                p = stored.get((loc, name))
                sp = sps.get((loc, group_of.get(name, name)))
                row: dict[str, Any] = {
                    "location": loc,
                    "table": name,
                    "target": str(target.resolve(*target_name(t, loc), cloc.vendor)),
                    "group": group_of.get(name, name),
                    "position": p.context if p else None,
                    "stream_id": p.stream_id if p else None,
                    "sync_point": sp.context if sp else None,
                    "sync_point_sampled_at": sp.sampled_at if sp else _sampled(p),
                    "stopped": stops[(loc, name)]["reason"] if (loc, name) in stops else None,
                }
                row.update(backlog)
                entry["tables"].append(row)
        _held(entry["tables"])
        out[integ] = entry
    for s in sources.values():
        close(s.get("conn"))
    return out


def _sampled(p: Any) -> Any:
    """A position read earlier (the target is down): when its round was, as then read."""
    return getattr(p, "sampled_at", None)


def _held(rows: list[dict[str, Any]]) -> None:
    """The other tables of a stopped table's sync group wait for it (a group's tables reach
    their sync points together): ``held`` says so, where their lag grows."""
    stopped: dict[tuple[str, str], str] = {}
    for r in rows:
        if r["stopped"]:
            stopped.setdefault((r["location"], r["group"]), r["table"])
    for r in rows:
        which = stopped.get((r["location"], r["group"]))
        if which and not r["stopped"]:
            r["held"] = f"its sync group {r['group']} waits for stopped {which}"


def _source(place: Location) -> dict[str, Any]:
    cap = place.capture_side
    try:
        conn = cap.connect()
        st = cap.status(conn)
        conn.rollback()
        return {
            "cap": cap,
            "conn": conn,
            "newest": st.context,
            "stream_id": st.stream_id,
            "installed": st.installed,
            # log capture: changes still in the log, not in the queue (none read them yet)
            "unread": (st.log or {}).get("unread_oldest") or {},
        }
    except WorkFailed as exc:
        return {"error": str(exc), "conn": None}


def _backlogs(src: dict[str, Any], tables: list[tuple[Any, Any]]) -> list[dict[str, Any]]:
    """The backlog of each (table, stored position or None) of one capture location, by
    one query for all the tables at the same position (all of a sync group's, mostly), not
    one a table."""
    out: list[dict[str, Any]] = [{} for _ in tables]
    same: dict[int, list[int]] = {}
    for i, (_ref, p) in enumerate(tables):
        if src.get("error"):
            out[i] = {"backlog": None, "lag_seconds": None, "error": src["error"]}
        elif not src["installed"] or src["newest"] is None:
            out[i] = {"backlog": None, "lag_seconds": None, "error": "capture not installed"}
        elif p is not None and p.stream_id != src["stream_id"]:
            out[i] = {
                "backlog": None,
                "lag_seconds": None,
                "error": f"stream changed ({p.stream_id} -> {src['stream_id']}): "
                "capture was reinstalled or the database replaced",
            }
        else:
            same.setdefault(p.context if p else INITIAL, []).append(i)
    for after, members in same.items():
        newest = int(src["newest"])
        refs = [tables[i][0] for i in members]
        try:
            found = src["cap"].backlog_survey(src["conn"], refs, after)
            if found is None:  # counted up to the newest tick
                found = src["cap"].survey(src["conn"], refs, after, newest)
        except WorkFailed as exc:
            for i in members:
                out[i] = {"backlog": None, "lag_seconds": None, "error": str(exc)}
            continue
        for i, ref in zip(members, refs, strict=True):
            stats = found.get(str(ref))
            n = stats.records if stats else 0
            lag = _age(stats.oldest) if stats else 0.0
            # older still: waiting in the log, unread (named as the config or the queue does)
            unread = src["unread"].get(str(ref)) or src["unread"].get(
                ".".join(src["cap"].queue_name(ref))
            )
            if unread is not None:
                lag = max(lag, _age(unread))
            out[i] = {"backlog": n, "lag_seconds": lag, "newest": newest}
    return out
