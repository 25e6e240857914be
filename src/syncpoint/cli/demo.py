"""``syncpoint demo [--keep DIR] [--json]``: run the embedded demo and show what happened."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from syncpoint.cli.common import emit_json, handled, out
from syncpoint.core.model import loads


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo(
        keep: Annotated[
            Path | None,
            typer.Option("--keep", help="work in DIR and keep the files (default: a temp folder)"),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Run syncpoint on two embedded SQLite sources and show the captured changes."""
        from syncpoint import demo as demomod

        with handled(as_json):
            if keep is not None:
                state = demomod.run(keep.resolve(), None if as_json else _step)
            else:
                with tempfile.TemporaryDirectory(prefix="syncpoint-demo-") as tmp:
                    state = demomod.run(Path(tmp), None if as_json else _step)
        if as_json:
            emit_json(_data(state, keep is not None))
        else:
            _show(state, keep is not None)
        if not state.ok:
            raise typer.Exit(1)


def _step(title: str) -> None:
    out.print(f"[bold]•[/] {title}")


def _data(state: Any, kept: bool) -> dict[str, Any]:
    return {
        "workdir": str(state.workdir),
        "kept": kept,
        "config": str(state.config),
        "written": state.written,
        "ticks": state.ticks,
        "records": state.records,
        "checks": state.checks,
        "status": state.status,
        "ok": state.ok,
    }


def _key(rec: dict[str, Any]) -> str:
    from syncpoint.demo.steps import KEYS

    row = loads(rec["content"]) or loads(rec["oldcontent"]) or {}
    return ", ".join(f"{k}={row.get(k)}" for k in KEYS[rec["table"]])


def _change(rec: dict[str, Any]) -> str:
    """What the record says in a few words: new values, changed values, or removal."""
    from syncpoint.demo.steps import KEYS

    new, old = loads(rec["content"]), loads(rec["oldcontent"])
    keys = KEYS[rec["table"]]
    if new is None:
        return "row removed"
    if old is None:
        return " ".join(f"{k}={v}" for k, v in new.items() if k not in keys)
    return " ".join(f"{k}: {old.get(k)} → {v}" for k, v in new.items() if old.get(k) != v)


def _show(state: Any, kept: bool) -> None:
    for loc, done in state.written.items():
        out.print(f"\n[bold]{loc}[/]: application transactions")
        for line in done:
            out.print(f"  {line}", markup=False)
    for loc, recs in state.records.items():
        tick = state.ticks[loc]
        t = Table(
            "repl_key",
            "tick",
            "table",
            "action",
            "key",
            "change",
            title=f"change records at {loc}, up to tick {tick['context']}",
        )
        for r in recs:
            t.add_row(
                str(r["repl_key"]), str(r["context"]), r["table"], r["action"], _key(r), _change(r)
            )
        out.print(t)
    out.print()
    for c in state.checks:
        mark = "[green]ok[/]" if c["ok"] else "[red]FAILED[/]"
        out.print(f"{mark} {c['location']} {c['table']}: {c['check']}")
    out.print()
    for loc, st in state.status.items():
        if "error" in st:
            out.print(f"[red]{loc}: {st['error']}[/]")
            continue
        tables = ", ".join(f"{t['table']} {t['status']} ({t['pending']})" for t in st["tables"])
        out.print(
            f"{loc}: capture installed, position {st['context']}, {st['pending']} change "
            f"records queued; {tables}",
            markup=False,
        )
    where = f"files kept in {state.workdir}" if kept else "temporary files removed"
    out.print(f"\ndemo {'passed' if state.ok else 'FAILED'}; {where}")
