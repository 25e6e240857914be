"""The user docs (``docs/``, built by ``make docs``) against the code: every command and option
is in the generated command reference, every configuration key is in the configuration
reference, every warning kind ``status`` can give has its troubleshooting entry, and every
example runs: channel files load and validate, command lines name real commands and options,
Python snippets compile, and the MkDocs site builds in strict mode."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from pydantic import BaseModel

from syncpoint import config
from syncpoint.cli import docgen
from syncpoint.cli.main import app
from syncpoint.observe.warnings import KINDS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)


def pages() -> dict[str, str]:
    return {p.name: p.read_text("utf-8") for p in sorted(DOCS.rglob("*.md"))}


def blocks(lang: str) -> list[tuple[str, str]]:
    return [
        (name, m.group(2))
        for name, text in pages().items()
        for m in FENCE.finditer(text)
        if m.group(1) == lang
    ]


def config_keys(model: type[BaseModel] = config.ChannelConfig, prefix: str = "") -> list[str]:
    """Every key of the channel file, dotted: ``spark.master``, ``tables[].name``,
    ``locations.NAME.url`` (NAME: a name the user chooses)."""
    keys = []
    for name, f in model.model_fields.items():
        key = prefix + (f.alias or name)
        keys.append(key)
        for sub, suffix in _nested(f.annotation):
            keys += config_keys(sub, key + suffix)
    return keys


def _nested(hint: Any) -> list[tuple[type[BaseModel], str]]:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if isinstance(hint, type) and issubclass(hint, BaseModel):
        return [(hint, ".")]
    if origin in (typing.Union, types.UnionType):
        return [n for a in args for n in _nested(a)]
    if origin is list and args:
        return [(m, "[]" + s) for m, s in _nested(args[0])]
    if origin is dict and len(args) == 2:
        return [(m, ".NAME" + s) for m, s in _nested(args[1])]
    return []


def test_the_command_reference_is_generated_from_the_cli() -> None:
    """``make docs`` regenerates docs/commands.md; a command added without it fails here."""
    assert (DOCS / "commands.md").read_text("utf-8") == docgen.render(), (
        "docs/commands.md is stale: run `python -m syncpoint.cli.docgen docs/commands.md`"
    )
    text = (DOCS / "commands.md").read_text("utf-8")
    for cmd in docgen.commands():
        assert f"## `{cmd}`" in text


def test_every_command_is_shown_in_a_guide_or_recipe() -> None:
    used = set()
    for name, args in _command_lines():
        if name != "commands.md":
            path, _problem = _parse(args)
            used.update(" ".join(path[:i]) for i in range(1, len(path) + 1))
    missing = [c for c in docgen.commands() if c not in used]
    assert missing == [], f"commands no guide or recipe shows: {missing}"


def test_every_config_key_is_in_the_configuration_reference() -> None:
    text = (DOCS / "config.md").read_text("utf-8")
    keys = config_keys()
    assert "spark.master" in keys and "tables[].name" in keys and "warnings.queue_rows" in keys
    missing = [k for k in keys if f"`{k}`" not in text]
    assert missing == [], f"config keys missing from docs/config.md: {missing}"


def test_every_warning_kind_has_a_troubleshooting_entry() -> None:
    text = (DOCS / "troubleshooting.md").read_text("utf-8")
    assert [k for k in KINDS if f"`{k}`" not in text] == []


def test_every_channel_file_example_loads_and_validates(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("CEN_PASSWORD", "EAST_PASSWORD", "WEST_PASSWORD", "DW_PASSWORD", "PG_PASSWORD"):
        monkeypatch.setenv(var, "secret")
    examples = [(n, b) for n, b in blocks("yaml") if re.search(r"^channel:", b, re.M)]
    assert len(examples) >= 5
    for name, block in examples:
        data = yaml.safe_load(block)
        cfg = config.from_dict(data, f"docs/{name}")  # raises ConfigError with every problem
        assert cfg.channel


def test_the_init_file_loads() -> None:
    from syncpoint.cli.init_cmd import __file__ as init_file  # noqa: F401 - the command exists

    example = Path(config.__file__).with_name("example.yaml")
    os.environ.setdefault("PG_PASSWORD", "secret")
    assert config.from_dict(yaml.safe_load(example.read_text("utf-8")), "example.yaml").channel


def _command_lines() -> list[tuple[str, list[str]]]:
    found = []
    for name, block in blocks("sh") + blocks("bash") + blocks("console"):
        for raw in block.replace("\\\n", " ").splitlines():
            line = raw.split(" #")[0].strip().removeprefix("$ ")
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            tokens, parts = list(lexer), [[]]
            for tok in tokens:
                if tok in ("&&", ";", "|", "||", "&", ">", ">>", "<"):
                    parts.append([])
                else:
                    parts[-1].append(tok)
            for words in parts:
                while words and ("=" in words[0] and not words[0].startswith("-")):
                    words = words[1:]  # VAR=value before the command
                if words and words[0].split("/")[-1] == "syncpoint":
                    found.append((name, words[1:]))
    return found


def _parse(args: list[str]) -> tuple[list[str], str | None]:
    """The command path of ``syncpoint ARGS`` and the first unknown command or option."""
    cmd, rest, path = typer.main.get_command(app), list(args), []
    while rest:
        head = rest.pop(0)
        if head == "--":
            break
        if head.startswith("-"):
            opt = head.split("=")[0]
            known = {o for p in cmd.params for o in [*p.opts, *getattr(p, "secondary_opts", [])]}
            if opt not in known | {"--help"}:
                return path, f"unknown option {opt}"
            p = next((p for p in cmd.params if opt in p.opts), None)
            if p is not None and not getattr(p, "is_flag", False) and "=" not in head and rest:
                rest.pop(0)  # the option's value
        elif isinstance(getattr(cmd, "commands", None), dict):
            if head not in cmd.commands:
                return path, f"unknown command {head}"
            cmd, path = cmd.commands[head], [*path, head]
    return path, None


def test_every_command_line_in_the_docs_names_real_commands_and_options() -> None:
    lines = _command_lines()
    assert len(lines) >= 20
    bad = []
    for name, args in lines:
        _path, problem = _parse(args)
        if problem:
            bad.append(f"{name}: syncpoint {' '.join(args)}: {problem}")
    assert bad == []


def test_every_python_example_compiles() -> None:
    examples = blocks("python")
    assert len(examples) >= 3
    for name, block in examples:
        compile(block, f"docs/{name}", "exec")


def test_the_site_builds_in_strict_mode(tmp_path: Path) -> None:
    pytest.importorskip("material", reason="mkdocs-material (the docs extra) is not installed")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "config" / "index.html").exists()
