"""``syncpoint init [DIR]``: write a commented example ``syncpoint.yaml`` (the keys most
channels need; docs/config.md describes every key)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from syncpoint.cli.common import emit_json, err, out


def register(app: typer.Typer) -> None:
    @app.command("init")
    def init(
        directory: Annotated[Path, typer.Argument(help="folder to write into")] = Path("."),
        force: Annotated[bool, typer.Option(help="overwrite an existing file")] = False,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Write a commented example syncpoint.yaml."""
        target = directory / "syncpoint.yaml"
        if target.exists() and not force:
            err.print(f"error: {target} exists; use --force to overwrite it")
            raise typer.Exit(2)
        text = resources.files("syncpoint").joinpath("example.yaml").read_text(encoding="utf-8")
        try:
            directory.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            err.print(f"error: cannot write {target}: {exc.strerror or exc}", markup=False)
            raise typer.Exit(2) from None
        if as_json:
            emit_json({"written": str(target)})
        else:
            out.print(
                f"wrote {target}: the keys most channels need, commented (docs/config.md "
                "describes every key); edit the locations and tables, then "
                f"`syncpoint -c {target} validate`",
                markup=False,
            )
