"""Stream positions and sync points: what is stored at an integrate location, and the rules
that keep them honest.

A position (``{p}stream_positions``) is the last applied tick per capture location and
table, moved only by a round's apply transaction with a compare-and-set; a sync point
(``{p}sync_points``) is the tick a round runs up to, stored before anything is read so a
replay keeps its bounds. Each carries the capture's ``stream_id``: a reinstalled or restored
capture is detected (``check_stream``). Details: docs/internals.md, "Positions and sync
points".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from syncpoint.errors import StreamIdentityError

INITIAL = 0  # the position of an application that has applied nothing yet


@dataclass(frozen=True)
class Position:
    location: str
    table: str
    context: int
    stream_id: str


@dataclass(frozen=True)
class SyncPoint:
    location: str
    sync_name: str
    context: int
    stream_id: str
    sampled_at: datetime | None = None
    guaranteed_at: datetime | None = None


def check_stream(
    location: str,
    application: str,
    integrate: str,
    stored: Iterable[Position],
    stream_id: str,
    current_context: int,
) -> None:
    """Raise ``StreamIdentityError`` when a stored position belongs to another stream, or
    lies beyond the capture's newest tick (the stream went back: restored database)."""
    for p in stored:
        if p.stream_id != stream_id:
            raise StreamIdentityError(
                f"the capture stream changed (stored {p.stream_id}, now {stream_id}): capture "
                f"was reinstalled or the database replaced. Positions of application "
                f"{application} at {integrate} belong to the old stream; reload the tables "
                f"(snapshot) and delete their rows in stream_positions to start again",
                location=location,
                table=p.table,
            )
        if p.context > current_context:
            raise StreamIdentityError(
                f"the stream went back: position {p.context} of application {application} "
                f"at {integrate} is beyond the newest tick {current_context} (restored from "
                "an older backup?). Nothing was applied; reload the tables (snapshot) and "
                "delete their rows in stream_positions to start again",
                location=location,
                table=p.table,
            )


def pending(sync_point: SyncPoint | None, positions: Mapping[str, int], stream_id: str) -> bool:
    """True when a stored sync point is of this stream and some table has not reached it:
    a round was begun and must be finished with the same bounds."""
    if sync_point is None or sync_point.stream_id != stream_id:
        return False
    return any(ctx < sync_point.context for ctx in positions.values())


def purge_bound(
    location: str,
    stream_id: str,
    tables: Iterable[str],
    stored: Iterable[tuple[str, Position]],
    required: Iterable[str] = (),
) -> int | None:
    """The highest tick every registered consumer has applied for every table of
    ``location``. ``stored``: (consumer, position) pairs read from every integrate location,
    a consumer being ``"<integrate location>/<application>"``; ``required``: consumers that
    count even before their first round (this channel's application at each of its
    integrate locations). None when nothing may be purged: no consumer, or one that has not
    applied some table at all. A position of another stream stops the purge."""
    per: dict[str, dict[str, int]] = {c: {} for c in required}
    for consumer, p in stored:
        if p.location != location:
            continue
        if p.stream_id != stream_id:
            raise StreamIdentityError(
                f"consumer {consumer} holds a position of another stream ({p.stream_id}, now "
                f"{stream_id}); purge would delete records it has not applied. Resolve the "
                "stream change first",
                location=location,
                table=p.table,
            )
        per.setdefault(consumer, {})[p.table] = p.context
    if not per:
        return None
    bound: int | None = None
    wanted = list(tables)
    for positions in per.values():
        for t in wanted:
            if t not in positions:
                return None
            bound = positions[t] if bound is None else min(bound, positions[t])
    return bound
