"""Reading sessions a process keeps open across its ticks (``run --follow``).

A vendor whose log is cheapest to read by one long-lived session (PostgreSQL's streaming
replication: the server decodes each change once, instead of from the slot's restart
position at every tick) keeps it here while a ``kept()`` block runs; outside one, ticks
read the log with short sessions of their own. Sessions are closed when the block ends.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

log = logging.getLogger("syncpoint.kept")


class Session(Protocol):
    broken: bool

    def close(self) -> None: ...


_guard = threading.Lock()
_store: dict[Any, Session] | None = None


@contextmanager
def kept() -> Iterator[None]:
    """Keep reading sessions open until the block ends (nested blocks share the outer's)."""
    global _store
    with _guard:
        outer = _store is not None
        if not outer:
            _store = {}
    try:
        yield
    finally:
        if not outer:
            with _guard:
                store, _store = _store or {}, None
            for s in store.values():
                _close(s)


def active() -> bool:
    return _store is not None


def session(key: Any, make: Callable[[], Session]) -> Session | None:
    """The session kept under ``key`` (made by ``make`` if none, or if the last one broke);
    None outside a ``kept()`` block."""
    with _guard:
        if _store is None:
            return None
        found = _store.get(key)
        if found is not None and not found.broken:
            return found
        if found is not None:
            _store.pop(key, None)
    if found is not None:
        _close(found)
    made = make()
    with _guard:
        if _store is None:  # the block ended meanwhile
            _close(made)
            return None
        _store[key] = made
    return made


def drop(key: Any) -> None:
    """Close and forget the session under ``key`` (after an error, the next tick makes one)."""
    with _guard:
        found = None if _store is None else _store.pop(key, None)
    if found is not None:
        _close(found)


def _close(s: Session) -> None:
    try:
        s.close()
    except Exception as exc:  # closing a broken session: nothing more to do
        log.debug("closing a kept session: %s", exc)
