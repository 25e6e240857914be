"""Conflict detection and resolution between sites (``syncpoint cdr``).

``setup.py`` adds, alters and removes a table's bookkeeping at every site; this module is
what a round asks: which tables of an integrate location are under conflict resolution,
the read of their change records (with the versions the changes were made from), and the
apply step that decides each incoming change in SQL inside the round's transaction. The
rules are ``core/cdr.py``; the SQL is each vendor's ``sql/cdr/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from syncpoint import vendors
from syncpoint.errors import WorkFailed

SUPPORTED = vendors.NAMES

# sites (url, prefix) whose bookkeeping ``ensure`` found up to date: every round asks for
# the settings, and the catalog's answer does not change while this process runs
_CURRENT: set[tuple[str, str]] = set()


def support(integ: Any) -> Any:
    """The vendor's CDR site (``vendors/<v>/cdr.py``) for an ``Integrate``, or None."""
    if integ.vendor not in SUPPORTED:
        return None
    return vendors.get(integ.vendor).Cdr(integ)


def sites(cfg: Any) -> Iterator[tuple[str, Any, Any]]:
    """(name, integrate side, vendor CDR site) of every location that both captures and
    integrates, where its vendor supports conflict resolution."""
    from syncpoint.ops.location import Location

    for name, loc in cfg.locations.items():
        if not (loc.capture and loc.integrate):
            continue
        integ = Location.of(cfg, name).integrate_side
        helper = support(integ)
        if helper is not None:
            yield name, integ, helper


def settings(integ: Any, conn: Any) -> dict[str, Any]:
    """The tables under conflict resolution at this location, by table name."""
    helper = support(integ)
    if helper is None:
        return {}
    ensure(integ, helper, conn)
    out = helper.settings(conn)
    _idle(conn)
    return out


def ensure(integ: Any, helper: Any, conn: Any) -> None:
    """The bookkeeping of a site made by an older ``cdr add`` brought up to date (outside a
    transaction; MariaDB commits DDL): the tombstones' deleted rows, and the delete
    triggers that write them; where a delete ended without being passed on."""
    from syncpoint.config import parse_table_name
    from syncpoint.core.cdr import bookkeeping_prefix

    site = (integ.url, integ.prefix)
    if site in _CURRENT or not helper.has_tables(conn, "tombstones"):
        return
    # bookkeeping older than ended_here has delete triggers older than the one that writes
    # a tombstone's time anew when a later delete of its incarnation writes it again
    renew = helper.ensure_ended_here(conn)
    if not renew and helper.has_deleted_rows(conn):
        _CURRENT.add(site)
        return
    mark = bookkeeping_prefix(integ.prefix)
    tables = {}
    for table in helper.settings(conn):
        ref = integ.resolve(parse_table_name(table), False, integ.vendor)
        shape = integ.describe(conn, ref)
        if shape is not None:
            tables[table] = (ref, [c.name for c in shape.columns if not c.name.startswith(mark)])
    _idle(conn)
    helper.ensure_deleted_rows(conn, tables, renew)
    _CURRENT.add(site)


def nearest_first(cfg: Any, integrate: str, w: Any) -> list[str]:
    """The origins ``integrate`` takes from window ``w``'s stream, nearest first (the
    fewest sites on their way here; then by name)."""
    def hops(origin: str) -> int:
        path = cfg.route(origin, integrate, w.table)
        return len(path) if path is not None else 1 << 30

    return sorted(w.origins or (w.location,), key=lambda o: (hops(o), o))


def read_query(
    source_integ: Any, plain: str, setting: Any, location: str, origins: Any = None
) -> str:
    """The read of a window of a table under conflict resolution (``setting``: the
    table's, as the reading site keeps it) at the capture location ``location``;
    ``origins``: the reader's, nearest first (``nearest_first``)."""
    helper = support(source_integ)
    if helper is None:
        raise WorkFailed(
            f"conflict resolution is on for {setting.table}, but the site's vendor "
            f"({source_integ.vendor}) has no conflict bookkeeping",
            location=location,
            table=setting.table,
        )
    return str(helper.read_query(plain, setting, origins))


@dataclass
class Step:
    """The apply step of one window of a table under conflict resolution."""

    helper: Any
    setting: Any

    def upsert(self, conn: Any, round_id: str, w: Any, t: Any) -> None:
        self.helper.upsert(conn, round_id, w, t, self.setting)

    def delete(self, conn: Any, round_id: str, w: Any, t: Any) -> None:
        self.helper.delete(conn, round_id, w, t, self.setting)


def steps(integ: Any, conn: Any, windows: list[Any]) -> dict[int, Step]:
    found = settings(integ, conn)
    helper = support(integ)
    return {w.tbl: Step(helper, found[w.table]) for w in windows if w.table in found}


def _idle(conn: Any) -> None:
    try:
        conn.rollback()
    except Exception:  # noqa: BLE001 - a lost connection shows at the next statement
        pass
