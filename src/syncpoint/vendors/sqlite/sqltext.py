"""Rendering this vendor's SQL files: identifiers quoted, literals escaped, and full-line
comments left out of fragments that end up inside every trigger body."""

from __future__ import annotations

from syncpoint.vendors import sqlfiles
from syncpoint.vendors.sqlite import dialect


def fragment(
    path: str,
    idents: dict[str, str] | None = None,
    raw: dict[str, str] | None = None,
    literals: dict[str, str] | None = None,
) -> str:
    text = "\n".join(
        ln for ln in sqlfiles.load("sqlite", path).splitlines() if not ln.lstrip().startswith("--")
    )
    return sqlfiles.render(
        text, dialect.quote, idents=idents, raw=raw, literals=literals, literal=dialect.literal
    ).strip()
