"""What every command shares: loading the channel, printing text or JSON, exit codes."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import typer
from rich.console import Console

from syncpoint.errors import SyncpointError

# Piped, without COLUMNS, rich would cut tables at 80 columns ("publi…"): a file or a pipe
# gets whole lines.
_PIPED_WIDTH = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 1000
out = Console(highlight=False, soft_wrap=True, width=_PIPED_WIDTH)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class State:
    config_path: str | None = None
    verbose: bool = False
    log_file: str | None = None


state = State()


KEEP_LOGS = 20  # the default log folder keeps the newest files of this many processes


def spark_log_file() -> str:
    """Where Spark's and the JVM's output goes unless ``--verbose``: ``--log-file``, else
    ``$SYNCPOINT_LOG_FILE``, else ``$XDG_STATE_HOME/syncpoint/spark-<pid>.log``
    (``~/.local/state``): one file per process, so that a follower's log is not mixed with
    (or cut by) the commands run beside it."""
    if state.log_file:
        return state.log_file
    if os.environ.get("SYNCPOINT_LOG_FILE"):
        return os.environ["SYNCPOINT_LOG_FILE"]
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return os.path.join(base, "syncpoint", f"spark-{os.getpid()}.log")


def _prune_logs(folder: str) -> None:
    """Remove all but the newest ``KEEP_LOGS`` per-process logs of the default folder."""
    import glob

    try:
        logs = sorted(glob.glob(os.path.join(folder, "spark-*.log")), key=os.path.getmtime)
        for old in logs[:-KEEP_LOGS]:
            os.remove(old)
    except OSError:
        pass  # another process removed it first, or the folder is not ours to tidy


def quiet_spark() -> None:
    """Send the JVM's output to the log file (or, verbose, to stderr): stdout stays ours."""
    from syncpoint.spark.session import send_jvm_output_to

    path = spark_log_file()
    if not (state.verbose or state.log_file or os.environ.get("SYNCPOINT_LOG_FILE")):
        _prune_logs(os.path.dirname(path))
    send_jvm_output_to(None if state.verbose else path, state.verbose)


def when_jvm_starts(say: Callable[[str], None]) -> None:
    """Call ``say(log file)`` when this process starts a JVM, if its output goes to a file
    (rounds that stay in the driver start none, and the file is never made)."""
    from syncpoint.spark.session import on_jvm_output

    on_jvm_output(say)


def channel() -> Any:
    from syncpoint.ops.channel import Channel

    quiet_spark()
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
    """Map syncpoint errors to exit codes (0, 1, 2, 3); never show a traceback for them."""
    try:
        yield
    except SyncpointError as exc:
        if as_json:
            emit_json(exc.to_dict())
        else:
            err.print(f"[bold red]error:[/] {exc}", markup=True)
        raise typer.Exit(exc.exit_code) from None
    except (PermissionError, FileNotFoundError, NotADirectoryError, IsADirectoryError) as exc:
        # a path the command cannot read or write: a usage error, one line, no traceback
        data = {"error": "usage", "message": str(exc), "exit_code": 2}
        if as_json:
            emit_json(data)
        else:
            err.print(f"error: {exc}", markup=False)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        err.print("interrupted")
        raise typer.Exit(130) from None


def report(as_json: bool, data: Any, text: Callable[[], None]) -> None:
    if as_json:
        emit_json(data)
    else:
        text()
