"""What ``/healthz`` answers (``serve`` and ``run --follow --metrics-port``): 200 when all is
well, 503 with the reasons when it is not, so that a load balancer, a Kubernetes probe or a
plain ``curl -f`` sees an outage.

Reasons, from the latest status read and what the process saw itself:

- no status read yet, the last read failed, or none for much longer than the interval;
- a location cannot be read (the error says why);
- a table's rounds are stopped;
- a follower (``run --follow``) this process saw running holds its lock no more;
- in the follower: a group's latest round failed (its error).

``/readyz`` answers 200 as soon as a status has been read, whatever it says: the process
itself works (a probe that restarts the process uses this one).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from syncpoint.observe.metrics import unreadable


class Health:
    def __init__(self, every: float) -> None:
        self.every = every
        self.lock = threading.Lock()
        self.followed: set[str] = set()  # integrate locations where a follower was seen
        self.gone: dict[str, str] = {}
        self.failing: dict[tuple[str, str], str] = {}

    def saw(self, status: dict[str, Any]) -> None:
        """A status read: which followers run (one seen before and gone now is a reason)."""
        with self.lock:
            for integ, f in (status.get("followers") or {}).items():
                if not isinstance(f, dict) or "running" not in f:
                    continue
                if f["running"]:
                    self.followed.add(integ)
                    self.gone.pop(integ, None)
                elif integ in self.followed:
                    self.gone[integ] = (
                        f"{integ}: the follower (run --follow) that was running has stopped"
                    )

    def round_ok(self, integrate: str, group: str) -> None:
        with self.lock:
            self.failing.pop((integrate, group), None)

    def round_failed(self, integrate: str, group: str, error: str) -> None:
        with self.lock:
            self.failing[(integrate, group)] = error

    def reasons(self, snap: dict[str, Any]) -> list[str]:
        """Why the channel is not healthy (none: it is), from a ``Poller.snapshot()``."""
        out: list[str] = []
        status = snap.get("status")
        if snap.get("error"):
            out.append(f"status read failed: {snap['error']}")
        elif status is None:
            out.append("no status read yet")
        at = snap.get("updated_at")
        if at is not None and time.time() - at > 3 * self.every + 30:
            out.append(f"status last read {time.time() - at:.0f} s ago")
        out += _status_reasons(status or {})
        with self.lock:
            out += list(self.gone.values())
            out += [f"{i}: group {g}: rounds failing: {e}" for (i, g), e in self.failing.items()]
        return out


def _status_reasons(status: dict[str, Any]) -> list[str]:
    out: list[str] = []
    said: set[str] = set()
    down = unreadable(status)
    for part in ("capture", "integrate", "followers", "gates", "receive_stamps", "snapshots"):
        for loc, st in (status.get(part) or {}).items():
            if not isinstance(st, dict) or loc in said:
                continue
            why = st.get("error") or st.get("unreachable")
            if why or loc in down and part in ("capture", "integrate"):
                said.add(loc)
                out.append(f"{loc} unreachable: {why}")
    for integ, st in (status.get("integrate") or {}).items():
        for t in (st or {}).get("tables", []):
            if t.get("stopped"):
                out.append(f"{integ}: {t['table']} from {t['location']} stopped: {t['stopped']}")
    return out
