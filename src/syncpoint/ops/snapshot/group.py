"""The snapshot of one sync group's tables from one capture location into one integrate
location: one tick for the group, one source state where the vendor can share one
(``vendors/<vendor>/snapshot.py``'s ``shared_read``: PostgreSQL's exported snapshot,
SQLite's one read transaction), the tables copied parents first, and one hand-over.

Why: each table copied at its own moment gives a target whose rows refer to rows it does
not hold yet (an order written after its customer's table was copied), which a target with
foreign keys refuses. Read as of one moment and written parents first, every row's parent
is there when the row arrives. Rounds refuse the group until all of it is handed over, and
the hand-over sets every position to the group's tick, so rounds start it from one sync
point (docs/internals.md, "Snapshot: the hand-over").
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

from syncpoint.config import ChannelConfig
from syncpoint.core import fkorder
from syncpoint.ops import created
from syncpoint.ops import snapshot_state as st
from syncpoint.ops.snapshot.copy import Links, TableCopy, _idle, hand_over
from syncpoint.ops.snapshot.plan import Pair
from syncpoint.vendors.snapshotbase import SharedRead, shared_read


class GroupCopy:
    """Copies of one group's pairs, sharing its tick and source state (made on first use:
    a group whose tables are all loaded already makes neither)."""

    def __init__(
        self, cfg: ChannelConfig, members: list[Pair], spark: Any, links: Links | None = None
    ):
        self.copies: list[TableCopy] = []
        self._links = links
        try:
            for pair in members:
                copy = TableCopy(cfg, pair, spark, links)
                copy.shared = self.shared
                self.copies.append(copy)
        except BaseException:
            self.close()
            raise
        self._tick: Any = None
        self._shared: SharedRead | None = None
        self._made = False
        self._copied: list[tuple[TableCopy, st.SnapshotState]] = []

    def __enter__(self) -> GroupCopy:
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if getattr(self, "_shared", None) is not None:
            shared, self._shared = self._shared, None
            shared.close()  # type: ignore[union-attr]
        for c in self.copies:
            c.close()
        for steps in self._steps():
            steps.after_load = []  # a group not handed over adds nothing later

    def _steps(self) -> list[Any]:
        """The copies' ``GroupRound``s, each once (a run's copies share one per location)."""
        return list({id(c.steps): c.steps for c in self.copies}.values())

    def tick(self) -> Any:
        """The group's tick, made once, before any row of the group is read."""
        if self._tick is None:
            src = self.copies[0].src
            if self._links is not None:
                self._tick = self._links.tick(src)
            else:
                self._tick = src.capture.tick(src.conn)
                _idle(src.conn)
        return self._tick

    def shared(self) -> SharedRead | None:
        """The group's one source state (after its tick), or None where the vendor has none."""
        if not self._made:
            self._made = True
            self.tick()
            src = self.copies[0].src
            links = self._links
            reuse = None if links is None else (lambda: links.reader(src))
            self._shared = shared_read(src.capture.vendor, src.capture, reuse)
        return self._shared

    def ordered(self) -> list[TableCopy]:
        """The copies parents first, by the target's foreign keys among the group's tables
        (tables not there yet: in the configured order)."""
        if len(self.copies) < 2:
            return list(self.copies)
        lead = self.copies[0]
        targets = {str(c.target_ref): c for c in self.copies}
        edges = lead.target.foreign_keys(lead.conn, [c.target_ref for c in self.copies])
        order = fkorder.parents_first(list(targets), [(str(a), str(b)) for a, b in edges])
        return [targets[t] for t in order]

    def empty(self, copies: list[TableCopy]) -> None:
        """``--truncate`` of several tables: those of ``copies`` (parents first) the target
        has, emptied children first in one transaction before any is loaded. Emptied one by
        one as each is loaded, a parent goes while the target's foreign keys still see its
        children's rows refer to it, and the target refuses."""
        if len(copies) < 2:
            return
        t, conn = self.copies[0].target, self.copies[0].conn
        there = [c for c in copies if t.describe(conn, c.target_ref) is not None]
        t.begin(conn)
        try:
            for c in reversed(there):
                origin = c._origin()
                if origin:
                    origin.set_origin(conn, c.pair.location)
                t.run(conn, "empty", table=str(c.target_ref), target=t.qualified(c.target_ref))
                if origin:
                    origin.set_origin(conn, None)
            t.commit(conn)
        except BaseException:
            t.rollback(conn)
            raise

    def copied(self, copy: TableCopy, s: st.SnapshotState) -> None:
        self._copied.append((copy, s))

    def hand_over(self) -> None:
        """Every table copied by this run handed over in one target transaction; then the
        indexes and foreign keys of the target tables this run created (``ops/created.py``)."""
        hand_over(self._copied)
        self._copied = []
        later = [j for steps in self._steps() for j in (steps.after_load or [])]
        for steps in self._steps():
            steps.after_load = []
        created.run(later)
