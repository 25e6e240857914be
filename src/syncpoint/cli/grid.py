"""A table of plain text cells printed the way rich prints its default ``Table`` (a heavy
head, light rows), built as lines directly: rich measures and lays out every cell, about
a few milliseconds a row, which made ``status`` of a channel of hundreds of tables cost
seconds of printing. A grid wider than the console is left to rich, which wraps cells."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text


def show(console: Console, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print ``rows`` under ``headers`` (cells as they are: no markup)."""
    widths = [cell_len(h) for h in headers]
    for r in rows:
        for i, cell in enumerate(r):
            widths[i] = max(widths[i], cell_len(cell))
    if any("\n" in c for r in rows for c in r) or sum(widths) + 3 * len(widths) + 1 > (
        console.width
    ):
        table = Table(*headers)
        for r in rows:
            table.add_row(*(Text(c) for c in r))
        console.print(table)
        return

    def line(left: str, fill: str, mid: str, right: str) -> str:
        return left + mid.join(fill * (w + 2) for w in widths) + right

    def cells(bar: str, values: Sequence[str]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = [(bar, "")]
        for v, w in zip(values, widths, strict=True):
            out += [(" " + v + " " * (w - cell_len(v) + 1), ""), (bar, "")]
        return out

    text = Text(no_wrap=True, overflow="ignore")
    text.append(line("┏", "━", "┳", "┓") + "\n")
    for part, _ in cells("┃", headers):
        text.append(part, style="bold" if part != "┃" else "")
    text.append("\n" + line("┡", "━", "╇", "┩") + "\n")
    body = "\n".join("".join(p for p, _ in cells("│", r)) for r in rows)
    if body:
        text.append(body + "\n")
    text.append(line("└", "─", "┴", "┘"))
    console.print(text, soft_wrap=True)
