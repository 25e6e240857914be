"""The one runner of the per-vendor SQL files under ``vendors/<vendor>/sql/``: ``SqlFiles``
loads a file, renders its tokens and runs its statements.

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

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

_TOKEN = re.compile(r"\$(raw|lit)?\{([a-zA-Z_][a-zA-Z0-9_]*)\}")


class SqlFiles:
    """One vendor's SQL files, under ``folder`` (names are then relative to it), with the
    identifiers, fragments and literals of one use filled in; more can be given per call.

    ``comments=False`` leaves full-line comments out (for text that ends up inside other
    SQL: Spark's JDBC reader wraps it, trigger bodies repeat it). ``location`` names the
    location in the errors ``run`` translates. ``literal`` renders ``$lit{}`` tokens (the
    dialect's ``literal`` unless given)."""

    def __init__(
        self,
        vendor: str,
        folder: str = "",
        idents: Mapping[str, str] | None = None,
        *,
        raw: Mapping[str, str] | None = None,
        literals: Mapping[str, str] | None = None,
        literal: Callable[[str], str] | None = None,
        comments: bool = True,
        location: str | None = None,
    ):
        self.vendor = vendor
        self.folder = folder
        self.dialect: Any = importlib.import_module(f"syncpoint.vendors.{vendor}.dialect")
        self.idents = dict(idents or {})
        self.raw = dict(raw or {})
        self.literals = dict(literals or {})
        self.literal = literal or self.dialect.literal
        self.comments = comments
        self.location = location

    def path(self, name: str) -> str:
        rel = f"{self.folder}/{name}" if self.folder else name
        return rel if rel.endswith(".sql") else rel + ".sql"

    def text(
        self,
        name: str,
        *,
        idents: Mapping[str, str] | None = None,
        raw: Mapping[str, str] | None = None,
        literals: Mapping[str, str] | None = None,
        comments: bool | None = None,
    ) -> str:
        """The file's text with every token filled in (``comments``: this call's choice)."""
        text = _load(self.vendor, self.path(name))
        if not (self.comments if comments is None else comments):
            text = "\n".join(
                ln
                for ln in text.splitlines()
                if ln.strip() == "---" or not ln.lstrip().startswith("--")
            )
        return _render(
            text,
            self.dialect.quote,
            {**self.idents, **(idents or {})},
            {**self.raw, **(raw or {})},
            {**self.literals, **(literals or {})},
            self.literal,
        )

    def statements(self, name: str, **tokens: Any) -> list[str]:
        """The file's statements, rendered (``tokens``: ``idents``, ``raw``, ``literals``)."""
        parts = re.split(r"^---\s*$", self.text(name, **tokens), flags=re.MULTILINE)
        return [p.strip() for p in parts if p.strip() and not _only_comments(p)]

    def one(self, name: str, **tokens: Any) -> str:
        """The file's one statement, rendered."""
        stmts = self.statements(name, **tokens)
        if len(stmts) != 1:
            raise ValueError(f"{self.path(name)} holds {len(stmts)} statements, one expected")
        return stmts[0]

    def run(
        self,
        conn: Any,
        name: str,
        params: Sequence[Any] | Mapping[str, Any] | None = None,
        *,
        table: str | None = None,
        **tokens: Any,
    ) -> Any:
        """Run the file's statements on ``conn`` with ``params`` bound (to each statement),
        driver errors translated; returns the cursor of the last one."""
        cur = conn.cursor()
        bound = params if isinstance(params, Mapping) else tuple(params or ())
        with self.dialect.translated(self.location, table):
            for stmt in self.statements(name, **tokens):
                cur.execute(stmt, bound) if bound else cur.execute(stmt)
        return cur

    def listing(self, folder: str | None = None) -> list[str]:
        """The ``.sql`` files of a folder (this one by default), in name order (numbered
        install steps), as names relative to ``sql/``."""
        folder = self.folder if folder is None else folder
        base = resources.files(f"syncpoint.vendors.{self.vendor}").joinpath("sql", folder)
        return sorted(f"{folder}/{p.name}" for p in base.iterdir() if p.name.endswith(".sql"))


@cache
def _load(vendor: str, relpath: str) -> str:
    return (
        resources.files(f"syncpoint.vendors.{vendor}")
        .joinpath("sql", relpath)
        .read_text(encoding="utf-8")
    )


def _render(
    text: str,
    quote: Callable[[str], str],
    idents: Mapping[str, str],
    raw: Mapping[str, str],
    literals: Mapping[str, str],
    literal: Callable[[str], str],
) -> str:
    def sub(m: re.Match[str]) -> str:
        kind, name = m.group(1), m.group(2)
        if kind == "raw":
            return raw[name]
        if kind == "lit":
            return literal(literals[name])
        return quote(idents[name])

    return _TOKEN.sub(sub, text)


def _only_comments(text: str) -> bool:
    return all(not ln.strip() or ln.strip().startswith("--") for ln in text.splitlines())
