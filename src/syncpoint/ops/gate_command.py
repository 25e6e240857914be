"""A command run inside a gate's turn (``syncpoint gate produce|consume -- COMMAND``), and
which database holds a channel's gate.

``run_turn`` takes the role's turn, runs COMMAND with this process's stdio (SIGTERM and
SIGHUP passed on to it), and releases the turn when it exits 0; otherwise the gate stays in
the role's Loading state and ``WorkFailed`` says what to do.
"""

from __future__ import annotations

import shlex
import shutil
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from syncpoint.config import ChannelConfig, redact_url
from syncpoint.core.gate import LOADING, Role
from syncpoint.errors import UsageError, WorkFailed
from syncpoint.ops.gate import Gate, GateStatus, Turn, gate


@dataclass(frozen=True)
class GatePlace:
    """The database that holds a gate: its URL, how messages name it, the object prefix."""

    url: str
    label: str
    prefix: str


def gate_place(
    cfg: ChannelConfig | None, location: str | None, url: str | None, prefix: str | None
) -> GatePlace:
    """Where the gate is: ``url``, or ``location`` of the channel, by default the channel's
    transport location, else its only integrate location."""
    if url and location:
        raise UsageError("give either --url or --location, not both")
    if url:
        return GatePlace(url, redact_url(url), prefix or (cfg.prefix if cfg else "repl_"))
    if cfg is None:
        raise UsageError("no channel file: give --url URL, or -c FILE (and --location NAME)")
    if location is None:
        if cfg.transport is not None:
            location = cfg.transport.location
        else:
            integrate = sorted(cfg.integrate_locations())
            if len(integrate) != 1:
                raise UsageError(
                    "which location holds the gate? the channel has no transport location and "
                    f"{len(integrate)} integrate locations ({', '.join(integrate) or 'none'}): "
                    "give --location NAME or --url URL"
                )
            location = integrate[0]
    if location not in cfg.locations:
        raise UsageError(
            f"--location {location!r} is not a location of the channel "
            f"({', '.join(sorted(cfg.locations))})"
        )
    return GatePlace(cfg.locations[location].url.get_secret_value(), location, prefix or cfg.prefix)


def run_turn(
    place: GatePlace,
    role: Role,
    name: str,
    command: list[str],
    *,
    wait: float = 0.0,
    purge_tables: list[str] | None = None,
    on_taken: Callable[[Turn], None] | None = None,
) -> tuple[Turn, GateStatus | None]:
    """Run ``command`` as ``role``'s turn of gate ``name``; the turn and the gate's status
    after it. ``on_taken`` is called once the turn is taken, before the command runs."""
    check_command(role, command)
    text = shlex.join(command)
    with gate(
        place.url,
        name,
        role,
        wait=wait,
        purge_tables=purge_tables or [],
        prefix=place.prefix,
        command=text,
        location=place.label,
    ) as turn:
        if on_taken is not None:
            on_taken(turn)
        rc = run_command(command)
        if rc != 0:
            raise WorkFailed(
                f"gate {name!r}: COMMAND {text!r} {exit_text(rc)}; the gate stays "
                f"{LOADING[role]}, so the next {role.value} run stops until a human checks "
                f"and runs `syncpoint gate reset {name} --to STATE`",
                location=place.label,
            )
    return turn, Gate(place.url, name, prefix=place.prefix, location=place.label).status()


def check_command(role: Role, command: list[str]) -> None:
    """A usage error when there is no command or it cannot be found."""
    if not command:
        raise UsageError(f"gate {role.value}: give the command to run after --")
    if shutil.which(command[0]) is None:
        raise UsageError(f"gate {role.value}: command {command[0]!r} was not found")


def run_command(command: list[str]) -> int:
    """Run COMMAND with this process's stdio. SIGTERM and SIGHUP are passed on to it;
    SIGINT from a terminal reaches it directly (same process group), so it is not doubled."""
    proc = subprocess.Popen(command)

    def forward(signum: int, _frame: Any) -> None:
        try:
            proc.send_signal(signum)
        except ProcessLookupError:
            pass

    handlers = {
        signal.SIGTERM: forward,
        signal.SIGHUP: forward,
        signal.SIGINT: lambda *_: None,
    }
    old = {s: signal.signal(s, h) for s, h in handlers.items()}
    try:
        return proc.wait()
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def exit_text(rc: int) -> str:
    if rc < 0:
        try:
            return f"was killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"was killed by signal {-rc}"
    return f"exited with status {rc}"
