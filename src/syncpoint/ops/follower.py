"""One ``run --follow`` per channel and application: the follower lock at every integrate
location, taken at start (a second follower is refused at once, told who holds it) and
read by ``status`` and ``serve`` to show whether a follower is running.
docs/operations.md, "One follower per application", tells the user's side."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from syncpoint.config import ChannelConfig
from syncpoint.errors import FollowerBusy, WorkFailed
from syncpoint.ops.location import Location
from syncpoint.vendors.followerlock import FollowerLock, follower_lock


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
            if not lock.acquire():
                raise refuse(lock)
            taken.append(lock)
        yield keep
    finally:
        for lock in taken:
            lock.release()


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
