"""What every command shares: loading the channel, printing text or JSON, exit codes."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import typer
from rich.console import Console

from syncpoint.errors import SyncpointError

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class State:
    config_path: str | None = None


state = State()


def channel() -> Any:
    from syncpoint.channel import Channel

    return Channel.from_file(state.config_path)


def _default(o: Any) -> Any:
    if isinstance(o, datetime | date):
        return o.isoformat()
    if isinstance(o, Decimal):
        return str(o)
    if isinstance(o, set | tuple):
        return list(o)
    return str(o)


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, default=_default, indent=2, sort_keys=False) + "\n")


@contextmanager
def handled(as_json: bool) -> Iterator[None]:
    """Map syncpoint errors to SPEC §3 exit codes; never show a traceback for them."""
    try:
        yield
    except SyncpointError as exc:
        if as_json:
            emit_json(exc.to_dict())
        else:
            err.print(f"[bold red]error:[/] {exc}", markup=True)
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt:
        err.print("interrupted")
        raise typer.Exit(130) from None


def report(as_json: bool, data: Any, text: Callable[[], None]) -> None:
    if as_json:
        emit_json(data)
    else:
        text()
