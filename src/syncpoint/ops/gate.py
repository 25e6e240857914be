"""Gates (docs/objects.md "Gate states", docs/guarantees.md §6): a producer and a consumer of
transport tables take turns, across hosts.

Python API, for Airflow or Dagster tasks and for ``syncpoint gate``::

    import syncpoint

    with syncpoint.gate("postgresql://etl@dw/warehouse", "nightly", role="producer",
                        wait=600, purge_tables=["tr.orders"]) as turn:
        load_transport_tables()      # the long work, outside any database lock

A turn locks the gate's row, decides (``core.gate.decide``), purges the transport tables
when the producer finds them loaded, sets the role's Loading state and commits, which
releases the lock. The body runs without a lock. When it ends normally the role's Loaded
state is written; when it raises (or the process dies), the Loading state stays, and the
next run of that role is refused (``GateRefused``, exit 3) until ``Gate.reset``.

``wait`` is how long to retry while the other side holds the gate (or there is nothing to
load): then ``GateBusy`` (exit 3). The row lock itself is held only for the short decide
step; waiting for it is bounded by ``lock_timeout`` per attempt. Serialization failures,
deadlocks and lost connections before the commit are retried, never taken for "busy".
"""

from __future__ import annotations

import os
import random
import shlex
import socket
import sys
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from syncpoint import failpoints, vendors
from syncpoint.config import ChannelConfig, redact_url
from syncpoint.core.gate import (
    LOADED,
    OTHER,
    Action,
    Decision,
    GateRow,
    Holder,
    Role,
    State,
    backoff,
    decide,
    parse_role,
    parse_state,
)
from syncpoint.core.gate import release as released_state
from syncpoint.errors import (
    GateBusy,
    GateRefused,
    LocationError,
    RowLockTimeout,
    SyncpointError,
    TransientError,
    UsageError,
)
from syncpoint.ops.location import Location
from syncpoint.vendors.gatestore import GateStore

__all__ = ["Gate", "GateStatus", "Turn", "gate", "gate_states"]

MAX_TRANSIENT = 10  # retries of one step after lost connections, deadlocks, lock timeouts


@dataclass(frozen=True)
class GateStatus:
    """A gate as ``gate status`` shows it: state, age (database clock) and holder."""

    location: str
    row: GateRow

    def to_dict(self) -> dict[str, Any]:
        r = self.row
        return {
            "gate": r.name,
            "location": self.location,
            "state": str(r.state),
            "changed_at": r.changed_at.isoformat() if r.changed_at else None,
            "age_s": round(r.age_s, 3) if r.age_s is not None else None,
            "holder": {"host": r.host, "pid": r.pid, "command": r.command},
            "turns": r.turns,
        }


@dataclass
class Turn:
    """A taken gate: what was found, what was purged, who holds it."""

    gate: str
    location: str
    role: Role
    found: State
    state: State
    holder: Holder
    purged: dict[str, int] = field(default_factory=dict)
    waited_s: float = 0.0
    transient_retries: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "gate": self.gate,
            "location": self.location,
            "role": str(self.role),
            "found": str(self.found),
            "state": str(self.state),
            "purged": self.purged,
            "waited_s": round(self.waited_s, 3),
            "holder": {"host": self.holder.host, "pid": self.holder.pid},
        }


def default_command() -> str:
    return shlex.join(sys.argv) if sys.argv and sys.argv[0] else f"python (pid {os.getpid()})"


