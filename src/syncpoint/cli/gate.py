"""``syncpoint gate produce|consume|status|reset``: gates between a batch producer and a
consumer of transport tables (docs/objects.md, "Gate states").

The gate lives at ``--url URL`` or at ``--location NAME`` of the channel file (``-c``);
by default at the channel's transport location, else at its only integrate location.
``produce``/``consume`` run COMMAND inside the role's turn: exit 1 when COMMAND fails (the
gate stays in its Loading state), 3 when the gate refuses or ``--wait`` runs out, 2 for
usage errors. Their own messages go to stderr so COMMAND's stdout stays its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from syncpoint.cli.common import channel, emit_json, err, handled, out, state
from syncpoint.config import DEFAULT_FILE
from syncpoint.core.gate import Role, parse_state
from syncpoint.errors import UsageError, WorkFailed

Location = Annotated[
    str | None, typer.Option("--location", help="a location of the channel file that holds it")
]
Url = Annotated[str | None, typer.Option("--url", help="the database URL that holds the gate")]
Prefix = Annotated[
    str | None, typer.Option("--prefix", help="object prefix (default: the channel's, or repl_)")
]
Json = Annotated[bool, typer.Option("--json", help="machine-readable output")]
Wait = Annotated[
    float,
    typer.Option("--wait", min=0.0, help="seconds to retry while the other side holds the gate"),
]
Command = Annotated[list[str] | None, typer.Argument(help="the command to run: -- COMMAND ARGS")]


def target(location: str | None, url: str | None, prefix: str | None) -> tuple[str, str, str]:
    """(url, label, prefix) of the gate's database, from the options and the channel file."""
    from syncpoint.ops.gate_command import gate_place

    if url:
        cfg = channel().cfg if state.config_path else None
    elif state.config_path is None and not Path(DEFAULT_FILE).is_file():
        raise UsageError(
            f"no channel file ./{DEFAULT_FILE}: give --url URL, or -c FILE (and --location NAME)"
        )
    else:
        cfg = channel().cfg
    place = gate_place(cfg, location, url, prefix)
    return place.url, place.label, place.prefix


def _turn(
    role: Role,
    name: str,
    command: list[str] | None,
    wait: float,
    purge: str | None,
    location: str | None,
    url: str | None,
    prefix: str | None,
    as_json: bool,
) -> None:
    from syncpoint.ops.gate import Turn
    from syncpoint.ops.gate_command import GatePlace, check_command, run_turn

    def taken(turn: Turn) -> None:
        purged = ", ".join(f"{t}: {n} rows" for t, n in turn.purged.items())
        if not as_json:
            err.print(
                f"gate {name} at {label}: {role.value} took the gate (found {turn.found}"
                + (f"; purged {purged}" if purged else "")
                + ")"
            )

    with handled(as_json):
        check_command(role, command or [])
        db, label, pfx = target(location, url, prefix)
        tables = [t.strip() for t in (purge or "").split(",") if t.strip()]
        turn, after = run_turn(
            GatePlace(db, label, pfx),
            role,
            name,
            command or [],
            wait=wait,
            purge_tables=tables,
            on_taken=taken,
        )
    if as_json:
        emit_json({"turn": turn.to_dict(), "status": after.to_dict() if after else None})
    else:
        err.print(f"gate {name} at {label}: {after.row.state if after else '?'}")


def _show(rows: list[dict[str, Any]]) -> None:
    t = Table("gate", "state", "age (s)", "host", "pid", "command", "turns")
    for r in rows:
        h = r["holder"]
        age = f"{r['age_s']:.0f}" if r["age_s"] is not None else ""
        t.add_row(
            r["gate"], r["state"], age, h["host"] or "", str(h["pid"] or ""), h["command"] or "",
            str(r["turns"]),
        )  # fmt: skip
    out.print(t)


def register(app: typer.Typer) -> None:
    gate_app = typer.Typer(
        name="gate",
        help="Gates: safe turns between a batch producer and a consumer of transport tables.",
        no_args_is_help=True,
    )
    app.add_typer(gate_app, name="gate")

    @gate_app.command("produce")
    def produce(
        name: Annotated[str, typer.Argument(help="the gate's name")],
        command: Command = None,
        wait: Wait = 0.0,
        purge_tables: Annotated[
            str | None,
            typer.Option("--purge-tables", help="t1,t2: emptied when the consumer loaded them"),
        ] = None,
        location: Location = None,
        url: Url = None,
        prefix: Prefix = None,
        as_json: Json = False,
    ) -> None:
        """Run COMMAND as the producer's turn; sets OperationalSysLoaded if it exits 0."""
        _turn(Role.PRODUCER, name, command, wait, purge_tables, location, url, prefix, as_json)

    @gate_app.command("consume")
    def consume(
        name: Annotated[str, typer.Argument(help="the gate's name")],
        command: Command = None,
        wait: Wait = 0.0,
        location: Location = None,
        url: Url = None,
        prefix: Prefix = None,
        as_json: Json = False,
    ) -> None:
        """Run COMMAND as the consumer's turn; sets WarehouseLoaded if it exits 0."""
        _turn(Role.CONSUMER, name, command, wait, None, location, url, prefix, as_json)

    @gate_app.command("status")
    def status(
        name: Annotated[str | None, typer.Argument(help="one gate (default: all)")] = None,
        location: Location = None,
        url: Url = None,
        prefix: Prefix = None,
        as_json: Json = False,
    ) -> None:
        """Show the state of a gate (or of every gate), its age and its holder."""
        from syncpoint.ops.gate import Gate

        with handled(as_json):
            db, label, pfx = target(location, url, prefix)
            g = Gate(db, name or "*", prefix=pfx, location=label)
            if name is None:
                rows = [s.to_dict() for s in g.statuses()]
            else:
                one = g.status()
                if one is None:
                    raise WorkFailed(
                        f"gate {name!r} does not exist (prefix {pfx}); its first produce, "
                        f"consume or reset creates it as WarehouseLoaded",
                        location=label,
                    )
                rows = [one.to_dict()]
        if as_json:
            emit_json(rows[0] if name is not None else {"location": label, "gates": rows})
        elif rows:
            _show(rows)
        else:
            out.print(f"{label}: no gates (prefix {pfx})")

    @gate_app.command("reset")
    def reset(
        name: Annotated[str, typer.Argument(help="the gate's name")],
        to: Annotated[str, typer.Option("--to", help="the state to set, e.g. WarehouseLoaded")],
        location: Location = None,
        url: Url = None,
        prefix: Prefix = None,
        as_json: Json = False,
    ) -> None:
        """Set a gate's state after a human has checked a failed run."""
        from syncpoint.ops.gate import Gate

        with handled(as_json):
            try:
                new = parse_state(to)
            except ValueError as exc:
                raise UsageError(f"--to: {exc}") from None
            db, label, pfx = target(location, url, prefix)
            done = Gate(db, name, prefix=pfx, location=label).reset(new)
        if as_json:
            emit_json(done)
        else:
            p = done["previous"]
            out.print(
                f"gate {name} at {label}: {done['from']} -> {done['to']} (was set by host "
                f"{p['holder']['host']} pid {p['holder']['pid']}, {p['age_s']:.0f} s before)"
            )
