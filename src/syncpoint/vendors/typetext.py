"""The text of a declared SQL type as the vendors' ``types.py`` read it: lower case with
single spaces, its base name without arguments or MariaDB's ``unsigned``/``zerofill``, and
its numeric arguments (``numeric(12,2)`` -> ``numeric``, ``[12, 2]``)."""

from __future__ import annotations

import re

_ARGS = re.compile(r"\(([^)]*)\)")


def normal(declared: str) -> str:
    return " ".join(declared.strip().lower().split())


def args(t: str) -> list[int]:
    m = _ARGS.search(t)
    if not m:
        return []
    return [int(p.strip()) for p in m.group(1).split(",") if p.strip().isdigit()]


def base(t: str) -> str:
    return _ARGS.sub("", t).replace(" unsigned", "").replace(" zerofill", "").strip()
