"""Checking a snapshot request before anything is copied (bad input: exit 2, nothing
touched): the tables are in the channel, the location captures, each table has a key at
the source, the partition column exists, and an existing target can hold the source's
columns. Produces one ``Pair`` per (integrate location, capture location, table)."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from syncpoint import vendors
from syncpoint.config import ChannelConfig, TableConfig
from syncpoint.core import types
from syncpoint.core.model import TableShape
from syncpoint.core.rounds import target_name
from syncpoint.errors import ConfigError, SyncpointError, UsageError
from syncpoint.ops.location import Location


@dataclass
class Pair:
    integrate: str
    location: str
    table: TableConfig
    key: tuple[str, ...]
    partition: str
    integer: bool  # the partition column holds integers: chunks by range
    shape: TableShape


def select(
    cfg: ChannelConfig, tables: list[str] | None, location: str | None
) -> list[tuple[str, TableConfig]]:
    """(capture location, table) pairs asked for; ``UsageError``/``ConfigError`` (exit 2)."""
    if location is not None and location not in cfg.capture_locations():
        raise UsageError(
            f"--location {location}: not a capture location of channel {cfg.channel} "
            f"(capture locations: {', '.join(cfg.capture_locations()) or 'none'})"
        )
    if not cfg.integrate_locations():
        raise UsageError(f"channel {cfg.channel} has no integrate location to load into")
    chosen = [cfg.table(t) for t in tables] if tables else list(cfg.tables)
    locs = [location] if location else list(cfg.capture_locations())
    out = [(loc, t) for loc in locs for t in chosen if t in cfg.tables_at(loc)]
    if tables and location and not out:
        raise UsageError(f"none of the tables given is captured at {location}")
    return out


def check(
    cfg: ChannelConfig, pairs: list[tuple[str, TableConfig]], describe: Any, target_shape: Any
) -> list[Pair]:
    """``describe(loc, ref)`` -> source TableShape or None; ``target_shape(integ, loc, t)`` ->
    (target TableShape-like or None, target vendor). Every problem is listed at once."""
    problems: list[str] = []
    out: list[Pair] = []
    for loc, t in pairs:
        try:
            shape = describe(loc, t.ref)
        except SyncpointError as exc:
            problems.append(f"{loc}: {t.name}: {exc}")
            continue
        if shape is None:
            problems.append(f"{loc}: table {t.name} does not exist there")
            continue
        key = tuple(t.key or shape.primary_key)
        if not key:
            problems.append(
                f"{loc}: table {t.name} has no primary key and no key: in its entry; a "
                "snapshot replaces target rows by key"
            )
            continue
        part = t.snapshot_partition or key[0]
        col = shape.column(part)
        if col is None:
            problems.append(f"{loc}: table {t.name}: partition column {part!r} does not exist")
            continue
        vendor = cfg.locations[loc].vendor
        integer = vendors.get(vendor).types.parse(col.type).kind == "int"
        for integ in cfg.integrate_locations():
            if integ == loc:
                continue
            tshape, tvendor = target_shape(integ, loc, t)
            problems += _fits(loc, integ, t, shape, vendor, tshape, tvendor)
            out.append(Pair(integ, loc, t, key, part, integer, shape))
    if problems:
        raise ConfigError("the snapshot cannot start; nothing was copied", problems)
    return out


def _fits(
    loc: str, integ: str, t: TableConfig, src: TableShape, vendor: str, dst: Any, tvendor: str
) -> list[str]:
    if dst is None:
        return []  # created from the source's columns, as rounds create it
    problems = []
    for c in src.columns:
        tc = dst.column(c.name)
        if tc is None:
            if t.ddl_policy != "apply":  # under apply the snapshot adds it, as rounds would
                problems.append(
                    f"{integ}: target of {t.name} has no column {c.name!r} (source {loc} has "
                    "it): add it at the target, or set ddl_policy: apply for the table to "
                    "let the snapshot add it"
                )
            continue
        # between vendors the declared types differ in form (SQLite's affinities, time zone
        # handling): values are checked as each row is applied ("value does not fit")
        a = vendors.get(vendor).types.parse(c.type)
        b = vendors.get(tvendor).types.parse(tc.type)
        if vendor == tvendor and a.kind == b.kind and not types.widens(a, b):
            problems.append(
                f"{integ}: target column {c.name!r} of {t.name} ({tc.type}) cannot hold the "
                f"source's {c.type} from {loc}"
            )
    return problems


def catalogs(cfg: ChannelConfig) -> tuple[Any, Any]:
    """Read-only catalog lookups for ``plan.check``: source shapes, target shapes (a
    connection per lookup; ``CatalogReads`` keeps one per location)."""

    def describe(loc: str, ref: Any) -> Any:
        with Location.of(cfg, loc).capture() as (cap, conn):
            return cap.describe(conn, ref)

    def target_shape(integ: str, loc: str, t: TableConfig) -> tuple[Any, str]:
        with Location.of(cfg, integ).integrate() as (tgt, conn):
            name, explicit = target_name(t, loc)
            ref = tgt.resolve(name, explicit, cfg.locations[loc].vendor)
            return tgt.describe(conn, ref), tgt.vendor

    return describe, target_shape


class CatalogReads:
    """The lookups of ``catalogs`` over one connection per location, opened on first use
    and closed on exit: a plan of many tables pays a connection per location, not two
    per table (each connection costs a fork and an authentication at the server)."""

    def __init__(self, cfg: ChannelConfig):
        self.cfg = cfg
        self._stack = ExitStack()
        self._sides: dict[tuple[str, bool], tuple[Any, Any]] = {}
        self._sources: dict[tuple[str, str], Any] = {}  # (location, table): shape
        self._targets: dict[tuple[str, str, str], Any] = {}  # (integrate, location, table)

    def __enter__(self) -> CatalogReads:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def _side(self, loc: str, capture: bool) -> tuple[Any, Any]:
        if (loc, capture) not in self._sides:
            place = Location.of(self.cfg, loc)
            side = self._stack.enter_context(place.capture() if capture else place.integrate())
            self._sides[(loc, capture)] = side
        return self._sides[(loc, capture)]

    def prefetch(self, pairs: list[tuple[str, TableConfig]]) -> None:
        """The shapes ``check`` will ask for, read in one query per location where its
        vendor can (a read that fails here is made again alone, which names its table)."""
        by_loc: dict[str, list[TableConfig]] = {}
        for loc, t in pairs:
            by_loc.setdefault(loc, []).append(t)
        for loc, ts in by_loc.items():
            try:
                cap, conn = self._side(loc, True)
                shapes = cap.describe_many(conn, [t.ref for t in ts])
                self._sources.update({(loc, str(t.ref)): shapes[str(t.ref)] for t in ts})
            except SyncpointError:
                self._rollback(loc, True)
            for integ in self.cfg.integrate_locations():
                if integ != loc:
                    self._prefetch_targets(integ, loc, ts)

    def _prefetch_targets(self, integ: str, loc: str, ts: list[TableConfig]) -> None:
        try:
            tgt, conn = self._side(integ, False)
            refs = {str(t.ref): self._target_ref(tgt, loc, t) for t in ts}
            shapes = tgt.describe_many(conn, list(refs.values()))
            for table, ref in refs.items():
                self._targets[(integ, loc, table)] = shapes[str(ref)]
        except SyncpointError:
            self._rollback(integ, False)

    def _rollback(self, loc: str, capture: bool) -> None:
        if (loc, capture) in self._sides:
            try:
                self._sides[(loc, capture)][1].rollback()
            except Exception:  # noqa: BLE001 - a broken connection fails the next read
                pass

    def _target_ref(self, tgt: Any, loc: str, t: TableConfig) -> Any:
        name, explicit = target_name(t, loc)
        return tgt.resolve(name, explicit, self.cfg.locations[loc].vendor)

    def describe(self, loc: str, ref: Any) -> Any:
        if (loc, str(ref)) in self._sources:
            return self._sources[(loc, str(ref))]
        cap, conn = self._side(loc, True)
        return cap.describe(conn, ref)

    def target_shape(self, integ: str, loc: str, t: TableConfig) -> tuple[Any, str]:
        tgt, conn = self._side(integ, False)
        if (integ, loc, str(t.ref)) in self._targets:
            return self._targets[(integ, loc, str(t.ref))], tgt.vendor
        return tgt.describe(conn, self._target_ref(tgt, loc, t)), tgt.vendor


def by_group(cfg: ChannelConfig, pairs: list[Pair]) -> list[list[Pair]]:
    """The pairs per (integrate location, capture location, sync group), in the order
    they were asked for: the tables copied from one source state and handed over together."""
    group_of = {str(t.ref): g for g, ts in cfg.groups().items() for t in ts}
    out: dict[tuple[str, str, str], list[Pair]] = {}
    for p in pairs:
        out.setdefault((p.integrate, p.location, group_of[str(p.table.ref)]), []).append(p)
    return list(out.values())


def fed_alone(cfg: ChannelConfig, pair: Pair) -> bool:
    """Whether the pair's target table holds its capture location's rows alone, so that a
    target row the copy did not read is one the source no longer has. Not where other
    capture locations feed the same target table, nor where the integrate location
    captures the table itself (its own writes, on their way to the others)."""
    name = str(pair.table.ref)

    def captures(loc: str) -> bool:
        return loc in cfg.capture_locations() and name in {str(t.ref) for t in cfg.tables_at(loc)}

    if captures(pair.integrate):
        return False
    mine = str(target_name(pair.table, pair.location)[0])
    return not any(
        loc != pair.location and captures(loc) and str(target_name(pair.table, loc)[0]) == mine
        for loc in cfg.sources_of(pair.integrate)
    )
