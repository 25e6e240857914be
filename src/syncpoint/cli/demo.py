"""``syncpoint demo [--seconds N] [--spark-master M] [--keep DIR] [--json]``: run the embedded
demo (``syncpoint.demo``) and show what happens while it happens.

Text mode prints each step as it starts and each round as it is committed; ``--json``
prints one document at the end (every step's results and every check). Exit 0 only when
every check passed, 1 otherwise.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table

from syncpoint.cli.common import emit_json, handled, out
from syncpoint.errors import UsageError

IND = "      "


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo(
        seconds: Annotated[
            float, typer.Option("--seconds", help="how long the live writers run")
        ] = 5.0,
        spark_master: Annotated[
            str, typer.Option("--spark-master", help="Spark master for the demo's channel")
        ] = "local[*]",
        keep: Annotated[
            Path | None,
            typer.Option("--keep", help="work in DIR and keep it (default: a temporary folder)"),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Replicate two embedded SQLite shops into a warehouse through Spark, live, and check
        the result."""
        from syncpoint import demo as demomod

        with handled(as_json):
            if not 0 < seconds <= 600:
                raise UsageError("--seconds must be more than 0 and at most 600")
            if keep is not None and keep.exists() and not keep.is_dir():
                raise UsageError(f"--keep {keep}: exists and is not a folder")
            show = None if as_json else Printer(len(demomod.STEPS))
            if keep is not None:
                workdir = keep.resolve()
                if show:
                    show.intro(workdir, kept=True)
                state = demomod.run(
                    workdir, seconds=seconds, spark_master=spark_master, listener=show
                )
            else:
                with tempfile.TemporaryDirectory(prefix="syncpoint-demo-") as tmp:
                    if show:
                        show.intro(Path(tmp), kept=False)
                    state = demomod.run(
                        Path(tmp), seconds=seconds, spark_master=spark_master, listener=show
                    )
        if as_json:
            emit_json(_document(state, keep is not None))
        else:
            assert show is not None
            show.summary(state, keep is not None)
        if not state.ok:
            raise typer.Exit(1)


def _document(state: Any, kept: bool) -> dict[str, Any]:
    return {
        "ok": state.ok,
        "workdir": str(state.workdir),
        "kept": kept,
        "config": str(state.config) if state.config else None,
        "seconds": state.results.get("seconds"),
        "checks": state.checks,
        "results": state.results,
    }


def _changes(per: dict[str, dict[str, int]]) -> str:
    parts = []
    for table, acts in per.items():
        parts.append(
            f"{table} +{acts.get('INSERT', 0)} ~{acts.get('UPDATE', 0)} -{acts.get('DELETE', 0)}"
        )
    return ", ".join(parts)


def _text(v: Any, none: str = "-") -> str:
    return none if v is None else str(v)


