"""``syncpoint cdr add|alter|remove TABLE``: conflict resolution between sites."""

from __future__ import annotations

from typing import Annotated

import typer

from syncpoint.cli.common import channel, emit_json, handled, out
from syncpoint.errors import ConfigError

Resolution = Annotated[
    str | None,
    typer.Option("--resolution", help="latest or earliest: which change wins a conflict"),
]
GroupNames = Annotated[
    list[str] | None,
    typer.Option("--column-group", help="a column group's name (repeat with --columns)"),
]
GroupColumns = Annotated[
    list[str] | None,
    typer.Option("--columns", help="the group's columns, comma separated (one per group)"),
]
AsJson = Annotated[bool, typer.Option("--json")]


def _groups(names: list[str] | None, columns: list[str] | None) -> dict[str, list[str]] | None:
    names, columns = names or [], columns or []
    if len(names) != len(columns):
        raise ConfigError("give each --column-group NAME exactly one --columns a,b")
    if not names:
        return None
    out: dict[str, list[str]] = {}
    for n, cols in zip(names, columns, strict=True):
        if n in out:
            raise ConfigError(f"column group {n!r} is given twice")
        out[n] = [c.strip() for c in cols.split(",") if c.strip()]
    return out


def register(app: typer.Typer) -> None:
    cdr_app = typer.Typer(
        help="Conflict resolution between sites that capture and integrate one table.",
        no_args_is_help=True,
    )
    app.add_typer(cdr_app, name="cdr")

    @cdr_app.command("add")
    def add(
        table: str,
        resolution: Resolution = None,
        column_group: GroupNames = None,
        columns: GroupColumns = None,
        plan: Annotated[bool, typer.Option("--plan", help="print the SQL, change nothing")] = False,
        as_json: AsJson = False,
    ) -> None:
        """Put TABLE under conflict resolution at every site: a key version and a version
        per column group on each row, tombstones of deletes, conflicts recorded."""
        from syncpoint.ops.cdr import setup

        with handled(as_json):
            groups = _groups(column_group, columns)
            ch = channel()
            if plan:
                sql = setup.plan_add(ch.cfg, table, resolution, groups)
                if as_json:
                    emit_json(sql)
                    return
                for loc, stmts in sql.items():
                    out.print(f"-- {loc}")
                    for s in stmts:
                        out.print(s.rstrip() + ";\n")
                return
            done = setup.add(ch.cfg, table, resolution, groups)
        _print(as_json, done, "under conflict resolution")

    @cdr_app.command("alter")
    def alter(
        table: str,
        resolution: Resolution = None,
        column_group: GroupNames = None,
        columns: GroupColumns = None,
        as_json: AsJson = False,
    ) -> None:
        """Change TABLE's resolution or column groups at every site."""
        from syncpoint.ops.cdr import setup

        with handled(as_json):
            groups = _groups(column_group, columns)
            done = setup.alter(channel().cfg, table, resolution, groups)
        _print(as_json, done, "altered")

    @cdr_app.command("remove")
    def remove(table: str, as_json: AsJson = False) -> None:
        """Take TABLE's conflict bookkeeping away at every site; table and data stay."""
        from syncpoint.ops.cdr import setup

        with handled(as_json):
            done = setup.remove(channel().cfg, table)
        _print(as_json, done, "no longer under conflict resolution")


def _print(as_json: bool, done: dict, what: str) -> None:
    if as_json:
        emit_json(done)
        return
    extra = ""
    if "resolution" in done:
        groups = ", ".join(f"{g}: {','.join(c)}" for g, c in done["column_groups"].items())
        extra = f" ({done['resolution']} wins" + (f"; groups {groups}" if groups else "") + ")"
    out.print(f"{done['table']}: {what} at {', '.join(done['sites'])}{extra}")
