"""Row values of the binary log as the JSON text the capture triggers write (``encode.py``).

python-mysql-replication decodes a row image into Python values, but loses what the
triggers keep: a zero date becomes None, YEAR 0000 becomes 1900, an empty SET None, the
zero TIMESTAMP 1970-01-01, and a float's text is Python's, not MariaDB's. So its one value
reader (``RowsEvent.__read_values_name``) is replaced here by ``_read``, which returns each
value already as its JSON text: what ``JSON_OBJECT`` over ``encode.value`` prints for the
same stored value. ``row_text`` joins them as ``JSON_OBJECT`` does. The byte-for-byte proof
is tests/vendors/test_mariadb_log_parity.py.
"""

from __future__ import annotations

import base64
import datetime
import re
import struct
from collections.abc import Iterable
from typing import Any

from pymysqlreplication import row_event
from pymysqlreplication.constants import FIELD_TYPE


class Unsupported(Exception):
    """A value log capture cannot encode exactly (a type MariaDB 10.6+ does not write)."""


class Text(str):
    """A value's JSON text (so that a row's values are told from plain strings)."""


def json_string(s: str) -> str:
    """A JSON string as MariaDB's JSON functions write it: ``"`` and ``\\`` escaped, the
    control characters as \\n, \\t, \\r, \\b, \\f or \\u00XX (upper-case hex), the rest as is."""
    if _ESCAPED.search(s) is None:
        return '"' + s + '"'
    return '"' + _ESCAPED.sub(_escape, s) + '"'


_CONTROL = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}
_CONTROL.update({'"': '\\"', "\\": "\\\\"})
_ESCAPED = re.compile(r'["\\\x00-\x1f]')


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    return _CONTROL.get(ch) or f"\\u{ord(ch):04X}"


def double_text(x: float) -> str:
    """A DOUBLE as MariaDB prints it: the shortest digits that read back exactly (Python's
    repr has the same), positional unless the exponent is past 15 (with no fraction digit)
    or below -14; ``-0`` is ``0``."""
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mant, _, exp = repr(abs(x)).partition("e")
    ip, _, fp = mant.partition(".")
    fp = "" if fp == "0" else fp
    raw = ip + fp
    lead = len(raw) - len(raw.lstrip("0"))
    digits = raw.lstrip("0").rstrip("0") or "0"
    decpt = len(ip) + (int(exp) if exp else 0) - lead
    n = len(digits)
    if (decpt > 15 and decpt >= n) or decpt < -14:
        s = digits[0] + ("." + digits[1:] if n > 1 else "") + "e" + str(decpt - 1)
    elif decpt <= 0:
        s = "0." + "0" * (-decpt) + digits
    elif decpt >= n:
        s = digits + "0" * (decpt - n)
    else:
        s = digits[:decpt] + "." + digits[decpt:]
    return sign + s


def row_text(names: Iterable[str], values: dict[str, Any]) -> str:
    """``JSON_OBJECT('a', .., 'b', ..)``'s text of one row image, columns in table order."""
    return "{" + ", ".join(f"{json_string(n)}: {values[n]}" for n in names) + "}"


def _frac(ev: Any, column: Any) -> int:
    return int(ev._RowsEvent__read_fsp(column))


def _b64(raw: bytes) -> Text:
    return Text('"' + base64.b64encode(raw).decode("ascii") + '"')


def _string(raw: bytes, column: Any) -> Text:
    # the table map's collation, looked up by python-mysql-replication (which falls back
    # to utf8 without a collation name when it does not know the id: refused here)
    if column.collation_name == "binary":
        return _b64(raw)
    if not column.collation_name or not column.character_set_name:
        raise Unsupported(f"column {column.name!r}: character set unknown to the decoder")
    try:
        return Text(json_string(raw.decode(column.character_set_name)))
    except (LookupError, UnicodeDecodeError) as exc:
        raise Unsupported(f"column {column.name!r}: {exc}") from exc


def _time2(ev: Any, column: Any) -> Text:
    # MariaDB's my_time_packed_from_binary: 3 bytes of integer part (hours, minutes,
    # seconds; offset 0x800000), then the fraction; negative values keep the fraction's
    # order reversed, so the integer part is shifted by one when there is a fraction.
    fsp = column.fsp or 0
    intpart = (ev.packet.read_int_be_by_size(3) & 0xFFFFFF) - 0x800000
    if fsp in (5, 6):
        frac = ev.packet.read_int_be_by_size(3) & 0xFFFFFF
        packed = (intpart << 24) + frac
    elif fsp:
        width = 1 if fsp <= 2 else 2
        frac = ev.packet.read_int_be_by_size(width) & ((1 << (8 * width)) - 1)
        if intpart < 0 and frac:
            intpart += 1
            frac -= 1 << (8 * width)
        packed = (intpart << 24) + frac * (10000 if width == 1 else 100)
    else:
        packed = intpart << 24
    negative, packed = packed < 0, abs(packed)
    hms, micro = packed >> 24, packed & 0xFFFFFF
    hours, minutes, seconds = (hms >> 12) & 0x3FF, (hms >> 6) & 0x3F, hms & 0x3F
    text = f"{'-' if negative else ''}{hours:02d}:{minutes:02d}:{seconds:02d}"
    if fsp:
        text += "." + f"{micro:06d}"[:fsp]
    return Text(json_string(text))


def _datetime2(ev: Any, column: Any) -> Text:
    data = ev.packet.read_int_be_by_size(5) & 0xFFFFFFFFFF
    ym = (data >> 22) & 0x1FFFF
    day, hour = (data >> 17) & 0x1F, (data >> 12) & 0x1F
    minute, second = (data >> 6) & 0x3F, data & 0x3F
    micro = _frac(ev, column)
    text = f"{ym // 13:04d}-{ym % 13:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    if column.fsp:
        text += f".{micro:06d}"
    return Text(json_string(text))


