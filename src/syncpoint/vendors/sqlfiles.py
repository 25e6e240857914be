"""Loading and rendering the per-vendor SQL files under ``vendors/<vendor>/sql/``.

A file holds one statement, or several separated by a line that holds only ``---``.
Tokens are replaced only by text Python has already made safe:

- ``${name}``: the *quoted identifier* of ``idents[name]``, quoted by the vendor's rules;
- ``$raw{name}``: ``raw[name]``, a fragment the caller built from quoted identifiers
  and validated values (column lists, trigger bodies); never user text as such;
- ``$lit{name}``: ``literals[name]`` rendered as a SQL string literal by the vendor's rules
  (for DDL, where bound parameters are not allowed).

Values at run time are always bound parameters, never tokens.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from importlib import resources

_TOKEN = re.compile(r"\$(raw|lit)?\{([a-zA-Z_][a-zA-Z0-9_]*)\}")


@cache
def load(vendor: str, relpath: str) -> str:
    return (
        resources.files(f"syncpoint.vendors.{vendor}")
        .joinpath("sql", relpath)
        .read_text(encoding="utf-8")
    )


def listing(vendor: str, folder: str) -> list[str]:
    """The ``.sql`` files of ``sql/<folder>``, in name order (numbered install steps)."""
    base = resources.files(f"syncpoint.vendors.{vendor}").joinpath("sql", folder)
    return sorted(f"{folder}/{p.name}" for p in base.iterdir() if p.name.endswith(".sql"))


def render(
    text: str,
    quote: Callable[[str], str],
    idents: dict[str, str] | None = None,
    raw: dict[str, str] | None = None,
    literals: dict[str, str] | None = None,
    literal: Callable[[str], str] | None = None,
) -> str:
    idents, raw, literals = idents or {}, raw or {}, literals or {}

    def sub(m: re.Match[str]) -> str:
        kind, name = m.group(1), m.group(2)
        if kind == "raw":
            return raw[name]
        if kind == "lit":
            if literal is None:
                raise ValueError("a $lit{} token needs a literal() function")
            return literal(literals[name])
        return quote(idents[name])

    return _TOKEN.sub(sub, text)


def statements(text: str) -> list[str]:
    parts = re.split(r"^---\s*$", text, flags=re.MULTILINE)
    return [p.strip() for p in parts if p.strip() and not _only_comments(p)]


def _only_comments(text: str) -> bool:
    return all(not ln.strip() or ln.strip().startswith("--") for ln in text.splitlines())
