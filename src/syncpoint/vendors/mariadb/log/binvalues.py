"""Row values of the binary log as the JSON text the capture triggers write (``encode.py``).

python-mysql-replication decodes a row image into Python values, but loses what the
triggers keep: a zero date becomes None, YEAR 0000 becomes 1900, an empty SET None, the
zero TIMESTAMP 1970-01-01, and a float's text is Python's, not MariaDB's; and it is slow
(a dict a row, a type dispatch and several reads a value). So its row decoding is not used:
``Rows`` reads a rows event's row data in one piece and decodes each value straight to its
JSON text, what ``JSON_OBJECT`` over ``encode.value`` prints for the same stored value, with
a decoder a column chosen once per event; ``Rows.text`` joins them as ``JSON_OBJECT`` does.
The library still parses the table maps (once per distinct map, ``dump.py``); the event
headers are read by ``binlog.py``. The byte-for-byte proof is
tests/vendors/test_mariadb_log_parity.py.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import re
import struct
from collections.abc import Callable, Iterator
from typing import Any

from pymysqlreplication.constants import FIELD_TYPE


class Unsupported(Exception):
    """A value log capture cannot encode exactly (a type MariaDB 10.6+ does not write)."""


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


# -- one row image's values, decoded from the rows event's bytes -----------------------------
# A decoder takes the event's row data and a position, and returns the value's JSON text and
# the position after it. They are chosen once per rows event, by column (``decoders``), so
# that a row costs one call a column and no look-up of its type.
Decoder = Callable[[bytes, int], tuple[str, int]]
_DOUBLE = struct.Struct("<d")
_FLOAT = struct.Struct("<f")
_DECIMAL_BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)  # bytes of 0..9 leftover decimal digits


def _be(d: bytes, p: int, n: int) -> int:
    return int.from_bytes(d[p : p + n], "big")


def _int_decoder(size: int, signed: bool) -> Decoder:
    def dec(d: bytes, p: int) -> tuple[str, int]:
        end = p + size
        return str(int.from_bytes(d[p:end], "little", signed=signed)), end

    return dec


def _fsp_bytes(fsp: int) -> int:
    return (fsp + 1) // 2


def _micro(d: bytes, p: int, fsp: int) -> int:
    """The fraction of a DATETIME2 or TIMESTAMP2 (big-endian, (fsp + 1) // 2 bytes)."""
    n = _fsp_bytes(fsp)
    if not n:
        return 0
    value = _be(d, p, n)
    if fsp % 2:
        value //= 10
    return value * 10 ** (6 - fsp)


def _string_decoder(column: Any, length_size: int, pad: int = 0) -> Decoder:
    """CHAR/VARCHAR/BINARY/TEXT/BLOB: a little-endian length of ``length_size`` bytes, then
    the bytes; binary collations as base64, the others as JSON text in their character set.
    ``pad``: BINARY(n) is stored without its trailing zero bytes; the column holds them."""
    if column.collation_name == "binary":

        def binary(d: bytes, p: int) -> tuple[str, int]:
            start = p + length_size
            end = start + int.from_bytes(d[p:start], "little")
            raw = d[start:end].ljust(pad, b"\0") if pad else d[start:end]
            return '"' + base64.b64encode(raw).decode("ascii") + '"', end

        return binary
    # the table map's collation, looked up by python-mysql-replication (which falls back
    # to utf8 without a collation name when it does not know the id: refused here)
    if not column.collation_name or not column.character_set_name:
        return _refuse(f"column {column.name!r}: character set unknown to the decoder")
    encoding = column.character_set_name
    name = column.name

    def text(d: bytes, p: int) -> tuple[str, int]:
        start = p + length_size
        end = start + int.from_bytes(d[p:start], "little")
        try:
            return json_string(d[start:end].decode(encoding)), end
        except (LookupError, UnicodeDecodeError) as exc:
            raise Unsupported(f"column {name!r}: {exc}") from exc

    return text


def _decimal_decoder(column: Any) -> Decoder:
    """DECIMAL(m, d) as stored: groups of 9 digits in 4 big-endian bytes, leftover digits in
    fewer; the sign in the top bit of the first byte, a negative value's bytes inverted."""
    integral = column.precision - column.decimals
    full_int, left_int = divmod(integral, 9)
    full_frac, left_frac = divmod(column.decimals, 9)
    sizes = (
        [(_DECIMAL_BYTES[left_int], 0)] * bool(left_int)
        + [(4, 9)] * full_int
        + [(0, -1)]  # the decimal point
        + [(4, 9)] * full_frac
        + [(_DECIMAL_BYTES[left_frac], left_frac)] * bool(left_frac)
    )
    size = sum(n for n, _ in sizes)

    def dec(d: bytes, p: int) -> tuple[str, int]:
        raw = bytearray(d[p : p + size])
        negative = not raw[0] & 0x80
        raw[0] ^= 0x80
        if negative:
            raw = bytearray(b ^ 0xFF for b in raw)
        parts, at = ["-" if negative else ""], 0
        for n, width in sizes:
            if width < 0:
                parts.append(".")
                continue
            value = int.from_bytes(raw[at : at + n], "big")
            parts.append(f"{value:0{width}d}" if width else str(value))
            at += n
        return format(decimal.Decimal("".join(parts)), "f"), p + size

    return dec


def _time2_decoder(column: Any) -> Decoder:
    # MariaDB's my_time_packed_from_binary: 3 bytes of integer part (hours, minutes,
    # seconds; offset 0x800000), then the fraction; negative values keep the fraction's
    # order reversed, so the integer part is shifted by one when there is a fraction.
    fsp = column.fsp or 0
    width = _fsp_bytes(fsp)

    def dec(d: bytes, p: int) -> tuple[str, int]:
        intpart = _be(d, p, 3) - 0x800000
        if fsp in (5, 6):
            packed = (intpart << 24) + _be(d, p + 3, 3)
        elif fsp:
            frac = _be(d, p + 3, width)
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
        return json_string(text), p + 3 + width

    return dec


def _datetime2_decoder(column: Any) -> Decoder:
    fsp = column.fsp or 0
    size = 5 + _fsp_bytes(fsp)

    def dec(d: bytes, p: int) -> tuple[str, int]:
        data = _be(d, p, 5)
        ym = (data >> 22) & 0x1FFFF
        day, hour = (data >> 17) & 0x1F, (data >> 12) & 0x1F
        minute, second = (data >> 6) & 0x3F, data & 0x3F
        text = f"{ym // 13:04d}-{ym % 13:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
        if fsp:
            text += f".{_micro(d, p + 5, fsp):06d}"
        return '"' + text + '"', p + size

    return dec


def _timestamp2_decoder(column: Any) -> Decoder:
    fsp = column.fsp or 0
    size = 4 + _fsp_bytes(fsp)
    epoch = datetime.datetime(1970, 1, 1)

    def dec(d: bytes, p: int) -> tuple[str, int]:
        seconds = _be(d, p, 4)
        if seconds == 0:
            # the zero TIMESTAMP: the trigger's UNIX_TIMESTAMP() of it is NULL, so is its text
            return "null", p + size
        micro = _micro(d, p + 4, fsp)
        t = epoch + datetime.timedelta(seconds=seconds, microseconds=micro)
        text = t.strftime("%Y-%m-%dT%H:%M:%S") + (f".{micro:06d}" if fsp else "") + "+00:00"
        return '"' + text + '"', p + size

    return dec


def _date(d: bytes, p: int) -> tuple[str, int]:
    v = int.from_bytes(d[p : p + 3], "little")
    return f'"{v >> 9:04d}-{(v >> 5) & 0xF:02d}-{v & 0x1F:02d}"', p + 3


def _year(d: bytes, p: int) -> tuple[str, int]:
    y = d[p]
    return f"{y + 1900 if y else 0:04d}", p + 1  # JSON_OBJECT prints YEAR 0 as 0000


def _float(d: bytes, p: int) -> tuple[str, int]:
    # the trigger widens FLOAT to DOUBLE (CAST(col AS DOUBLE)): the same float's digits
    return double_text(_FLOAT.unpack_from(d, p)[0]), p + 4


def _double(d: bytes, p: int) -> tuple[str, int]:
    return double_text(_DOUBLE.unpack_from(d, p)[0]), p + 8


def _labels_decoder(column: Any, is_set: bool) -> Decoder:
    size = column.size
    if is_set:
        labels = column.set_values
        if labels is None:
            return _refuse(f"column {column.name!r}: SET labels missing from the binlog")

        def set_(d: bytes, p: int) -> tuple[str, int]:
            mask = int.from_bytes(d[p : p + size], "little")
            chosen = [v for k, v in enumerate(labels) if mask & (1 << k)]
            return json_string(",".join(chosen)), p + size

        return set_
    labels = column.enum_values  # [""] + labels: index 0 is the error value ''
    name = column.name
    if not labels:
        return _refuse(f"column {name!r}: ENUM labels missing from the binlog")

    def enum(d: bytes, p: int) -> tuple[str, int]:
        index = int.from_bytes(d[p : p + size], "little")
        if index >= len(labels):
            raise Unsupported(f"column {name!r}: ENUM labels missing from the binlog")
        return json_string(labels[index]), p + size

    return enum


def _bit_decoder(column: Any) -> Decoder:
    size = column.bytes

    def dec(d: bytes, p: int) -> tuple[str, int]:
        return str(_be(d, p, size)), p + size

    return dec


def _geometry_decoder(column: Any) -> Decoder:
    length_size = column.length_size

    def dec(d: bytes, p: int) -> tuple[str, int]:
        start = p + length_size
        end = start + int.from_bytes(d[p:start], "little")
        return '"' + base64.b64encode(_ewkb(d[start:end])).decode("ascii") + '"', end

    return dec


_INT_SIZES = {
    FIELD_TYPE.TINY: 1,
    FIELD_TYPE.SHORT: 2,
    FIELD_TYPE.INT24: 3,
    FIELD_TYPE.LONG: 4,
    FIELD_TYPE.LONGLONG: 8,
}


def decoder(column: Any) -> Decoder:
    """The decoder of one column of a table map; it raises ``Unsupported`` where an exact
    text cannot be made (never a guess)."""
    t = column.type
    if t in _INT_SIZES:
        return _int_decoder(_INT_SIZES[t], not column.unsigned)
    if t == FIELD_TYPE.FLOAT:
        return _float
    if t == FIELD_TYPE.DOUBLE:
        return _double
    if t == FIELD_TYPE.NEWDECIMAL:
        return _decimal_decoder(column)
    if t == FIELD_TYPE.VARCHAR:
        return _string_decoder(column, 2 if column.max_length > 255 else 1)
    if t == FIELD_TYPE.STRING:
        binary_pad = column.max_length if column.collation_name == "binary" else 0
        return _string_decoder(column, 2 if column.max_length > 255 else 1, binary_pad)
    if t == FIELD_TYPE.BLOB:
        return _string_decoder(column, column.length_size)
    if t == FIELD_TYPE.GEOMETRY:
        return _geometry_decoder(column)
    if t == FIELD_TYPE.YEAR:
        return _year
    if t in (FIELD_TYPE.ENUM, FIELD_TYPE.SET):
        return _labels_decoder(column, t == FIELD_TYPE.SET)
    if t == FIELD_TYPE.BIT:
        return _bit_decoder(column)
    if t == FIELD_TYPE.DATE:
        return _date
    if t == FIELD_TYPE.TIME2:
        return _time2_decoder(column)
    if t == FIELD_TYPE.DATETIME2:
        return _datetime2_decoder(column)
    if t == FIELD_TYPE.TIMESTAMP2:
        return _timestamp2_decoder(column)
    return _refuse(
        f"column {column.name!r}: binlog column type {t} (a pre-5.6 temporal format or a MySQL "
        "type); rebuild the table (ALTER TABLE ... FORCE) or use trigger capture"
    )


def _refuse(why: str) -> Decoder:
    """A column whose values cannot be decoded exactly: refused when a value (not NULL)
    comes, never guessed."""

    def dec(d: bytes, p: int) -> tuple[str, int]:
        raise Unsupported(why)

    return dec


class Rows:
    """The row images of one rows event, each as its values' JSON texts in column order
    (``"null"`` for NULL). The event's row data is read in one piece and decoded here, with
    one decoder a column chosen once for the event: python-mysql-replication's own row
    decoding (a dict a row, a type dispatch a value) is not used."""

    def __init__(self, columns: list[Any], count: int, bitmaps: list[bytes], data: bytes):
        self.n = len(columns)
        if count != self.n:
            raise Unsupported(f"the row event has {count} columns, its table map {self.n}")
        self.names, self.keys, self.decoders, full = _setup(columns)
        for bitmap in bitmaps:
            if bitmap == full:
                continue
            missing = [c.name for i, c in enumerate(columns) if not bitmap[i >> 3] >> (i & 7) & 1]
            if missing:
                raise Unsupported(
                    f"column {missing[0]!r} is missing from the row image (binlog_row_image "
                    "must be FULL)"
                )
        self.images = len(bitmaps)  # 2 for an UPDATE: the row before, then after
        self.data = data

    def __iter__(self) -> Iterator[list[str]]:
        """Each row image in event order (an UPDATE's before and after alternate)."""
        d, p, end = self.data, 0, len(self.data)
        width = (self.n + 7) // 8
        decoders = list(enumerate(self.decoders))
        while p < end:
            nulls = d[p : p + width]
            p += width
            values: list[str] = []
            add = values.append
            for i, dec in decoders:
                if nulls[i >> 3] >> (i & 7) & 1:
                    add("null")
                else:
                    text, p = dec(d, p)
                    add(text)
            yield values

    def text(self, values: list[str]) -> str:
        """``JSON_OBJECT('a', .., 'b', ..)``'s text of one row image, columns in table order."""
        return "{" + ", ".join([k + v for k, v in zip(self.keys, values, strict=True)]) + "}"


# A table's names, JSON keys, decoders and full column bitmap, made once per table map: a
# transaction of one row (OLTP's commonest) made them again for its one row otherwise. The
# table maps parsed once (binlog.py) hand every event of a table the same columns list;
# the list is kept here with its setup, so its id stays its own.
_SETUPS: dict[int, tuple[Any, tuple[list[str], list[str], list[Decoder], bytes]]] = {}
SETUPS_KEPT = 4096


def _setup(columns: Any) -> tuple[list[str], list[str], list[Decoder], bytes]:
    found = _SETUPS.get(id(columns))
    if found is not None and found[0] is columns:
        return found[1]
    names = [c.name for c in columns]
    n = len(names)
    full = bytes([0xFF] * (n >> 3) + ([(1 << (n & 7)) - 1] if n & 7 else []))
    made = (names, [json_string(x) + ": " for x in names], [decoder(c) for c in columns], full)
    if len(_SETUPS) >= SETUPS_KEPT:
        _SETUPS.clear()
    _SETUPS[id(columns)] = (columns, made)
    return made


def _ewkb(stored: bytes) -> bytes:
    """EWKB of a stored spatial value, as capture's triggers write it (``encode.ewkb``):
    MariaDB stores a 4-byte SRID then little-endian WKB; EWKB sets the SRID flag in the
    type and puts the SRID after it; plain WKB when the SRID is 0."""
    srid, wkb = stored[:4], stored[4:]
    if srid == b"\0\0\0\0" or len(wkb) < 5:
        return wkb
    return wkb[:4] + bytes([wkb[4] | 0x20]) + srid + wkb[5:]
