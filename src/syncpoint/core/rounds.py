"""One round as named steps, with a failpoint after each: ``plan`` (positions, sync points,
DDL decisions; ``after_tick``), ``read`` (``after_read``), ``stage`` (``after_stage``),
``apply`` (one target transaction; ``before_commit``, COMMIT, ``after_commit``). A kill at
any of them leaves the old positions with the old rows or the new with the new.
docs/internals.md, "Rounds".
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol

from syncpoint import failpoints
from syncpoint.config import TableConfig, TableName, parse_table_name
from syncpoint.core.cascade import Edge
from syncpoint.core.ddl import DdlChange
from syncpoint.core.model import WindowStats
from syncpoint.core.netting import NetRows
from syncpoint.core.positions import SyncPoint


@dataclass
class TableWindow:
    """One (capture location, table) of a round: records after ``after`` up to ``upto``."""

    tbl: int  # the number of this window in the round; staged rows carry it
    location: str
    table: str  # the configured source name, the key of its stream position
    source: TableName
    target: TableName
    key: tuple[str, ...]
    after: int
    upto: int
    stored: bool  # a position existed at the start: compare-and-set, else first insert
    stream_id: str
    policy: str = "stop"
    ddl: list[DdlChange] = field(default_factory=list)  # applied before the rows
    empties: bool = False  # TRUNCATE/DROP applied: empty the target, then the rows after
    rows_after: int = 0  # only row records with a larger repl_key are applied
    renames: dict[str, str] = field(default_factory=dict)  # new name -> name before
    # where the changes read were first made: the location itself, and those it forwards
    # on the way here (a ring); several ask the apply to mark each row with its own
    origins: tuple[str, ...] = ()
    # what the window holds, from its location's one survey of the group's tables (None:
    # nothing); ``surveyed`` False: not asked, each read asks the capture itself
    stats: WindowStats | None = None
    surveyed: bool = False

    @property
    def moves(self) -> bool:
        return self.upto != self.after

    @property
    def reads(self) -> bool:
        return self.upto > self.after

    @property
    def idle(self) -> bool:
        """Moves over a window known to hold no record: only its position moves (the round
        reads, describes and locks nothing of the table)."""
        return self.surveyed and self.stats is None and not self.ddl and not self.empties


@dataclass
class Stop:
    """A table whose rounds stop, and why (shown by ``status``)."""

    location: str
    table: str
    context: int  # the position it stays at
    reason: str
    repl_key: int | None = None


@dataclass
class RoundPlan:
    application: str
    integrate: str
    group: str
    windows: list[TableWindow]
    sync_points: dict[str, SyncPoint]
    stops: list[Stop] = field(default_factory=list)
    round_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    # how the net rows reached the staging table: "bulk" (the target's bulk path, from the
    # driver or from each Spark partition), "batched" (JDBC or DB-API batches), "" (none)
    staging: str = ""
    # cascades the capture cannot see, between windows of the round (core/cascade.py), the
    # parents' events staged for them (window, action, content, repl_key, origin), and how
    # many of each events window were staged
    edges: list[Edge] = field(default_factory=list)
    event_rows: list[tuple[int, str, str, int, str | None]] = field(default_factory=list)
    events: dict[int, int] = field(default_factory=dict)
    # window -> its typed staging, where the vendor's direct path staged the window's rows
    # in the target's types (the vendor's integrate side reads it; none on other paths)
    typed: dict[int, Any] = field(default_factory=dict)
    # target -> why its window's rows were staged as JSON text where the direct path
    # stages others typed (between two vendors: a type or shape it cannot carry typed)
    untyped: dict[str, str] = field(default_factory=dict)
    # whether the records went from database to database on the vendors' direct path
    direct: bool = False

    @property
    def moves(self) -> bool:
        return any(w.moves for w in self.windows)

    @property
    def reading(self) -> list[TableWindow]:
        return [w for w in self.windows if w.reads]


@dataclass
class RoundResult:
    plan: RoundPlan
    read: dict[int, int] = field(default_factory=dict)  # window -> change records read
    staged: dict[int, int] = field(default_factory=dict)  # window -> net rows staged
    engine: str = ""  # who netted the round: "driver", "spark", or "" (nothing read)

    @property
    def changes(self) -> int:
        return sum(self.read.values())


class RoundSteps(Protocol):
    def plan(self) -> RoundPlan | None: ...

    def read(self, plan: RoundPlan) -> tuple[Any, dict[int, int]]: ...

    def stage(self, plan: RoundPlan, data: Any) -> dict[int, int]: ...

    def apply(self, plan: RoundPlan, staged: dict[int, int]) -> None: ...

    def release(self, data: Any) -> None: ...


def run_round(steps: RoundSteps) -> RoundResult | None:
    """Run the steps of one round; None when the group had nothing to do."""
    plan = steps.plan()
    failpoints.hit("after_tick")
    if plan is None:
        return None
    result = RoundResult(plan)
    data: Any = None
    try:
        if plan.reading:
            data, result.read = steps.read(plan)
        if data is not None:
            result.engine = "driver" if isinstance(data, NetRows) else "spark"
        failpoints.hit("after_read")
        if data is not None:
            result.staged = steps.stage(plan, data)
        failpoints.hit("after_stage")
        steps.apply(plan, result.staged)
        failpoints.hit("after_commit")
    finally:
        if data is not None:
            steps.release(data)
    return result


LOCATION_PLACEHOLDER = "{location}"


def target_name(t: TableConfig, location: str) -> tuple[TableName, bool]:
    """The configured target of ``t`` for capture ``location`` (``target:`` with
    ``{location}`` replaced by its name), and whether one was given."""
    if t.target:
        return parse_table_name(t.target.replace(LOCATION_PLACEHOLDER, location)), True
    return t.ref, False
