"""Stream positions and sync points: what is stored at an integrate location, and the rules
that keep them honest.

Stored at each integrate location (SPEC §5), per application:

- ``{p}stream_positions(application_name, location, table_name, context, stream_id,
  updated_at)``: the last applied tick per capture location and table. Written only by the
  apply transaction of a round, together with the rows, with a *compare-and-set* on the
  position the round started from: ``UPDATE ... WHERE context = <start> AND stream_id =
  <stream>`` must touch exactly one row; the first round of a table INSERTs, and a
  duplicate key means another consumer got there first. Either way the round rolls back
  (``PositionConflict``): a second ``run`` of the same application never applies twice.
- ``{p}sync_points(application_name, location, sync_name, context, stream_id, sampled_at,
  guaranteed_at)``: per capture location and sync group, the tick a round runs up to.
  Stored (committed) *before* the round reads anything, so a round that crashed is replayed
  with the same bounds instead of recomputed ones; a sync point that every table of the
  group has reached is done, and the next round samples a new one.

Stream identity: each position carries the ``stream_id`` of the capture it came from (the
location and when its capture was installed: a new random id at each fresh install). A
reinstalled capture has a new id and restarts its ticks, a restored database may have the
old id but fewer ticks; both are detected here (``check_stream``) and stop the run with a
message instead of skipping or replaying changes.

A position never moves past unapplied records: it is the upper tick of the window the
round applied, written in the transaction that applied that window.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from syncpoint.errors import StreamIdentityError


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
