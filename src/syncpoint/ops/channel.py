"""``Channel``: the operations of the commands (docs/commands.md) on one configuration, for
the CLI and for Python callers (Airflow, Dagster, notebooks). It coordinates vendors and,
for ``run``, Spark; it holds no SQL and no vendor detail of its own.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

from syncpoint import config as cfgmod
from syncpoint.config import ChannelConfig
from syncpoint.errors import ConfigError, SyncpointError, WorkFailed
from syncpoint.ops.location import Location
from syncpoint.vendors import unchanged
from syncpoint.vendors.base import Capture

log = logging.getLogger("syncpoint.install")

P = ParamSpec("P")
R = TypeVar("R")


def _changes_nothing(fn: Callable[P, R]) -> Callable[P, R]:
    """validate, plan and status: every connection they open leaves its location as it is
    (``vendors.unchanged``), and they run no statement that writes."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with unchanged():
            return fn(*args, **kwargs)

    return wrapper


class Channel:
    def __init__(self, cfg: ChannelConfig, source: str = "<config>"):
        self.cfg = cfg
        self.source = source

    @classmethod
    def from_file(cls, path: str | os.PathLike[str] | None = None) -> Channel:
        p = path or cfgmod.DEFAULT_FILE
        return cls(cfgmod.load(p), str(p))

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<dict>") -> Channel:
        return cls(cfgmod.from_dict(data, source), source)

    @classmethod
    def check_file(
        cls, path: str | os.PathLike[str] | None = None
    ) -> tuple[str, list[str], dict[str, list[str]], dict[str, list[str]]]:
        """``validate``: (source, problems of the file, problems per location, notes per
        integrate location). The locations and tables valid on their own are connected to
        and checked even when other parts of the file are wrong, so that one run lists
        every problem."""
        p, data = cfgmod.read_file(path)
        cfg, problems = cfgmod.check_dict(data, str(p))
        if cfg is None:
            return str(p), problems, {}, {}
        ch = cls(cfg, str(p))
        return str(p), problems, ch.validate(), ch.notes()

    @_changes_nothing
    def notes(self) -> dict[str, list[str]]:
        """How rounds will apply at each integrate location where that needs saying: a
        target without a unique index on the key, unique indexes on other columns. A
        location that cannot be reached has none (``validate`` reports it)."""
        from syncpoint.core.rounds import target_name

        keys: dict[tuple[str, str], tuple[str, ...]] = {}
        out: dict[str, list[str]] = {}
        existing = self._existing_locations()
        for integ in self.cfg.integrate_locations():
            found: list[str] = []
            try:
                it = self._integrate(integ)
                with self.connection(integ) as conn:
                    for loc in self.cfg.sources_of(integ):
                        cloc = self.cfg.locations[loc]
                        if loc not in existing or integ not in existing:
                            continue
                        for t in self.cfg.tables_at(loc):
                            key = tuple(t.key or ()) or self._source_key(keys, loc, t)
                            ref = it.resolve(*target_name(t, loc), cloc.vendor)
                            have = it.describe(conn, ref)
                            if key:
                                found += it.apply_notes(ref, have, key)
                            if key and have is not None:
                                found += self._key_notes(it, loc, t, ref, have, key)
                            found += self._type_notes(loc, t, ref, have, it.vendor)
                            if have is None:
                                found += self._index_notes(loc, t, ref, it.vendor)
            except SyncpointError:
                pass
            out[integ] = list(dict.fromkeys(found))
        for name in self.cfg.capture_locations():
            # how DDL will be seen where the vendor has a choice (PostgreSQL: event triggers
            # or polling, by the installer's privileges)
            if name not in existing:
                continue
            try:
                with self.location(name).capture() as (cap, conn):
                    said = cap.notes(conn) if hasattr(cap, "notes") else []
            except SyncpointError:
                said = []
            out[name] = out.get(name, []) + said
        return out

    def _source_key(
        self, cache: dict[tuple[str, str], tuple[str, ...]], loc: str, t: Any
    ) -> tuple[str, ...]:
        if (loc, t.name) not in cache:
            shape = self._source_shape(loc, t)
            cache[(loc, t.name)] = tuple(shape.primary_key) if shape else ()
        return cache[(loc, t.name)]

    def _source_shape(self, loc: str, t: Any) -> Any:
        with self.location(loc).capture() as (cap, conn):
            return cap.describe(conn, t.ref)

    def _index_notes(self, loc: str, t: Any, ref: Any, target_vendor: str) -> list[str]:
        """The source's indexes a created target ``ref`` will not have (a method the
        target's vendor lacks), each named."""
        from syncpoint.ops import created
        from syncpoint.vendors import shapebase

        vendor = self.cfg.locations[loc].vendor
        with self.location(loc).capture() as (cap, conn):
            if cap.describe(conn, t.ref) is None:
                return []  # validate says the table is missing
            extras = shapebase.extras(vendor, conn, t.ref)
            _end(conn)
        return [
            f"target {ref}: " + created.left_out(target_vendor, vendor, ix)
            for ix in extras.indexes
            if created.index_method(target_vendor, vendor, ix) is None
        ]

    def _key_notes(
        self, it: Any, loc: str, t: Any, ref: Any, have: Any, key: tuple[str, ...]
    ) -> list[str]:
        """Where the existing target's key compares coarser than the source's."""
        from syncpoint import vendors

        shape = self._source_shape(loc, t)
        if shape is None:
            return []
        parse = vendors.get(self.cfg.locations[loc].vendor).types.parse
        src = {c.name: parse(c.type) for c in shape.columns}
        return list(it.key_notes(ref, have, key, src))

    def _type_notes(self, loc: str, t: Any, ref: Any, have: Any, target_vendor: str) -> list[str]:
        """What the source's columns of a type that needs saying (a vendor's types module
        knows which: ``travel_note``) become at the target ``ref`` (``have``: its shape, or
        None when the first round creates it)."""
        from syncpoint import vendors

        note = getattr(vendors.get(self.cfg.locations[loc].vendor).types, "travel_note", None)
        shape = self._source_shape(loc, t) if note else None
        out: list[str] = []
        for c in shape.columns if shape else ():
            what = note(c.type, target_vendor) if note else None
            if what is None:
                continue
            there = have.column(c.name) if have else None
            out.append(
                f"target {ref}: column {c.name} ({c.type} at {loc}) "
                + (
                    f"arrives in its column of type {there.type} (a created one: {what})"
                    if there
                    else f"becomes {what}"
                )
            )
        return out

    # -- helpers -----------------------------------------------------------------------
    def location(self, name: str) -> Location:
        return Location.of(self.cfg, name)

    def url(self, location: str) -> str:
        return self.location(location).url

    def capture(self, location: str) -> Capture:
        return self.location(location).capture_side

    @contextmanager
    def connection(self, location: str) -> Iterator[Any]:
        with self.location(location).connect() as conn:
            yield conn

    # -- validate / plan / install -------------------------------------------------------
    @_changes_nothing
    def validate(self) -> dict[str, list[str]]:
        """Connect to every location and list every problem found, per location. A SQLite
        file that does not exist is a problem (never created here); at a location that only
        integrates, in a folder that exists, ``install`` creates it."""
        problems: dict[str, list[str]] = {}
        for name, loc in self.cfg.locations.items():
            found: list[str] = []
            if not loc.capture and self._new_file_target(name):
                problems[name] = [_no_target_file(self.location(name).url)]
                continue
            try:
                with self.location(name).capture() as (cap, conn):
                    if loc.capture:
                        found += cap.check(conn, self.cfg.tables_at(name))
                        found += self._cascade_groups(name, cap, conn)
                    else:
                        side = self._integrate(name)
                        found += side.check(conn)
                        found += side.check_targets(conn, self._targets(name))
            except SyncpointError as exc:
                found.append(str(exc))
            problems[name] = found
        return problems

    def _targets(self, integ: str) -> list[Any]:
        """The target tables of an integrate location (resolved; they may not exist)."""
        from syncpoint.core.rounds import target_name

        side = self._integrate(integ)
        return list(
            {
                str(ref): ref
                for src in self.cfg.sources_of(integ)
                for t in self.cfg.tables_at(src)
                for ref in [side.resolve(*target_name(t, src), self.cfg.locations[src].vendor)]
            }.values()
        )

    def _cascade_groups(self, name: str, cap: Capture, conn: Any) -> list[str]:
        """Cascades the capture cannot see between two replicated tables of different sync
        groups: a round makes them with the parent's changes, in the parent's group only
        (docs/log-capture.md, "Foreign keys with cascades")."""
        fks = cap.cascades(conn) if cap.unseen_cascades else []
        if not fks:
            return []
        at = {t.ref.name: t for t in self.cfg.tables_at(name)}
        try:
            group = {str(t.ref): g for g, ts in self.cfg.groups().items() for t in ts}
        except ConfigError:
            return []  # the file's own problem, said with the others
        sqlite = [
            i
            for i, loc in self.cfg.integrate_locations().items()
            if loc.vendor == "sqlite" and name in self.cfg.sources_of(i)
        ]
        out = []
        for fk in fks:
            child, parent = at.get(fk.child), at.get(fk.parent)
            if child and parent and sqlite:
                out.append(
                    f"table {fk.child}: foreign key {fk.name!r} to {fk.parent!r} has "
                    f"{fk.rules}, which the rounds make at the target, and a SQLite target "
                    f"({', '.join(sqlite)}) cannot take them yet: replicate these tables to "
                    "PostgreSQL or MariaDB"
                )
            elif child and parent and group[str(child.ref)] != group[str(parent.ref)]:
                out.append(
                    f"table {fk.child}: foreign key {fk.name!r} to {fk.parent!r} has "
                    f"{fk.rules}, which the rounds make at the target with the changes of "
                    f"{fk.parent!r}: put {fk.child!r} in the sync group of {fk.parent!r} "
                    f"({group[str(parent.ref)]})"
                )
        return out

    def _new_file_target(self, name: str) -> bool:
        return self.location(name).file_not_made

    def _refuse_problems(self, made_here: frozenset[str] = frozenset()) -> None:
        """Refuse on any problem but the missing target files of ``made_here``."""
        problems = self.validate()
        flat = [
            f"{self.source}: {loc}: {p}"
            for loc, ps in problems.items()
            for p in ps
            if not (loc in made_here and p == _no_target_file(self.location(loc).url))
        ]
        if flat:
            raise ConfigError(f"{self.source}: the channel cannot be installed", flat)

    @_changes_nothing
    def plan(self) -> dict[str, list[str]]:
        """Per location, what ``install`` runs at a capture location, and what the first
        ``snapshot`` or ``run`` makes at an integrate location (its control tables, and the
        target tables that are missing)."""
        from syncpoint.core.rounds import target_name

        out: dict[str, list[str]] = {}
        for name in self.cfg.capture_locations():
            with self.location(name).capture() as (cap, conn):
                out[name] = cap.plan(conn, self.cfg.tables_at(name))
        for integ in self.cfg.integrate_locations():
            side = self.location(integ).integrate_side
            targets = sorted(
                {
                    str(side.resolve(*target_name(t, src), self.cfg.locations[src].vendor))
                    for src in self.cfg.sources_of(integ)
                    for t in self.cfg.tables_at(src)
                }
            )
            out.setdefault(integ, []).extend(
                [
                    f"-- at {integ}, the first snapshot or run creates the control tables "
                    "(install changes nothing here):",
                    *side.statements("create"),
                    "-- and each missing target table, with the columns of its source: "
                    + ", ".join(targets),
                ]
            )
        return out

    def install(self) -> dict[str, str]:
        """Install capture at every capture location; refuses (exit 2) before touching
        anything when validation finds a problem. A location that fails is rolled back."""
        new = frozenset(
            n
            for n, loc in self.cfg.locations.items()
            if not loc.capture and self._new_file_target(n)
        )
        self._refuse_problems(new)
        done: dict[str, str] = {}
        for name in sorted(new):
            self.location(name).make_file()
            done[name] = "created (an empty SQLite database)"
        for name in self.cfg.capture_locations():
            with self.location(name).capture() as (cap, conn):
                cap.install(conn, self.cfg.tables_at(name))
                # tables that wait for a snapshot; `snapshot: none` ones never do
                waiting = {str(t.ref) for t in self.cfg.tables_at(name) if t.snapshot != "none"}
                empty = [t for t in cap.empty_at_install if t in waiting]
                stream = cap.stream_id(conn)
                _end(conn)
            done[name] = "installed"
            if empty:
                self._loaded_empty(name, empty, stream)
        return done

    def _loaded_empty(self, name: str, tables: list[str], stream: str) -> None:
        """Tables empty at install need no snapshot: recorded as loaded at each integrate
        location they go to (a location not reachable now keeps refusing them until
        ``snapshot`` loads them, as before)."""
        from syncpoint.ops import snapshot_state as st

        for integ in self.cfg.integrate_locations():
            if integ == name or name not in self.cfg.sources_of(integ):
                continue
            try:
                with self.location(integ).integrate() as (target, conn):
                    st.record_empty(target, conn, self.cfg.application, name, tables, stream)
            except SyncpointError as exc:
                log.warning("%s: tables empty at install not recorded: %s", integ, exc)

    def migrate(self, location: str, statements: list[str]) -> int:
        """Run an application's schema migration at a capture location so that capture
        follows it (see ``Capture.run_ddl``); returns the DDL records written."""
        if location not in self.cfg.capture_locations():
            raise ConfigError(
                f"{self.source}: location {location!r} is not a capture location of this channel"
            )
        if not statements:
            raise ConfigError("migrate: give the SQL statements to run after --")
        with self.location(location).capture() as (cap, conn):
            try:
                return cap.run_ddl(conn, statements)
            except SyncpointError:
                raise
            except Exception as exc:  # the application's own SQL failed: say so, exit 1
                raise WorkFailed(
                    f"the migration failed (rolled back where the database allows): {exc}",
                    location=location,
                ) from exc

    def uninstall(self, keep_positions: bool = False) -> dict[str, str]:
        """Remove every object of the prefix at every location: conflict bookkeeping where
        a table is under conflict resolution, capture objects where it captures, control
        tables (positions, sync points, stops, staging, stamps, gate) wherever they were
        made; ``keep_positions`` keeps positions, sync points and stamps."""
        from syncpoint.ops.cdr.setup import remove_at

        done: dict[str, str] = {}
        for name in self._existing_locations():
            if self.cfg.locations[name].capture and self.cfg.locations[name].integrate:
                remove_at(self.cfg, name)
            if self.cfg.locations[name].capture:
                with self.location(name).capture() as (cap, conn):
                    cap.uninstall(conn)
            with self.location(name).integrate() as (integ, conn):
                integ.uninstall(conn, keep_positions)
            done[name] = "uninstalled"
        return done

    @_changes_nothing
    def plan_uninstall(self, keep_positions: bool = False) -> dict[str, list[str]]:
        """Per location, the SQL ``uninstall`` would run now; changes nothing."""
        out: dict[str, list[str]] = {}
        for name in self._existing_locations():
            stmts: list[str] = []
            if self.cfg.locations[name].capture:
                with self.location(name).capture() as (cap, conn):
                    stmts += cap.uninstall_plan(conn)
            with self.location(name).integrate() as (integ, conn):
                stmts += integ.uninstall_statements(conn, keep_positions)
            out[name] = stmts
        return out

    def _integrate(self, location: str) -> Any:
        return self.location(location).integrate_side

    def _existing_locations(self) -> list[str]:
        """Locations to remove objects from: a database file that does not exist holds
        none (and connecting would create it)."""
        return [n for n in self.cfg.locations if not self.location(n).file_missing]

    @_changes_nothing
    def capture_status(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.cfg.capture_locations():
            try:
                with self.location(name).capture() as (cap, conn):
                    st = cap.status(conn)  # reads only: DDL is polled by runs, not here
                out[name] = _status_dict(st)
            except WorkFailed as exc:
                out[name] = {"error": str(exc)}
        return out

    # -- run / purge / integrate status (syncpoint.ops.run) ----------------------------------
    def run(
        self,
        once: bool = True,
        follow: bool = False,
        interval: float = 1.0,
        group: str | None = None,
        spark: Any = None,
        on_report: Any = None,
    ) -> Any:
        """Rounds to fresh sync points (``once``) or again and again (``follow``, until
        SIGTERM/SIGINT). Returns a ``runner.RunReport``; raises ``TableStopped`` (exit 1)
        when a table's rounds stopped."""
        from syncpoint.ops import run as runner

        return runner.run(
            self.cfg,
            once=once,
            follow=follow,
            interval=interval,
            group=group,
            spark=spark,
            on_report=on_report,
            after_pass=self._load_transport if self.cfg.transport and group is None else None,
        )

    def _load_transport(self, report: Any) -> None:
        """The consumer turn of the transport gate after the rounds (docs/recipes.md): the transport
        tables are loaded in full when the producer has finished a batch; a refused turn
        (a failed earlier load) ends the run with exit 3."""
        from syncpoint.ops.transport import load_transport

        report.transport.append(load_transport(self))

    def purge(self) -> dict[str, Any]:
        """Delete the change records every registered application has applied."""
        from syncpoint.ops.purge import purge

        return purge(self.cfg)

    @_changes_nothing
    def integrate_status(self, known: Any = None) -> dict[str, Any]:
        """Per integrate location and table: position, sync point, backlog, lag, stops
        (``known``: positions read before, for a location that cannot be read now)."""
        from syncpoint.ops.status import integrate_status

        return integrate_status(self.cfg, known)

    @_changes_nothing
    def stamps_status(self) -> dict[str, Any]:
        """Per integrate location: leader, trailer and every capture location's receive stamp
        (docs/objects.md ``{p}stin_{channel}_{loc}``) with its age."""
        from syncpoint.vendors.stampstore import StampStore

        out: dict[str, Any] = {}
        for integ in self.cfg.integrate_locations():
            sources = self.cfg.sources_of(integ)
            vendor = self.location(integ).vendor
            store = StampStore(vendor, self.cfg.prefix, self.cfg.channel, integ)
            if self._new_file_target(integ):
                out[integ] = None  # no run has made the file yet: no stamps (not created here)
                continue
            try:
                with self.connection(integ) as conn:
                    out[integ] = store.report(conn, sources)
            except WorkFailed as exc:
                out[integ] = {"error": str(exc)}
        return out

    def snapshot(
        self,
        tables: list[str] | None = None,
        location: str | None = None,
        *,
        truncate: bool = False,
        restart: bool = False,
        spark: Any = None,
        on_progress: Any = None,
    ) -> dict[str, Any]:
        """Load the existing rows of the tables into every integrate location and hand
        over to rounds (``syncpoint.ops.snapshot``)."""
        from syncpoint.ops.snapshot import snapshot

        return snapshot(
            self.cfg,
            tables,
            location,
            truncate=truncate,
            restart=restart,
            spark=spark,
            on_progress=on_progress,
        )

    def verify(
        self,
        tables: list[str] | None = None,
        *,
        repair: bool = False,
        recheck: bool = True,
        spark: Any = None,
    ) -> Any:
        """Compare each target table with its sources; a ``VerifyReport``
        (``syncpoint.ops.verify``)."""
        from syncpoint.ops.verify import verify

        return verify(self.cfg, tables, repair=repair, recheck=recheck, spark=spark)

    @_changes_nothing
    def snapshot_status(self) -> dict[str, Any]:
        """Per integrate location: each snapshot's state, rows copied and estimated, rate."""
        from syncpoint.ops.snapshot_state import status

        out: dict[str, Any] = {}
        for integ in self.cfg.integrate_locations():
            if self._new_file_target(integ):
                out[integ] = []  # no run has made the file yet (not created here)
                continue
            try:
                out[integ] = status(self.cfg, integ)
            except WorkFailed as exc:
                out[integ] = {"error": str(exc)}
        return out

    @_changes_nothing
    def gate_status(self) -> dict[str, Any]:
        """Every gate of this prefix at the transport and integrate locations."""
        from syncpoint.ops.gate import gate_states

        out = gate_states(self.cfg)
        # a SQLite file no run has made yet holds no gate (and is not created to look)
        return {n: [] if self._new_file_target(n) else v for n, v in out.items()}


def _status_dict(st: Any) -> dict[str, Any]:
    from dataclasses import asdict

    return asdict(st)


def _no_target_file(url: str) -> str:
    from syncpoint import vendors

    file = vendors.of_url(url).dialect.file_of(url)
    return (
        f"SQLite file {file} does not exist; `install` creates it (an empty database), "
        "or correct the path"
    )


def _end(conn: Any) -> None:
    """End the read a driver opened (the install itself committed)."""
    try:
        conn.rollback()
    except Exception:  # noqa: BLE001 - a lost connection: nothing is held
        pass
