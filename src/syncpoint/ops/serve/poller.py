"""The status read again and again for ``serve``: the latest document, an hour of backlog and
lag per flow, and the metrics.

A flow is one capture location feeding one integrate location; its backlog is the sum over
its tables and its lag the largest lag of its tables; ``down`` when either end could not be
read. Each read is given the positions of the last one (``ops/status.py``): while the
integrate location is down, backlog and lag are still counted from them on the capture side,
so the plots show them growing through an outage. A failed read keeps the previous document
and says why in ``error`` (the page shows it); it never stops the poller.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from syncpoint.observe.health import Health
from syncpoint.observe.logtext import Repeats
from syncpoint.observe.metrics import Metrics, readable_locations, unreadable
from syncpoint.ops.status import known_positions

log = logging.getLogger("syncpoint.ops.serve")
HISTORY_S = 3600.0


def flows(status: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``"src->cen"``: backlog (sum), lag (max), stopped tables, per flow of the document."""
    out: dict[str, dict[str, Any]] = {}
    down = unreadable(status)
    for integ, st in (status.get("integrate") or {}).items():
        for t in st.get("tables", []):
            f = out.setdefault(
                f"{t['location']}->{integ}",
                {
                    "from": t["location"],
                    "to": integ,
                    "backlog": 0,
                    "lag": 0.0,
                    "stopped": [],
                    "down": t["location"] in down or integ in down,
                },
            )
            f["backlog"] += int(t.get("backlog") or 0)
            f["lag"] = max(f["lag"], float(t.get("lag_seconds") or 0.0))
            if t.get("stopped"):
                f["stopped"].append({"table": t["table"], "reason": t["stopped"]})
    return out


class Poller:
    def __init__(
        self,
        read: Callable[[Any], dict[str, Any]],
        metrics: Metrics,
        every: float = 5.0,
        say: bool = True,
    ) -> None:
        """``read(known)``: the status document, given the positions last read; ``say``:
        log a location that cannot be read (the follower says it from its rounds)."""
        self.say = say
        self.read = read
        self.metrics = metrics
        self.every = every
        self.status: dict[str, Any] | None = None
        self.error: str | None = None
        self.updated_at: float | None = None
        self.polls = 0
        self.known: Any = None
        self.health = Health(every)
        self.repeats = Repeats()
        self.samples: deque[dict[str, Any]] = deque()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="syncpoint-serve", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=30)

    def poll(self) -> None:
        """One status read (the thread calls it; tests may too)."""
        try:
            status = self.read(self.known)
        except Exception as exc:  # noqa: BLE001 - a location down must not stop the page
            self.repeats.warning(log, "status read", str(exc))
            with self.lock:
                self.error = str(exc)
                self.polls += 1
            self.metrics.read_failed(readable_locations(self.status or {}))
            return
        self.repeats.over(log, "status read", "works again")
        if self.say:
            self._say_locations(status)
        self.health.saw(status)
        now = time.time()
        sample = {
            "t": now,
            "flows": {
                k: {"backlog": f["backlog"], "lag": f["lag"], "down": f["down"]}
                for k, f in flows(status).items()
            },
        }
        self.known = {**(self.known or {}), **known_positions(status)}
        with self.lock:
            self.status, self.error, self.updated_at = status, None, now
            self.polls += 1
            self.samples.append(sample)
            while self.samples and self.samples[0]["t"] < now - HISTORY_S:
                self.samples.popleft()
        self.metrics.update(status)

    def _say_locations(self, status: dict[str, Any]) -> None:
        """A line when a location cannot be read (then a count a minute), one when it can."""
        down = unreadable(status)
        for loc in readable_locations(status):
            if loc in down:
                parts = [(status.get(p) or {}).get(loc) for p in ("integrate", "capture")]
                why = next(
                    (x.get("error") or x.get("unreachable") for x in parts if isinstance(x, dict)
                     and (x.get("error") or x.get("unreachable"))),
                    "?",
                )  # fmt: skip
                self.repeats.warning(log, loc, f"cannot be read: {why}")
            else:
                self.repeats.over(log, loc, "reachable again")

    def _loop(self) -> None:
        while not self.stopping.is_set():
            self.poll()
            self.stopping.wait(self.every)

    def health_check(self) -> tuple[int, dict[str, Any]]:
        """``/healthz``: 200 and no reasons, or 503 and why (``observe/health.py``)."""
        reasons = self.health.reasons(self.snapshot())
        return (503 if reasons else 200), {"ok": not reasons, "reasons": reasons}

    def ready_check(self) -> tuple[int, dict[str, Any]]:
        """``/readyz``: 200 once a status has been read (the process works)."""
        ok = self.snapshot()["status"] is not None
        return (200 if ok else 503), {"ok": ok}

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {
                "status": self.status,
                "error": self.error,
                "updated_at": self.updated_at,
                "polls": self.polls,
                "flows": flows(self.status or {}),
            }

    def history(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.samples)