def _timestamp2(ev: Any, column: Any) -> Text:
    seconds = ev.packet.read_int_be_by_size(4) & 0xFFFFFFFF
    micro = _frac(ev, column)
    if seconds == 0:
        # the zero TIMESTAMP: the trigger's UNIX_TIMESTAMP() of it is NULL, so is its text
        return Text("null")
    t = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds, microseconds=micro)
    text = t.strftime("%Y-%m-%dT%H:%M:%S") + (f".{micro:06d}" if column.fsp else "") + "+00:00"
    return Text(json_string(text))


def _date(ev: Any) -> Text:
    v = ev.packet.read_uint24()
    return Text(json_string(f"{v >> 9:04d}-{(v >> 5) & 0xF:02d}-{v & 0x1F:02d}"))


def _bit(ev: Any, column: Any) -> Text:
    return Text(str(int.from_bytes(ev.packet.read(column.bytes), "big")))


def _int(ev: Any, size: int, unsigned: bool) -> Text:
    raw = ev.packet.read(size)
    return Text(str(int.from_bytes(raw, "little", signed=not unsigned)))


def _read(
    self: Any,
    column: Any,
    null_bitmap: Any,
    null_bitmap_index: int,
    is_partial: bool,
    cols_bitmap: Any,
    unsigned: bool,
    i: int,
) -> Text | None:
    """Replaces ``RowsEvent.__read_values_name``: the value's JSON text, or None for NULL.
    Raises ``Unsupported`` where an exact text cannot be made (never a guess)."""
    if row_event.BitGet(cols_bitmap, i) == 0:
        raise Unsupported(
            f"column {column.name!r} is missing from the row image (binlog_row_image must be FULL)"
        )
    if self._is_null(null_bitmap, null_bitmap_index):
        return None
    t = column.type
    p = self.packet
    if t in _INT_SIZES:
        return _int(self, _INT_SIZES[t], unsigned)
    if t == FIELD_TYPE.FLOAT:
        # the trigger widens FLOAT to DOUBLE (CAST(col AS DOUBLE)): the same float's digits
        return Text(double_text(struct.unpack("<f", p.read(4))[0]))
    if t == FIELD_TYPE.DOUBLE:
        return Text(double_text(struct.unpack("<d", p.read(8))[0]))
    if t == FIELD_TYPE.NEWDECIMAL:
        return Text(format(self._RowsEvent__read_new_decimal(column), "f"))
    if t in (FIELD_TYPE.VARCHAR, FIELD_TYPE.STRING):
        size = 2 if column.max_length > 255 else 1
        raw = p.read_length_coded_pascal_string(size)
        if t == FIELD_TYPE.STRING and column.collation_name == "binary":
            # BINARY(n) is stored without its trailing zero bytes; the column holds them
            raw = raw.ljust(column.max_length, b"\0")
        return _string(raw, column)
    if t == FIELD_TYPE.BLOB:
        return _string(p.read_length_coded_pascal_string(column.length_size), column)
    if t == FIELD_TYPE.GEOMETRY:
        return _b64(_ewkb(p.read_length_coded_pascal_string(column.length_size)))
    if t == FIELD_TYPE.YEAR:
        y = p.read_uint8()
        return Text(f"{y + 1900 if y else 0:04d}")  # JSON_OBJECT prints YEAR 0 as 0000
    if t == FIELD_TYPE.ENUM:
        index = p.read_uint_by_size(column.size)
        labels = column.enum_values  # [""] + labels: index 0 is the error value ''
        if not labels or index >= len(labels):
            raise Unsupported(f"column {column.name!r}: ENUM labels missing from the binlog")
        return Text(json_string(labels[index]))
    if t == FIELD_TYPE.SET:
        mask = p.read_uint_by_size(column.size)
        if column.set_values is None:
            raise Unsupported(f"column {column.name!r}: SET labels missing from the binlog")
        chosen = [v for k, v in enumerate(column.set_values) if mask & (1 << k)]
        return Text(json_string(",".join(chosen)))
    if t == FIELD_TYPE.BIT:
        return _bit(self, column)
    if t == FIELD_TYPE.DATE:
        return _date(self)
    if t == FIELD_TYPE.TIME2:
        return _time2(self, column)
    if t == FIELD_TYPE.DATETIME2:
        return _datetime2(self, column)
    if t == FIELD_TYPE.TIMESTAMP2:
        return _timestamp2(self, column)
    raise Unsupported(
        f"column {column.name!r}: binlog column type {t} (a pre-5.6 temporal format or a MySQL "
        "type); rebuild the table (ALTER TABLE ... FORCE) or use trigger capture"
    )


_INT_SIZES = {
    FIELD_TYPE.TINY: 1,
    FIELD_TYPE.SHORT: 2,
    FIELD_TYPE.INT24: 3,
    FIELD_TYPE.LONG: 4,
    FIELD_TYPE.LONGLONG: 8,
}


def install() -> None:
    """Make python-mysql-replication's row events decode with ``_read`` (idempotent)."""
    row_event.RowsEvent._RowsEvent__read_values_name = _read  # type: ignore[attr-defined]


def _ewkb(stored: bytes) -> bytes:
    """EWKB of a stored spatial value, as capture's triggers write it (``encode.ewkb``):
    MariaDB stores a 4-byte SRID then little-endian WKB; EWKB sets the SRID flag in the
    type and puts the SRID after it; plain WKB when the SRID is 0."""
    srid, wkb = stored[:4], stored[4:]
    if srid == b"\0\0\0\0" or len(wkb) < 5:
        return wkb
    return wkb[:4] + bytes([wkb[4] | 0x20]) + srid + wkb[5:]
