"""The neutral type model: ``NType``, a column type independent of vendors, and
``widens(old, new)``, whether a type change at the source is additive (every old value fits
the new type). Each vendor reads its catalog's types into ``NType`` and renders the type of a
created target column from one in ``vendors/<vendor>/types.py``; the choices between
vendors: docs/internals.md, "Types between vendors".
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = (
    "int",
    "decimal",
    "float",
    "bool",
    "text",
    "binary",
    "date",
    "time",
    "timestamp",
    "interval",
    "json",
    "uuid",
    "other",
)


@dataclass(frozen=True)
class NType:
    """A column type, independent of vendors."""

    kind: str
    bits: int | None = None  # int: 8/16/24/32/64; float: 32/64
    unsigned: bool = False
    precision: int | None = None  # decimal digits; for time/timestamp, fractional digits
    scale: int | None = None
    length: int | None = None  # text/binary length limit, None = unlimited
    fixed: bool = False  # char(n) / binary(n)
    tz: bool = False
    source_vendor: str = ""
    declared: str = ""  # the type as the source spelled it

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown type kind {self.kind!r}")

    @property
    def fraction(self) -> int:
        """Fractional second digits of a time or timestamp (6, the most every vendor has,
        when the source says none)."""
        return 6 if self.precision is None else min(self.precision, 6)


def widens(old: NType, new: NType) -> bool:
    """True when every value of ``old`` is a value of ``new`` (a type change that loses
    nothing: int to bigint, varchar(10) to varchar(20) or text, numeric(10,2) to (12,2))."""
    if old == new or (old.kind, old.declared.lower()) == (new.kind, new.declared.lower()):
        return True
    if old.kind != new.kind or old.tz != new.tz:
        return False
    if old.kind == "int":
        if old.unsigned and not new.unsigned:
            return (new.bits or 64) > (old.bits or 64)
        if new.unsigned and not old.unsigned:
            return False
        return (new.bits or 64) >= (old.bits or 64)
    if old.kind == "float":
        return (new.bits or 64) >= (old.bits or 64)
    if old.kind == "decimal":
        if new.precision is None:
            return True
        if old.precision is None:
            return False
        ints_old = old.precision - (old.scale or 0)
        ints_new = new.precision - (new.scale or 0)
        return ints_new >= ints_old and (new.scale or 0) >= (old.scale or 0)
    if old.kind in ("text", "binary"):
        if new.length is None:
            return True
        return old.length is not None and new.length >= old.length and not new.fixed
    if old.kind in ("time", "timestamp"):
        return new.fraction >= old.fraction
    return False
