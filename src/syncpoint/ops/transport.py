"""Transport tables loaded through a gate, with syncpoint as the consumer.

A channel may name transport tables that an operational system's batch producer fills at
one location, and the gate that guards them::

    transport: {gate: nightly, location: dec01, tables: [tr_orders, tr_lines]}

``load_transport(channel)`` takes the consumer's turn of that gate, copies each table in
full into every integrate location (one target transaction per table and location) and
releases the gate; with nothing to load it says so and touches nothing. Rows go through
plain drivers, streamed, not Spark: why in docs/internals.md, "Transport tables".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from syncpoint import vendors
from syncpoint.config import TableName, parse_table_name
from syncpoint.core.model import Column
from syncpoint.errors import ConfigError, GateBusy, WorkFailed
from syncpoint.ops.gate import gate
from syncpoint.ops.location import Location
from syncpoint.vendors.sqlfiles import SqlFiles

if TYPE_CHECKING:
    from syncpoint.ops.channel import Channel

BATCH = 5000


class _Side:
    """One location's end of a copy: its vendor module, quoting and SQL files."""

    def __init__(self, place: Location):
        self.place, self.location = place, place.name
        self.vendor = place.vendor
        self.dialect = vendors.get(self.vendor).dialect
        self.types = vendors.get(self.vendor).types
        self.io = vendors.get(self.vendor).transport
        self.files = SqlFiles(self.vendor, "transport", location=self.location)

    def ref(self, t: TableName) -> TableName:
        """The table's name here: vendors without schemas keep only the table name."""
        return t if self.dialect.HAS_SCHEMAS else TableName(name=t.name)

    def qualified(self, t: TableName) -> str:
        parts = [t.schema_, t.name] if t.schema_ else [t.name]
        return ".".join(self.dialect.quote(p) for p in parts)

    def sql(self, name: str, **raw: str) -> str:
        return self.files.one(name, raw=raw)

    def columns(self, conn: Any, t: TableName) -> list[Column]:
        params = (t.schema_, t.name)
        with self.dialect.translated(self.location, str(t)):
            cur = conn.cursor()
            cur.execute(self.sql("columns"), params)
            rows = cur.fetchall()
            conn.commit()
        return [Column(r[0], str(r[1] or "").lower(), bool(r[2]), r[3]) for r in rows]


def _definitions(src: _Side, dst: _Side, cols: list[Column]) -> str:
    """Column definitions at ``dst``: the same declared types between one vendor, the types a
    round would create between vendors (then without a primary key: create the table
    beforehand to have one)."""
    q = dst.dialect.quote
    if src.vendor == dst.vendor:
        defs = [
            f"{q(c.name)} {c.type or ''}".rstrip() + ("" if c.nullable else " NOT NULL")
            for c in cols
        ]
        key = [c.name for c in sorted((c for c in cols if c.pk), key=lambda c: c.pk or 0)]
        if key:
            defs.append("PRIMARY KEY (" + ", ".join(q(k) for k in key) + ")")
        return ", ".join(defs)
    return ", ".join(f"{q(c.name)} {dst.types.render(src.types.parse(c.type))}" for c in cols)


def _copy(src: _Side, dst: _Side, table: TableName) -> int:
    """Replace the content of ``table`` at ``dst`` with its content at ``src``."""
    with src.place.connect() as sconn, dst.place.connect() as dconn:
        cols = src.columns(sconn, table)
        if not cols:
            raise WorkFailed(
                f"transport table {table} does not exist; the producer fills it "
                "(check transport.tables in the channel file)",
                location=src.location,
                table=str(table),
            )
        there = dst.ref(table)
        target_cols = {c.name: c for c in dst.columns(dconn, there)}
        name = dst.qualified(there)
        with dst.dialect.translated(dst.location, str(there)):
            if not target_cols:
                dconn.cursor().execute(
                    dst.sql("create", table=name, definitions=_definitions(src, dst, cols))
                )
                dconn.commit()
                target_cols = {c.name: c for c in dst.columns(dconn, there)}
        missing = [c.name for c in cols if c.name not in target_cols]
        if missing:
            raise WorkFailed(
                f"the copy of transport table {table} lacks columns {', '.join(missing)}; "
                "add them or drop the copy so that it is created again",
                location=dst.location,
                table=str(there),
            )
        column_types = [dst.types.parse(target_cols[c.name].type) for c in cols]
        names = ", ".join(src.dialect.quote(c.name) for c in cols)
        select = src.sql("select", columns=names, table=src.qualified(table))
        insert = dst.sql(
            "insert",
            table=name,
            columns=", ".join(dst.dialect.quote(c.name) for c in cols),
            params=", ".join([dst.dialect.PARAM] * len(cols)),
        )
        count = 0
        with dst.dialect.translated(dst.location, str(there)):
            dst.io.begin_write(dconn)
            dcur = dconn.cursor()
            dcur.execute(dst.sql("delete", table=name))
            with src.dialect.translated(src.location, str(table)):
                scur = src.io.stream(sconn, select)
                while batch := scur.fetchmany(BATCH):
                    rows = [
                        tuple(dst.io.adapt(v, t) for v, t in zip(r, column_types, strict=True))
                        for r in batch
                    ]
                    dcur.executemany(insert, rows)
                    count += len(rows)
                scur.close()
                sconn.commit()
            dconn.commit()
        return count


def load_transport(channel: Channel, *, wait: float = 0.0) -> dict[str, Any]:
    """Take the consumer turn of the channel's transport gate and copy its tables into every
    integrate location (see the module docstring). Returns what was done::

        {"gate", "location", "loaded": bool, "found", "tables": {table: {location: rows}},
         "skipped": [...], "reason": str (when not loaded)}

    Raises ``GateRefused`` (exit 3) when a previous consumer run failed, and ``WorkFailed``
    (exit 1, the gate stays ``WarehouseLoading``) when the copy fails."""
    cfg = channel.cfg
    tr = cfg.transport
    if tr is None:
        raise ConfigError(f"{channel.source}: transport: the channel names no transport tables")
    src = _Side(channel.location(tr.location))
    targets = [_Side(channel.location(n)) for n in sorted(cfg.integrate_locations())]
    out: dict[str, Any] = {"gate": tr.gate, "location": tr.location, "loaded": False}
    out["skipped"] = [t.location for t in targets if t.location == tr.location]
    targets = [t for t in targets if t.location != tr.location]
    tables = [parse_table_name(t) for t in tr.tables]
    try:
        with gate(
            src.place.url,
            tr.gate,
            "consumer",
            wait=wait,
            prefix=cfg.prefix,
            location=tr.location,
            command=f"syncpoint run (channel {cfg.channel}, application {cfg.application})",
        ) as turn:
            out["found"] = str(turn.found)
            out["tables"] = {
                str(t): {d.location: _copy(src, d, t) for d in targets} for t in tables
            }
    except GateBusy as exc:
        out["reason"] = exc.message
        return out
    out["loaded"] = True
    return out