class Printer:
    """Renders the demo's events as they arrive (the listener of ``syncpoint.demo.run``)."""

    def __init__(self, steps: int):
        self.steps = steps

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        getattr(self, f"on_{kind}", self.on_other)(data)

    def intro(self, workdir: Path, kept: bool) -> None:
        out.print(
            "[bold]syncpoint demo[/]: two shops (SQLite dec01, dec02) replicated into a "
            "warehouse (SQLite cen) in consistent rounds through Spark"
        )
        fate = "kept" if kept else "removed at the end; --keep DIR keeps it"
        out.print(f"folder: {escape(str(workdir))} ({fate})")

    def line(self, text: str) -> None:
        out.print(IND + text)

    def on_other(self, data: dict[str, Any]) -> None:
        self.line(escape(str(data)))

    def on_note(self, data: dict[str, Any]) -> None:
        self.line(f"[dim]{escape(data['text'])}[/]")

    def on_step(self, data: dict[str, Any]) -> None:
        out.print(f"\n[bold cyan][{data['n']}/{self.steps}][/] [bold]{escape(data['title'])}[/]")

    def on_check(self, data: dict[str, Any]) -> None:
        mark = "[bold green]PASS[/]" if data["ok"] else "[bold red]FAIL[/]"
        self.line(f"{mark} {escape(data['check'])}: [dim]{escape(data['detail'])}[/]")

    def on_databases(self, data: dict[str, Any]) -> None:
        for loc, d in data["databases"].items():
            what = ", ".join(d["tables"]) or "empty"
            self.line(f"{loc}.db  {d['role']}: {what}")
        self.line(
            "[dim]orders.customer_id → customers, order_lines.order_id → orders "
            "(ON DELETE CASCADE); each site has its own key range[/]"
        )

    def on_config(self, data: dict[str, Any]) -> None:
        c = data["channel"]
        groups = "; ".join(f"{g}: {', '.join(ts)}" for g, ts in c["sync_groups"].items())
        tr = c["transport"]
        self.line(
            f"channel {c['channel']}, application {c['application']}, prefix {c['prefix']}, "
            f"Spark {escape(c['spark']['master'])}"
        )
        roles = ", ".join(
            f"{n} {'capture' if loc.get('capture') else 'integrate'}"
            for n, loc in c["locations"].items()
        )
        self.line(f"locations: {roles}; sync group {escape(groups)}")
        self.line(
            f"transport: gate {tr['gate']} at {tr['location']}, table(s) {', '.join(tr['tables'])}"
        )

    def on_install(self, data: dict[str, Any]) -> None:
        for loc, d in data["install"].items():
            tables = ", ".join(f"{t} {st}" for t, st in d["tables"].items())
            self.line(f"{loc}: {tables} [dim](change queue repl_items, row triggers)[/]")

    def on_spark(self, data: dict[str, Any]) -> None:
        self.line(
            f"Spark {data['version']} ({data['master']}) ready in {data['start_seconds']} s; "
            f"its own log: {escape(data['log'])}"
        )

    def on_round(self, data: dict[str, Any]) -> None:
        per = " + ".join(f"{loc} {n}" for loc, n in data["changes_per_location"].items())
        sps = " ".join(f"{loc}@{c}" for loc, c in data["sync_points"].items())
        took = f" in {data['seconds']} s" if data.get("seconds") is not None else ""
        head = f"[bold]round {data['round']}[/] group {data['group']} → {data['integrate']}: "
        if data["changes"]:
            what = f"{per} changes read, {data['rows_applied']} rows applied"
        else:
            what = "no new change records; positions moved to the new sync points"
        text = f"{head}{what}{took} [dim](sync points {sps})[/]"
        if data["phase"] == "while writing":
            done = ", ".join(f"{k} {v}" for k, v in data["writers_committed_at_start"].items())
            text += f" [dim]· transactions committed when the run began: {done}[/]"
        self.line(text)
        for s in data["stopped"]:
            self.line(f"[red]stopped: {escape(str(s))}[/]")

    def on_idle(self, data: dict[str, Any]) -> None:
        self.line(f"[dim]run --once: nothing new ({data['seconds']} s)[/]")

    def on_writers(self, data: dict[str, Any]) -> None:
        for loc, w in data["writers"].items():
            self.line(
                f"{loc} writer: {w['committed']} transactions committed, {w['rolled_back']} "
                f"rolled back; row changes {_changes(w['changes'])} "
                "[dim](+ insert ~ update - delete)[/]"
                + (f"; {w['busy']} given up on a lock timeout" if w["busy"] else "")
            )

    def on_status(self, data: dict[str, Any]) -> None:
        for loc, st in data["status"]["capture"].items():
            if "error" in st:
                self.line(f"[red]{loc}: {escape(st['error'])}[/]")
                continue
            self.line(
                f"{loc}: capture installed, position {st['context']}, {st['pending']} change "
                "records in its queue (applied ones are deleted by purge)"
            )
        for integ, st in data["status"]["integrate"].items():
            self.line(f"{integ}: integrate, application {st.get('application')}")
            if "error" in st:
                self.line(f"[red]{escape(st['error'])}[/]")
                continue
            t = Table("from", "table", "position", "sync point", "backlog", "lag s")
            for r in st["tables"]:
                lag = r.get("lag_seconds")
                t.add_row(
                    r["location"],
                    r["table"],
                    _text(r["position"]),
                    _text(r["sync_point"]),
                    _text(r.get("backlog"), "?"),
                    "?" if lag is None else f"{lag:.1f}",
                )
            out.print(Padding(t, (0, 0, 0, len(IND)), expand=False))
            for r in st["tables"]:
                if r.get("stopped") or r.get("error"):
                    why = r.get("stopped") or r.get("error")
                    self.line(f"[red]{r['location']} {r['table']}: {escape(str(why))}[/]")
        stamps = data["stamps"]
        row = stamps["row"] or {}
        self.line(
            f"receive stamps at cen ({escape(stamps['table'])}): every change captured at a "
            "location before its stamp is applied at cen"
        )
        t = Table("location", "stamp (UTC)", "epoch s", "sync point", "is")
        for loc, s in stamps["locations"].items():
            role = [r for r in ("leader", "trailer") if row.get(f"{r}_cap_loc") == loc]
            when = s["cap_begin"]
            t.add_row(
                loc,
                when.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] if when else "-",
                _text(int(when.timestamp()) if when else None),
                _text(s["sync_point"]),
                " and ".join(role),
            )
        out.print(Padding(t, (0, 0, 0, len(IND)), expand=False))

    def on_purge(self, data: dict[str, Any]) -> None:
        for loc, p in data["purge"].items():
            self.line(
                f"{loc}: {p['purged']} change records deleted (up to position {p['upto']}); "
                f"{p['queued_after']} left"
            )

    def on_turn(self, data: dict[str, Any]) -> None:
        states = [f"before: {data['before']}"]
        if data.get("during"):
            states.append(f"during the turn: {data['during']}")
        states.append(f"after: {data['after']}")
        self.line(f"[bold]{escape(data['who'])}[/]")
        self.line("  " + escape(";  ".join(states)))
        for what in data["work"]:
            self.line(f"  {escape(what)}")

    def summary(self, state: Any, kept: bool) -> None:
        failed = [c for c in state.checks if not c["ok"]]
        secs = state.results.get("seconds")
        out.print()
        if state.ok:
            out.print(f"[bold green]PASS[/]: all {len(state.checks)} checks passed in {secs} s")
        else:
            out.print(
                f"[bold red]FAIL[/]: {len(failed)} of {len(state.checks)} checks failed: "
                + escape("; ".join(c["check"] for c in failed))
            )
            err = state.results.get("error")
            if err:
                out.print(f"[red]{escape(err['step'])}: {escape(err['message'])}[/]")
        if kept:
            out.print(
                f"files kept in {escape(str(state.workdir))}; try: syncpoint -c "
                f"{escape(str(state.config))} status"
            )
        else:
            out.print("temporary files removed (--keep DIR keeps them)")
