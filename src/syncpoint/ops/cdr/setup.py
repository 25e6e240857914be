"""``cdr add|alter|remove``: a table's conflict bookkeeping at every site of the channel.

A site is a location that both captures and integrates the table. Everything is checked at
every site before anything is changed (the table's columns and key, the column groups, the
vendor); a problem is a ``ConfigError`` (exit 2, nothing changed). Each site is then changed
in one transaction of its own; when a later site fails, the sites already done are put
back, so the channel is never left half under conflict resolution.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from syncpoint import vendors
from syncpoint.config import ChannelConfig, TableConfig, TableName, earliest_in_a_loop
from syncpoint.core import cdr
from syncpoint.errors import ConfigError
from syncpoint.ops import cdr as ops
from syncpoint.ops.location import Location
from syncpoint.ops.location import close as close_connection
from syncpoint.vendors.cdrbase import CdrTable

_PLAIN = re.compile(r"^[a-z][a-z0-9_]{0,30}$")


@dataclass
class Site:
    name: str
    integ: Any
    helper: Any
    conn: Any
    ref: TableName
    columns: list[str]
    key: list[str]


def _sites(cfg: ChannelConfig, t: TableConfig) -> list[str]:
    return [
        n
        for n, loc in cfg.locations.items()
        if loc.capture and loc.integrate and (t.locations is None or n in t.locations)
    ]


def _open(cfg: ChannelConfig, t: TableConfig, table: str) -> list[Site]:
    problems: list[str] = []
    sites = _sites(cfg, t)
    if len(sites) < 2:
        problems.append(
            f"{table} is captured and integrated at {len(sites)} location(s) of channel "
            f"{cfg.channel}; conflict resolution needs two or more sites"
        )
    only_capture = [
        n
        for n, loc in cfg.locations.items()
        if loc.capture and not loc.integrate and (t.locations is None or n in t.locations)
    ]
    if only_capture:
        problems.append(
            f"{table} is also captured at {', '.join(only_capture)}, which does not integrate: "
            "its changes would carry no versions to resolve by"
        )
    if problems:
        raise ConfigError("\n".join(problems))
    out: list[Site] = []
    try:
        for n in sites:
            place = Location.of(cfg, n)
            if place.file_missing:
                dialect = vendors.get(place.vendor).dialect
                problems.append(
                    f"{n}: the {dialect.TITLE} file {dialect.file_of(place.url)} does not "
                    "exist (install)"
                )
                continue
            integ = place.integrate_side
            helper = ops.support(integ)
            if helper is None:
                problems.append(
                    f"{n}: conflict resolution is not built for {place.vendor} yet "
                    f"(supported: {', '.join(ops.SUPPORTED)})"
                )
                continue
            conn = integ.connect()
            ref = integ.resolve(t.ref, False, integ.vendor)
            shape = integ.describe(conn, ref)
            if shape is None:
                close_connection(conn)
                problems.append(f"{n}: table {ref} does not exist")
                continue
            mark = cdr.bookkeeping_prefix(cfg.prefix)
            cols = [c.name for c in shape.columns if not c.name.startswith(mark)]
            key = list(t.key or ())
            if not key:
                with place.capture() as (cap, cconn):
                    found = cap.describe(cconn, t.ref)
                key = list(found.primary_key) if found is not None else []
            problems += _key_types(n, integ.vendor, shape, key)
            problems += [
                f"{n}: key column {k!r} of {ref} compares {why}: conflict resolution needs "
                "key columns equal only for the same text (a row's key changed from 'abc' to "
                "'ABC' arrives as the delete of one and the insert of the other, which find "
                "one row here, and deleted keys are matched by their text); give the column "
                "a byte-exact type or collation, or keep the table out of conflict resolution"
                for k, why in integ.loose_keys(conn, shape, key).items()
            ]
            out.append(Site(n, integ, helper, conn, ref, cols, key))
    except BaseException:
        close(out)
        raise
    if problems:
        close(out)
        raise ConfigError("\n".join(problems))
    return out


# a deleted key is found again by its values' JSON text, which these write one way only
KEY_KINDS = ("int", "text", "uuid")


def _key_types(site: str, vendor: str, shape: Any, key: list[str]) -> list[str]:
    from syncpoint import vendors

    parse = vendors.get(vendor).types.parse
    out = []
    for k in key:
        col = shape.column(k)
        if col is not None and parse(col.type).kind not in KEY_KINDS:
            out.append(
                f"{site}: key column {k!r} is {col.type}: conflict resolution needs key columns "
                "of integer, text or uuid types (deleted keys are matched by their values)"
            )
    return out


def close(sites: list[Site]) -> None:
    for s in sites:
        close_connection(s.conn)


def _setting(
    cfg: ChannelConfig,
    t: TableConfig,
    sites: list[Site],
    resolution: str | None,
    groups: dict[str, list[str]] | None,
) -> Any:
    conf = (
        cfg.conflicts.get(t.ref.short) or cfg.conflicts.get(t.name) or cfg.conflicts.get(str(t.ref))
    )
    resolution = resolution or (conf.resolution if conf else "latest")
    if resolution not in cdr.RESOLUTIONS:
        raise ConfigError(f"--resolution must be one of {', '.join(cdr.RESOLUTIONS)}")
    loop = cfg.cycle(t) if resolution == "earliest" else None
    if loop:
        raise ConfigError(f"{t.ref}: {earliest_in_a_loop(loop)}")
    if groups is None:
        groups = dict(conf.column_groups) if conf else {}
    problems = [
        f"column group name {g!r} must be a plain lowercase name"
        for g in groups
        if not _PLAIN.match(g)
    ]
    for s in sites:
        problems += [
            f"{s.name}: {p}" for p in cdr.check_groups(str(t.ref), groups, s.columns, s.key)
        ]
    if not sites[0].key:
        problems.append(f"{t.ref} has no primary key and no key: in its entry")
    if problems:
        raise ConfigError("\n".join(problems))
    return CdrTable(str(t.ref), resolution, groups, sites[0].key)


def plan_add(
    cfg: ChannelConfig, table: str, resolution: str | None, groups: dict[str, list[str]] | None
) -> dict[str, list[str]]:
    """The SQL ``cdr add`` would run, per site (nothing is changed)."""
    t = cfg.table(table)
    sites = _open(cfg, t, table)
    try:
        setting = _setting(cfg, t, sites, resolution, groups)
        return {
            s.name: s.helper.add_statements(str(t.ref), s.ref, setting, s.columns, s.name)
            for s in sites
        }
    finally:
        close(sites)


def add(
    cfg: ChannelConfig, table: str, resolution: str | None, groups: dict[str, list[str]] | None
) -> dict[str, Any]:
    t = cfg.table(table)
    sites = _open(cfg, t, table)
    try:
        setting = _setting(cfg, t, sites, resolution, groups)
        for s in sites:
            ops.ensure(s.integ, s.helper, s.conn)
            if str(t.ref) in s.helper.settings(s.conn):
                raise ConfigError(
                    f"{s.name}: {t.ref} is under conflict resolution already; "
                    "use cdr alter or cdr remove"
                )
            s.conn.rollback()
        done: list[Site] = []
        try:
            for s in sites:
                # where DDL commits by itself, a failure half-way is taken back like a done site
                done += [] if s.helper.TRANSACTIONAL_DDL else [s]
                s.helper.add(s.conn, str(t.ref), s.ref, setting, s.columns, s.name)
                s.conn.commit()
                done += [s] if s.helper.TRANSACTIONAL_DDL else []
        except BaseException:
            for s in sites:
                s.conn.rollback()
            for s in done:
                s.helper.remove(s.conn, str(t.ref), s.ref, setting)
                s.conn.commit()
            raise
        return {
            "table": str(t.ref),
            "resolution": setting.resolution,
            "column_groups": setting.groups,
            "sites": [s.name for s in sites],
        }
    finally:
        close(sites)


def remove(cfg: ChannelConfig, table: str) -> dict[str, Any]:
    t = cfg.table(table)
    sites = _open(cfg, t, table)
    try:
        removed = []
        for s in sites:
            setting = s.helper.settings(s.conn).get(str(t.ref))
            if setting is None:
                s.conn.rollback()
                continue
            s.helper.remove(s.conn, str(t.ref), s.ref, setting)
            s.conn.commit()
            removed.append(s.name)
        if not removed:
            raise ConfigError(f"{t.ref} is not under conflict resolution at any site")
        return {"table": str(t.ref), "sites": removed}
    finally:
        close(sites)


def alter(
    cfg: ChannelConfig, table: str, resolution: str | None, groups: dict[str, list[str]] | None
) -> dict[str, Any]:
    """A new resolution only: the stored setting changes. New column groups: the
    bookkeeping is made again (versions and tombstones start afresh; run it while the
    sites are in step)."""
    t = cfg.table(table)
    sites = _open(cfg, t, table)
    try:
        for s in sites:
            ops.ensure(s.integ, s.helper, s.conn)
        current = {s.name: s.helper.settings(s.conn).get(str(t.ref)) for s in sites}
        for s in sites:
            s.conn.rollback()
        if any(v is None for v in current.values()):
            raise ConfigError(f"{t.ref} is not under conflict resolution at every site; cdr add")
        first = next(iter(current.values()))
        new_groups = first.groups if groups is None else groups
        setting = _setting(cfg, t, sites, resolution or first.resolution, new_groups)
        for s in sites:
            if setting.groups == current[s.name].groups:
                s.helper.set_resolution(s.conn, str(t.ref), setting.resolution)
            else:
                s.helper.remove(s.conn, str(t.ref), s.ref, current[s.name])
                s.helper.add(s.conn, str(t.ref), s.ref, setting, s.columns, s.name)
            s.conn.commit()
        return {
            "table": str(t.ref),
            "resolution": setting.resolution,
            "column_groups": setting.groups,
            "sites": [s.name for s in sites],
        }
    finally:
        close(sites)


def remove_at(cfg: ChannelConfig, location: str) -> list[str]:
    """Take every table's conflict bookkeeping away at one location (``uninstall`` does it
    first: the bookkeeping's triggers must not outlive capture's objects they read)."""
    from syncpoint.config import parse_table_name

    place = Location.of(cfg, location)
    helper = ops.support(place.integrate_side)
    if helper is None:
        return []
    with place.integrate() as (integ, conn):
        found = helper.settings(conn)
        conn.rollback()
        for table, setting in found.items():
            ref = integ.resolve(parse_table_name(table), False, integ.vendor)
            helper.remove(conn, table, ref, setting)
            conn.commit()
        return list(found)
