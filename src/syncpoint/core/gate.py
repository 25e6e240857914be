"""The gate's state machine (docs/objects.md, "Gate states"): states, roles, decisions and
transitions.

A gate is one row of ``{prefix}load_state``. A producer (the operational system's batch
load) and a consumer (the warehouse load) take turns on it. Each turn is::

    lock the row -> decide(role, state found) -> [purge] + set the role's Loading state
    -> commit (releases the lock) -> the long work, outside any lock
    -> lock the row -> release(role, state found) gives the Loaded state -> commit

Only the two short steps hold the row lock; the vendor supplies the lock
(a locking read, or the database's write lock), this module only the rules,
so that ``tests/unit/test_gate_model.py`` can explore every interleaving without a database.

A failed or killed run leaves its Loading state in place; that is what stops the next run
of the same role (``REFUSE``) until a human has checked and reset the gate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class State(StrEnum):
    OPERATIONAL_SYS_LOADING = "OperationalSysLoading"
    OPERATIONAL_SYS_LOADED = "OperationalSysLoaded"
    WAREHOUSE_LOADING = "WarehouseLoading"
    WAREHOUSE_LOADED = "WarehouseLoaded"


class Role(StrEnum):
    PRODUCER = "producer"
    CONSUMER = "consumer"


class Action(StrEnum):
    TAKE = "take"  # set the role's Loading state and run
    WAIT = "wait"  # the other side holds the gate or nothing is there yet: retry later
    REFUSE = "refuse"  # the previous run of this role failed: stop until reset


INITIAL = State.WAREHOUSE_LOADED  # a new gate: the (empty) transport tables count as loaded
LOADING = {Role.PRODUCER: State.OPERATIONAL_SYS_LOADING, Role.CONSUMER: State.WAREHOUSE_LOADING}
LOADED = {Role.PRODUCER: State.OPERATIONAL_SYS_LOADED, Role.CONSUMER: State.WAREHOUSE_LOADED}
OTHER = {Role.PRODUCER: Role.CONSUMER, Role.CONSUMER: Role.PRODUCER}


@dataclass(frozen=True)
class Decision:
    """What a process of ``role`` does on finding ``found`` under the row lock."""

    role: Role
    found: State
    action: Action
    purge: bool
    reason: str

    @property
    def next_state(self) -> State | None:
        """The state committed when the gate is taken (None unless ``TAKE``)."""
        return LOADING[self.role] if self.action is Action.TAKE else None


# docs/objects.md "Gate states", row for row: (role, found) -> (action, purge, reason).
_TABLE: dict[tuple[Role, State], tuple[Action, bool, str]] = {
    (Role.PRODUCER, State.WAREHOUSE_LOADED): (
        Action.TAKE,
        True,
        "the consumer has loaded the transport tables: purge them and produce",
    ),
    (Role.PRODUCER, State.OPERATIONAL_SYS_LOADED): (
        Action.TAKE,
        False,
        "the consumer has not loaded the last batch yet: append without purging",
    ),
    (Role.PRODUCER, State.WAREHOUSE_LOADING): (
        Action.WAIT,
        False,
        "the consumer is loading the transport tables",
    ),
    (Role.PRODUCER, State.OPERATIONAL_SYS_LOADING): (
        Action.REFUSE,
        False,
        "a producer took the gate and has not finished: it failed or was killed "
        "(or is still running)",
    ),
    (Role.CONSUMER, State.OPERATIONAL_SYS_LOADED): (
        Action.TAKE,
        False,
        "the producer has loaded the transport tables: consume them",
    ),
    (Role.CONSUMER, State.OPERATIONAL_SYS_LOADING): (
        Action.WAIT,
        False,
        "the producer is loading the transport tables: nothing to load yet",
    ),
    (Role.CONSUMER, State.WAREHOUSE_LOADED): (
        Action.WAIT,
        False,
        "the last batch is already loaded: nothing to load yet",
    ),
    (Role.CONSUMER, State.WAREHOUSE_LOADING): (
        Action.REFUSE,
        False,
        "a consumer took the gate and has not finished: it failed or was killed "
        "(or is still running)",
    ),
}


def decide(role: Role | str, found: State | str) -> Decision:
    """The decision of the gate's table (docs/objects.md) for ``role`` finding ``found``
    (read under the row lock)."""
    r, s = Role(role), State(found)
    action, purge, reason = _TABLE[(r, s)]
    return Decision(role=r, found=s, action=action, purge=purge, reason=reason)


class NotHolder(ValueError):
    """The gate is not in the state this turn set: someone reset it meanwhile."""


def release(role: Role | str, found: State | str) -> State:
    """The state a successful run of ``role`` commits; ``found`` must be its Loading state."""
    r, s = Role(role), State(found)
    if s is not LOADING[r]:
        raise NotHolder(f"the gate is {s}, not {LOADING[r]}")
    return LOADED[r]


def parse_state(text: str) -> State:
    """A state from user input: exact names, any case, ``-``/``_`` ignored
    (``warehouse-loaded`` is ``WarehouseLoaded``)."""
    key = re.sub(r"[-_\s]", "", text).lower()
    for s in State:
        if s.value.lower() == key:
            return s
    raise ValueError(f"{text!r} is not a gate state; states: {', '.join(s.value for s in State)}")


def parse_role(text: str) -> Role:
    try:
        return Role(text.lower())
    except ValueError:
        raise ValueError(f"{text!r} is not a gate role; roles: producer, consumer") from None


def backoff(attempt: int, base: float = 0.02, cap: float = 1.0) -> float:
    """Upper bound of the pause before retry ``attempt`` (0-based): exponential, capped.
    Callers draw the actual pause uniformly below it, so waiters do not retry in step."""
    return float(min(cap, base * (2 ** min(attempt, 30))))


@dataclass(frozen=True)
class Holder:
    """Who changes the state: recorded with every change so that a refusal can name it."""

    host: str
    pid: int
    command: str
    token: str  # one per turn (and per reset): tells this turn's row from a reset one


@dataclass(frozen=True)
class GateRow:
    """One row of ``{prefix}load_state`` as read, with the database's clock at the read."""

    name: str
    state: State
    changed_at: datetime | None
    host: str | None
    pid: int | None
    command: str | None
    token: str | None
    turns: int
    read_at: datetime | None = None

    @property
    def age_s(self) -> float | None:
        """Seconds since the last change, on the database's clock (no skew between hosts)."""
        if self.changed_at is None or self.read_at is None:
            return None
        return max(0.0, (self.read_at - self.changed_at).total_seconds())
