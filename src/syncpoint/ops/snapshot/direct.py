"""The direct path of a snapshot chunk, where the source and target vendor have one
(PostgreSQL to PostgreSQL): Spark runs one task per key range of the chunk, each streaming
the range from the source database into a typed staging table at the target and
committing it; the chunk's apply transaction checks the staged count against the sum of
the tasks' counts and upserts the typed rows by key.

Used when it copies exactly what the JDBC path would: the vendor's row source needs no
``finish`` step, the target has a unique index on the key (a keyless target is applied
by delete and insert, on the JDBC path), and every column written has a type the vendor
can carry exactly (the vendor's ``mode``). ``SYNCPOINT_SNAPSHOT_PATH=jdbc`` keeps every
table on the JDBC path (for comparisons).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from syncpoint.errors import DuplicateKey, LocationError, PositionConflict
from syncpoint.vendors.integratebase import ApplyTable, Integrate
from syncpoint.vendors.snapshotbase import direct_path


class DirectPath:
    """The direct path of one (capture location, table) into its target."""

    def __init__(self, mod: Any, target: Integrate, location: str, table: ApplyTable, fmt: str):
        self.mod, self.target, self.table, self.fmt = mod, target, table, fmt
        self.staging = mod.staging_name(target.prefix, location, str(table.target.ref))

    @staticmethod
    def module(source_vendor: str, target_vendor: str) -> Any:
        if os.environ.get("SYNCPOINT_SNAPSHOT_PATH", "") == "jdbc":
            return None
        return direct_path(source_vendor, target_vendor)

    @classmethod
    def choose(
        cls,
        mod: Any,
        source_conn: Any,
        source_table: str,
        rows: Any,
        target: Integrate,
        location: str,
        table: ApplyTable,
    ) -> DirectPath | None:
        """The direct path for this table, or None (then the JDBC path copies it)."""
        if mod is None or rows.finish is not None or not table.keyed:
            return None
        fmt = mod.mode(mod.source_columns(source_conn, source_table), table)
        return None if fmt is None else cls(mod, target, location, table, fmt)

    def create(self, conn: Any) -> None:
        self.mod.create_staging(conn, self.staging, self.table, self.target.location)

    @property
    def target_table(self) -> str:
        """The target table, quoted and qualified."""
        return str(self.target.qualified(self.table.target.ref))

    def fresh(self, conn: Any, key_range: str | None) -> bool:
        """Whether the target holds no row in the chunk's key range (read and ended)."""
        if key_range is None:
            return False
        row = self.mod.run(
            conn, self.staging, "direct_any", target=self.target_table, range=key_range
        )
        empty = not row.fetchone()[0]
        conn.rollback()
        return empty

    def copy(
        self,
        spark: Any,
        source_url: str,
        source_table: str,
        attempt: str,
        ranges: list[str],
        fresh: bool,
        snapshot: str = "",
    ) -> tuple[int, int]:
        """Copy the chunk's ranges (committed): (rows staged, rows written straight into
        the target table). ``fresh``: the chunk's key range holds no target row, so each
        task writes its range into the table itself, in a transaction of its own."""
        from syncpoint.spark.snapshot import run_tasks

        jobs = self.mod.copies(
            source_url,
            self.target.url,
            source_table,
            self.table,
            self.staging,
            self.fmt,
            attempt,
            ranges,
            self.target_table if fresh else None,
            snapshot,
        )
        done = run_tasks(spark, jobs, self.mod.copy_range)
        return sum(a for a, _ in done), sum(b for _, b in done)

    def apply(
        self,
        conn: Any,
        attempt: str,
        n: int,
        table_name: str,
        empty: bool,
        key_range: str | None,
        stale: str | None = None,
    ) -> None:
        """Inside the chunk's apply transaction: the staged rows checked and upserted, the
        staging emptied (``empty``: the target emptied first, ``--truncate``). ``key_range``:
        the chunk's range over the target's key (SQL over ``sp_row``) where the key is the
        partition column alone; a target without rows there takes a plain insert.
        ``stale``: the chunk's range over the target's partition column, whose rows the
        chunk did not copy are deleted first (keys compared as the upsert compares them:
        by the target's own equality)."""
        run, t = self.mod.run, self.table
        run(conn, self.staging, "direct_cleanup", (attempt,))
        found = int(run(conn, self.staging, "direct_count", (attempt,)).fetchone()[0])
        if found != n:
            raise PositionConflict(
                f"the staged rows of snapshot chunk {attempt} are not those written "
                f"({found} instead of {n}); nothing of this chunk was applied",
                location=self.target.location,
                table=table_name,
            )
        target = self.target_table
        if empty:
            self.target.run(conn, "empty", table=str(t.target.ref), target=target)
        elif stale is not None:
            q = self.target.q
            match = " AND ".join(
                f"t.{q(k)} {'=' if self._not_null(k) else 'IS NOT DISTINCT FROM'} s.{q(k)}"
                for k in t.key
            )
            with deleting_stale(table_name):
                run(
                    conn, self.staging, "direct_prune", (attempt,), table_name,
                    self.target.location, target=target, range=stale, match=match,
                )  # fmt: skip
        if n:
            q = self.target.q
            columns = ", ".join(q(c.name) for c in t.columns)
            fresh = empty or (
                key_range is not None
                and not run(
                    conn, self.staging, "direct_any", target=target, range=key_range
                ).fetchone()[0]
            )
            if not fresh or not self._insert(conn, attempt, target, columns):
                rest = [c for c in t.columns if c.name not in t.key]
                on_conflict = (
                    "UPDATE SET " + ", ".join(f"{q(c.name)} = EXCLUDED.{q(c.name)}" for c in rest)
                    if rest
                    else "NOTHING"
                )
                run(
                    conn,
                    self.staging,
                    "direct_upsert",
                    (attempt,),
                    target=target,
                    columns=columns,
                    key=", ".join(q(k) for k in t.key),
                    on_conflict=on_conflict,
                )
        run(conn, self.staging, "direct_done")

    def _not_null(self, name: str) -> bool:
        # = lets the server hash the comparison; a user-named key may hold NULLs
        col = self.table.target.column(name)
        return col is not None and not col.nullable

    def _insert(self, conn: Any, attempt: str, target: str, columns: str) -> bool:
        """The plain insert, under a savepoint; False (and nothing done) when a key was
        there after all."""
        try:
            with conn.transaction():
                self.mod.run(
                    conn, self.staging, "direct_insert", (attempt,), target=target, columns=columns
                )
        except DuplicateKey:
            return False
        return True


@contextmanager
def deleting_stale(table: str) -> Iterator[None]:
    """Around the delete of a chunk's target rows the source no longer has: a refusal
    (typically a foreign key: a row of another table at the target still refers to one)
    says what was being deleted and how to go on; transient errors pass as they are."""
    try:
        yield
    except LocationError as exc:
        if type(exc) is not LocationError:
            raise
        raise LocationError(
            f"{exc.message}; refused while deleting the target rows of {table} that the "
            "source no longer has: where rows of another table at the target still refer to "
            "them, snapshot those tables and this one with --truncate --restart (they are "
            "emptied children first, then copied parents first)",
            location=exc.location,
            table=exc.table or table,
        ) from exc


def drop_staging(mod: Any, conn: Any, prefix: str, location: str, target: str) -> None:
    """Inside the hand-over transaction: the table's typed staging goes."""
    mod.run(conn, mod.staging_name(prefix, location, target), "direct_drop")
