"""One ``run --follow`` per channel and application: the follower lock at every integrate
location, taken at start (a second follower is refused at once, told who holds it) and
read by ``status`` and ``serve`` to show whether a follower is running.
docs/operations.md, "One follower per application", tells the user's side."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from syncpoint.config import ChannelConfig
from syncpoint.errors import FollowerBusy, WorkFailed
from syncpoint.ops.location import Location
from syncpoint.vendors.followerlock import FollowerLock, follower_lock, holder_gone, holder_named


def _locks(cfg: ChannelConfig) -> list[FollowerLock]:
    key = f"{cfg.prefix}|{cfg.channel}|{cfg.application}"
    return [
        follower_lock(integ, Location.of(cfg, integ).url, key)
        for integ in cfg.integrate_locations()
    ]


@contextmanager
def holding(cfg: ChannelConfig) -> Iterator[Callable[[], None]]:
    """Hold the follower lock at every integrate location for the block, or refuse. The
    block gets ``keep()``, to call between passes: a session the server ended (a restart)
    takes its lock again, and if another follower took it meanwhile, ``FollowerBusy``."""
    taken: list[FollowerLock] = []

    def refuse(lock: FollowerLock) -> FollowerBusy:
        who = lock.holder() or "another process (it has just ended: try again)"
        return FollowerBusy(
            f"another follower of channel {cfg.channel!r}, application "
            f"{cfg.application!r} is running: {who} holds it at {lock.location}. "
            "Run one follower per application: stop that one first, or give this "
            "one another application name",
            location=lock.location,
        )

    def keep() -> None:
        for lock in taken:
            if lock.alive() is False:
                raise refuse(lock)

    try:
        for lock in _locks(cfg):
            if not _acquire(lock):
                raise refuse(lock)
            taken.append(lock)
        yield keep
    finally:
        for lock in taken:
            lock.release()


# A holder of this host whose process is gone still holds the lock until its server sees
# the session end (MariaDB only notices after the statement it was running): waited for,
# so a follower started right after a SIGKILLed one is not refused by a dead process.
DEAD_HOLDER_WAIT_S = 20.0
# A holder that names no process (MariaDB's lock connection between two of its naming
# statements, or a SIGKILLed follower's connection the server has not yet closed) is read
# again for this long before the follower is refused: a live one names itself within a
# second.
UNNAMED_HOLDER_WAIT_S = 3.0


def _acquire(lock: FollowerLock) -> bool:
    if lock.acquire():
        return True
    start = time.monotonic()
    while time.monotonic() < start + DEAD_HOLDER_WAIT_S:
        try:
            who = lock.holder()
        except WorkFailed:
            return False
        if who is not None and not holder_gone(who):
            if holder_named(who) or time.monotonic() >= start + UNNAMED_HOLDER_WAIT_S:
                return False
        if lock.acquire():
            return True
        time.sleep(0.25)
    return False


def follower_status(cfg: ChannelConfig) -> dict[str, Any]:
    """Per integrate location: ``running`` and ``holder`` (host and process), or ``error``."""
    out: dict[str, Any] = {}
    for lock in _locks(cfg):
        try:
            who = lock.holder()
        except WorkFailed as exc:
            out[lock.location] = {"error": str(exc)}
            continue
        out[lock.location] = {"running": who is not None, "holder": who}
    return out