class Gate:
    """One gate (a row of ``{prefix}load_state``) at the database ``url``."""

    def __init__(
        self,
        url: str,
        name: str,
        *,
        prefix: str = "repl_",
        location: str | None = None,
        lock_timeout: float = 30.0,
        poll_max: float = 0.5,
    ):
        if not name or len(name) > 100:
            raise UsageError(f"a gate name is 1 to 100 characters, not {name!r}")
        self.url = url
        self.name = name
        self.prefix = prefix
        self.location = location
        self.label = location or redact_url(url)
        self.lock_timeout = lock_timeout
        self.poll_max = poll_max

    # -- stores -------------------------------------------------------------------------
    def _store(self) -> GateStore:
        store: GateStore = vendors.of_url(self.url).GateStore(self.url, self.prefix, self.location)
        store.connect()
        return store

    @contextmanager
    def _connected(self) -> Iterator[GateStore]:
        store = self._store()
        try:
            yield store
        finally:
            store.close()

    def _holder(self, command: str | None) -> Holder:
        cmd = command if command is not None else default_command()
        return Holder(socket.gethostname(), os.getpid(), cmd, uuid.uuid4().hex)

    # -- reading ------------------------------------------------------------------------
    def status(self) -> GateStatus | None:
        """The gate's row, or None when it does not exist yet."""
        with self._connected() as store:
            row = store.read(self.name)
        return GateStatus(self.label, row) if row else None

    def statuses(self) -> list[GateStatus]:
        """Every gate of this prefix at the location (name order)."""
        with self._connected() as store:
            return [GateStatus(self.label, r) for r in store.read_all()]

    # -- a turn -------------------------------------------------------------------------
    def take(
        self,
        role: Role | str,
        *,
        wait: float = 0.0,
        purge_tables: Iterable[str] = (),
        command: str | None = None,
    ) -> Turn:
        """Take the gate for ``role`` (see the module docstring); raises ``GateRefused`` or
        ``GateBusy`` (exit 3) when the gate's table (docs/objects.md) says not now."""
        r = parse_role(role) if isinstance(role, str) else role
        purge = list(purge_tables)
        holder = self._holder(command)
        start = time.monotonic()
        deadline = start + max(0.0, wait)
        attempt = transient = created = 0
        store: GateStore | None = None
        tried: Decision | None = None
        try:
            while True:
                try:
                    if store is None:
                        store = self._store()
                    row = store.lock(self.name, self.lock_timeout)
                    if row is None:
                        created += 1
                        if created > MAX_TRANSIENT:
                            raise LocationError(
                                f"gate {self.name!r}: its row disappears as soon as it is made; "
                                f"is something deleting from {self.prefix}load_state?",
                                location=self.label,
                            )
                        store.ensure(self.name, holder)
                        continue
                    if tried is not None and row.token == holder.token:
                        # An earlier commit of this take went through after all.
                        store.rollback()
                        return self._turn(tried, holder, {}, start, transient)
                    d = decide(r, row.state)
                    if d.action is Action.TAKE:
                        tried = d
                        return self._commit_take(store, d, holder, purge, start, transient)
                    store.rollback()
                except RowLockTimeout as exc:
                    if time.monotonic() >= deadline:
                        raise GateBusy(
                            f"gate {self.name!r}: gave up after {time.monotonic() - start:.1f} s: "
                            f"{exc.message}; a process holding it may be stopped or stuck",
                            location=self.label,
                        ) from exc
                    continue
                except TransientError:
                    _drop(store)
                    store = None
                    transient += 1
                    if transient > MAX_TRANSIENT:
                        raise
                    time.sleep(random.uniform(0, backoff(transient, cap=self.poll_max)))
                    continue
                if d.action is Action.REFUSE:
                    raise GateRefused(
                        self._refusal(d, row), location=self.label, gate=_info(row, self.label)
                    )
                now = time.monotonic()
                if now >= deadline:
                    raise GateBusy(
                        self._gave_up(d, row, now - start),
                        location=self.label,
                        gate=_info(row, self.label),
                    )
                pause = random.uniform(0.5, 1.0) * backoff(attempt, cap=self.poll_max)
                time.sleep(min(deadline - now, pause))
                attempt += 1
        except BaseException:
            if store is not None:
                store.rollback()
            raise
        finally:
            _drop(store)

    def _commit_take(
        self,
        store: GateStore,
        d: Decision,
        holder: Holder,
        purge: list[str],
        start: float,
        transient: int,
    ) -> Turn:
        purged = {t: store.purge(t) for t in purge} if d.purge else {}
        assert d.next_state is not None
        store.set_state(self.name, d.next_state, holder)
        try:
            store.commit()
        except TransientError:
            # The commit may or may not have happened: this turn's token says which.
            if not self._is_current(holder, d.next_state):
                raise
        return self._turn(d, holder, purged, start, transient)

    def _turn(
        self, d: Decision, holder: Holder, purged: dict[str, int], start: float, transient: int
    ) -> Turn:
        assert d.next_state is not None
        return Turn(
            gate=self.name,
            location=self.label,
            role=d.role,
            found=d.found,
            state=d.next_state,
            holder=holder,
            purged=purged,
            waited_s=time.monotonic() - start,
            transient_retries=transient,
        )

    def _is_current(self, holder: Holder, state: State) -> bool:
        with self._connected() as store:
            row = store.read(self.name)
        return row is not None and row.token == holder.token and row.state is state

    def release(self, turn: Turn) -> GateStatus:
        """Write the role's Loaded state after a successful run. Refused (exit 3) when the
        gate was reset while this run held it: the new state is then not written."""
        done = LOADED[turn.role]
        for retry in range(MAX_TRANSIENT + 1):
            try:
                with self._connected() as store:
                    row = store.lock(self.name, self.lock_timeout)
                    if row is not None and row.token == turn.holder.token and row.state is done:
                        store.rollback()  # an earlier commit of ours did go through
                        return GateStatus(self.label, row)
                    if row is None or row.token != turn.holder.token or row.state != turn.state:
                        store.rollback()
                        raise GateRefused(
                            self._lost(turn, row), location=self.label, gate=_info(row, self.label)
                        )
                    store.set_state(self.name, released_state(turn.role, row.state), turn.holder)
                    store.commit()
                got = self.status()
                assert got is not None
                return got
            except TransientError:
                if retry == MAX_TRANSIENT:
                    raise
                time.sleep(random.uniform(0, backoff(retry, cap=self.poll_max)))
        raise AssertionError("unreachable")

    def reset(self, to: State | str, *, command: str | None = None) -> dict[str, Any]:
        """Set the state by hand after a human has checked (``gate reset``). Any state may be
        set; the previous state and holder are returned. A run that still holds the gate
        then fails to release it (its token no longer matches)."""
        target = parse_state(to) if isinstance(to, str) else to
        holder = self._holder(command)
        for retry in range(MAX_TRANSIENT + 1):
            try:
                with self._connected() as store:
                    row = store.lock(self.name, self.lock_timeout)
                    if row is None:
                        store.ensure(self.name, holder)
                        row = store.lock(self.name, self.lock_timeout)
                    assert row is not None
                    store.set_state(self.name, target, holder)
                    store.commit()
                after = self.status()
                assert after is not None
                return {
                    "gate": self.name,
                    "location": self.label,
                    "from": str(row.state),
                    "to": str(target),
                    "previous": GateStatus(self.label, row).to_dict(),
                    "now": after.to_dict(),
                }
            except TransientError:
                if retry == MAX_TRANSIENT:
                    raise
                time.sleep(random.uniform(0, backoff(retry, cap=self.poll_max)))
        raise AssertionError("unreachable")

    # -- messages -----------------------------------------------------------------------
    def _since(self, row: GateRow) -> str:
        when = row.changed_at.strftime("%Y-%m-%d %H:%M:%S UTC") if row.changed_at else "?"
        age = f"{row.age_s:.0f} s ago" if row.age_s is not None else "age unknown"
        return (
            f"{row.state} since {when} ({age}), set by host {row.host} pid {row.pid}"
            f"{_alive(row)} running {row.command!r}"
        )

    def _refusal(self, d: Decision, row: GateRow) -> str:
        if d.role is Role.PRODUCER:
            fix = (
                "check what that run wrote to the transport tables (remove it if it is not "
                f"complete), then `syncpoint gate reset {self.name} --to OperationalSysLoaded` "
                "so the consumer loads them"
            )
        else:
            fix = (
                "check the load of that run, then `syncpoint gate reset "
                f"{self.name} --to OperationalSysLoaded` to load the transport tables again, "
                "or --to WarehouseLoaded if they were loaded completely"
            )
        return f"gate {self.name!r}: {self._since(row)}: {d.reason}. If it is not running: {fix}"

    def _gave_up(self, d: Decision, row: GateRow, waited: float) -> str:
        other = OTHER[d.role]
        why = (
            d.reason
            if row.state is not LOADED[d.role]
            else f"{d.reason} (the {other} has not finished a new turn since)"
        )
        return (
            f"gate {self.name!r}: gave up after waiting {waited:.1f} s: {why}; {self._since(row)}"
        )

    def _lost(self, turn: Turn, row: GateRow | None) -> str:
        now = self._since(row) if row else "the gate's row is gone"
        return (
            f"gate {self.name!r}: the {turn.role} run finished but the gate was reset while it "
            f"held it ({now}); its {LOADED[turn.role]} state was not written. Check the "
            "transport tables and reset the gate to the state they are in"
        )


