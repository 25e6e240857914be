"""Receive stamps (docs/guarantees.md §4, docs/objects.md): up to when each capture location
is integrated.

For one integrate location, each capture location has a *stamp*: a time on that location's
clock before which every captured change is applied here. A run may move a location's stamp
to the ``guaranteed`` time of the tick it sampled as sync point, and only when every table of
that location reached that sync point at this integrate location in the run. Stamps never move
back. The *leader* is the location with the latest stamp (its changes arrived most recently),
the *trailer* the one with the oldest; a location with no stamp yet is the trailer, with no
time, because nothing of it is guaranteed.

``SYNCPOINT_FAKE_CLOCK`` (a JSON object of location name to ISO time) replaces a location's
sampling clock, for tests that replay situations spread over hours or days. A fake clock has
no mapping for the start times of the transactions still open at sampling, so a tick that
raced with capture (``Tick.raced``) does not move a faked stamp at all: the conservative
reading of "it did not catch its bus".
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime

from syncpoint.core.model import Tick

FAKE_CLOCK_ENV = "SYNCPOINT_FAKE_CLOCK"


@dataclass(frozen=True)
class Stamp:
    location: str
    cap_begin: datetime | None

    @property
    def cap_begin_int(self) -> int | None:
        return epoch_seconds(self.cap_begin) if self.cap_begin else None


@dataclass(frozen=True)
class ReceiveStamps:
    leader: Stamp | None
    trailer: Stamp | None
    locations: dict[str, Stamp]

    def to_dict(self) -> dict[str, object]:
        def one(s: Stamp | None) -> dict[str, object] | None:
            if s is None:
                return None
            return {
                "location": s.location,
                "cap_begin": s.cap_begin,
                "cap_begin_int": s.cap_begin_int,
            }

        return {
            "leader": one(self.leader),
            "trailer": one(self.trailer),
            "locations": {k: one(v) for k, v in sorted(self.locations.items())},
        }


def utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def epoch_seconds(dt: datetime) -> int:
    """Whole seconds since 1970-01-01 UTC, rounded down (a guarantee must not round up)."""
    delta = utc(dt) - datetime(1970, 1, 1, tzinfo=UTC)
    return delta.days * 86400 + delta.seconds


def _fake_clock() -> dict[str, datetime]:
    raw = os.environ.get(FAKE_CLOCK_ENV)
    if not raw:
        return {}
    return {k: utc(datetime.fromisoformat(v)) for k, v in json.loads(raw).items()}


def candidate(location: str, tick: Tick) -> datetime | None:
    """The time a run that reached ``tick`` everywhere may stamp for ``location``."""
    fake = _fake_clock().get(location)
    if fake is not None:
        return None if tick.raced else fake
    return utc(tick.guaranteed)


def advance(
    previous: dict[str, datetime | None], candidates: dict[str, datetime | None]
) -> dict[str, datetime | None]:
    """New stamps: a candidate moves its location forward only; None keeps the old one."""
    out = dict(previous)
    for loc, new in candidates.items():
        old = out.get(loc)
        if new is not None and (old is None or utc(new) > utc(old)):
            out[loc] = utc(new)
        else:
            out.setdefault(loc, old)
    return out


def leader_trailer(stamps: dict[str, datetime | None]) -> ReceiveStamps:
    """Leader: latest stamp; trailer: oldest, a location without a stamp first. Ties go to
    the location name so every reader computes the same answer."""
    locs = {k: Stamp(k, utc(v) if v else None) for k, v in stamps.items()}
    if not locs:
        return ReceiveStamps(None, None, {})
    floor = datetime.min.replace(tzinfo=UTC)
    stamped = [s for s in locs.values() if s.cap_begin is not None]
    leader = max(stamped, key=lambda s: (s.cap_begin, s.location)) if stamped else None
    trailer = min(locs.values(), key=lambda s: (s.cap_begin or floor, s.location))
    return ReceiveStamps(leader, trailer, locs)
