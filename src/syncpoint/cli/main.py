"""``syncpoint [-c FILE] COMMAND``: the typer application and its commands."""

from __future__ import annotations

import importlib
from typing import Annotated

import typer

from syncpoint.cli.common import state

app = typer.Typer(
    name="syncpoint",
    help="Change data capture and consistent replication rounds through Apache Spark.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        import syncpoint

        typer.echo(f"syncpoint {syncpoint.__version__}")
        raise typer.Exit(0)


@app.callback()
def _options(
    config: Annotated[
        str | None, typer.Option("-c", "--config", help="channel file (default ./syncpoint.yaml)")
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="show Spark's and the JVM's own log on stderr instead of writing it to the "
            "log file",
        ),
    ] = False,
    log_file: Annotated[
        str | None,
        typer.Option(
            "--log-file",
            help="file for Spark's and the JVM's log (default $SYNCPOINT_LOG_FILE, else "
            "~/.local/state/syncpoint/spark-<process id>.log)",
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="print the version and exit", is_eager=True, callback=_version
        ),
    ] = False,
) -> None:
    state.config_path = config
    state.verbose = verbose
    state.log_file = log_file


# One module per command; each exposes ``register(app)``.
COMMANDS = (
    "init_cmd",
    "validate",
    "plan",
    "install",
    "status",
    "run",
    "purge",
    "migrate",
    "serve",
    "verify",
    "snapshot",
    "cdr",
    "gate",
    "demo",
)

for _name in COMMANDS:
    importlib.import_module(f"syncpoint.cli.{_name}").register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