def _drop(store: GateStore | None) -> None:
    if store is not None:
        store.close()


def _info(row: GateRow | None, label: str) -> dict[str, Any] | None:
    return GateStatus(label, row).to_dict() if row else None


def _alive(row: GateRow) -> str:
    """Whether the holder still runs, when it ran on this host (pids are per host)."""
    if row.host != socket.gethostname() or not row.pid:
        return ""
    if row.pid == os.getpid():
        return " (this process)"
    try:
        os.kill(row.pid, 0)
    except ProcessLookupError:
        return " (no longer running)"
    except PermissionError:
        pass
    return " (a process with that pid is running)"


def gate_states(cfg: ChannelConfig) -> dict[str, Any]:
    """Every gate of the channel's prefix, per location that may hold one (the transport
    location and the integrate locations), for ``syncpoint status``. A location that cannot
    be read shows ``{"error": ...}`` instead of failing the whole status."""
    names = [cfg.transport.location] if cfg.transport else []
    names += [n for n in sorted(cfg.integrate_locations()) if n not in names]
    out: dict[str, Any] = {}
    for n in names:
        url = Location.of(cfg, n).url
        try:
            out[n] = [s.to_dict() for s in Gate(url, "*", prefix=cfg.prefix, location=n).statuses()]
        except SyncpointError as exc:
            out[n] = {"error": str(exc)}
    return out


@contextmanager
def gate(
    url: str,
    name: str,
    role: Role | str = "producer",
    *,
    wait: float = 0.0,
    purge_tables: Iterable[str] = (),
    prefix: str = "repl_",
    command: str | None = None,
    location: str | None = None,
    lock_timeout: float = 30.0,
) -> Iterator[Turn]:
    """Run the body as ``role``'s turn of gate ``name`` (see the module docstring).

    ``purge_tables``: transport tables the producer empties when it finds them loaded.
    ``command``: what to record as the holder's command (default: this process's argv).
    An exception in the body leaves the Loading state, which blocks the next run of the
    role until ``Gate(url, name).reset(...)`` / ``syncpoint gate reset``."""
    g = Gate(url, name, prefix=prefix, location=location, lock_timeout=lock_timeout)
    turn = g.take(role, wait=wait, purge_tables=purge_tables, command=command)
    failpoints.hit("gate_after_take")
    yield turn
    failpoints.hit("gate_before_release")
    g.release(turn)
