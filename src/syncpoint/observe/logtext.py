"""The log lines of the long-running commands (``run --follow``, ``serve``): each starts
with its time (ISO-8601 with the zone), and a warning that repeats (a location down fails
every poll) is printed once, then summarised with a count once a minute, then closed by a
line when the trouble is over ("... back"), instead of one line a second.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

SUMMARY_S = 60.0
FORMAT = "%(asctime)s %(levelname)s %(message)s"


def now_text() -> str:
    """The time a line starts with: local, to the second, with the zone's offset."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


class TimeFormatter(logging.Formatter):
    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 - logging's name
        return datetime.fromtimestamp(record.created).astimezone().isoformat(timespec="seconds")


def timed_logging() -> None:
    """Log lines with their time on stderr; warnings and up, and the "back" lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(TimeFormatter(FORMAT))
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("syncpoint.back").setLevel(logging.INFO)


def uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's own lines (its errors) with the same time stamps."""
    fmt = {"()": f"{__name__}.TimeFormatter", "fmt": FORMAT}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"timed": fmt},
        "handlers": {
            "err": {
                "class": "logging.StreamHandler",
                "formatter": "timed",
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            "uvicorn": {"handlers": ["err"], "level": "WARNING", "propagate": False},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }


back = logging.getLogger("syncpoint.back")


@dataclass
class _Trouble:
    first: float
    summarised: float
    count: int
    unsaid: int
    latest: str


class Repeats:
    """Warnings under a key (``"cen/group g"``): the first printed, the repeats counted."""

    def __init__(self, every: float = SUMMARY_S) -> None:
        self.every = every
        self.lock = threading.Lock()
        self.open: dict[str, _Trouble] = {}

    def warning(self, logger: logging.Logger, key: str, text: str) -> None:
        now = time.monotonic()
        with self.lock:
            t = self.open.get(key)
            if t is None:
                self.open[key] = _Trouble(now, now, 1, 0, text)
                logger.warning("%s: %s (repeats are counted: one line a minute)", key, text)
                return
            t.count += 1
            t.unsaid += 1
            t.latest = text
            if now - t.summarised < self.every:
                return
            n, t.unsaid, t.summarised = t.unsaid, 0, now
        logger.warning(
            "%s: still failing, %d times more in the last %.0f s (%d in all, for %.0f s): %s",
            key, n, self.every, t.count, now - t.first, text,
        )  # fmt: skip

    def over(self, logger: logging.Logger, key: str, what: str = "back") -> None:
        """The trouble under ``key`` is over: one line saying so, if there was any."""
        with self.lock:
            t = self.open.pop(key, None)
        if t is not None:
            back.info(
                "%s: %s after %d failures over %.0f s (last: %s)",
                key, what, t.count, time.monotonic() - t.first, t.latest,
            )  # fmt: skip

    def failing(self, key: str) -> bool:
        with self.lock:
            return key in self.open


said = Repeats()
