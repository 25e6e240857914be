"""The command reference of the docs (``docs/commands.md``), generated from the CLI itself so
that it never drifts: ``python -m syncpoint.cli.docgen docs/commands.md`` (``make docs``
runs it; a test fails when the committed file differs from what this prints)."""

from __future__ import annotations

import sys
from typing import Any

import typer

# typer may carry its own copy of click: the objects are read by their attributes only
Command = Any

HEADER = """# Command reference

This page is generated from the command line itself (`make docs` regenerates it). Every
command takes the global options first: `syncpoint [-c FILE] [--verbose] [--log-file PATH]
COMMAND ...`. Exit codes: 0 success, 1 the work failed (the message says why; nothing is
half applied), 2 usage or configuration error (nothing was touched), 3 a gate refused.
"""


def _is_group(cmd: Command) -> bool:
    return isinstance(getattr(cmd, "commands", None), dict)


def _walk(cmd: Command, path: list[str]) -> list[tuple[list[str], Command]]:
    found = [(path, cmd)]
    if _is_group(cmd):
        for name in sorted(cmd.commands):
            found += _walk(cmd.commands[name], [*path, name])
    return found


def _default(p: Any) -> str:
    if p.param_type_name == "option" and (p.is_flag or p.default is None or p.default == ()):
        return ""
    d: Any = p.default
    return "" if d is None or callable(d) else f"`{d}`"


def _section(path: list[str], cmd: Command) -> str:
    ctx = cmd.context_class(cmd, info_name=" ".join(["syncpoint", *path]))
    usage = " ".join(cmd.collect_usage_pieces(ctx)) if hasattr(cmd, "collect_usage_pieces") else ""
    title = " ".join(path) if path else "syncpoint (global options)"
    lines = [f"## `{title}`", "", (cmd.help or "").strip(), ""]
    lines += ["```", f"{ctx.info_name} {usage}".rstrip(), "```", ""]
    rows = []
    for p in cmd.params:
        if p.param_type_name == "option":
            record = p.get_help_record(ctx)
            names = f"`{record[0]}`" if record else ", ".join(f"`{o}`" for o in p.opts)
            rows.append((names, p.help or "", _default(p)))
        elif p.param_type_name == "argument":
            rows.append((f"`{(p.name or '').upper()}`", getattr(p, "help", "") or "", ""))
    if rows:
        lines += ["| option or argument | meaning | default |", "|---|---|---|"]
        lines += [f"| {n} | {h.replace('|', '/')} | {d} |" for n, h, d in rows]
        lines.append("")
    return "\n".join(lines)


def commands(app: typer.Typer | None = None) -> list[str]:
    """Every command path, e.g. ``["run", "gate produce", ...]``."""
    from syncpoint.cli.main import app as main_app

    root = typer.main.get_command(app or main_app)
    return [" ".join(p) for p, _ in _walk(root, []) if p]


def render() -> str:
    from syncpoint.cli.main import app

    root = typer.main.get_command(app)
    parts = [HEADER]
    for path, cmd in _walk(root, []):
        if _is_group(cmd) and path:
            parts.append(f"## `{' '.join(path)}`\n\n{(cmd.help or '').strip()}\n")
            continue
        parts.append(_section(path, cmd))
    return "\n".join(parts).rstrip() + "\n"


def main() -> None:
    text = render()
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
