"""The PostgreSQL-to-PostgreSQL walk-through of ``docs/getting-started.md`` runs as written:
the page's own text is read and followed in order: its SQL (the role and the databases as
the superuser, the tables "in shop"), its shell lines (``export``, ``mkdir``, ``cd`` and each
``syncpoint`` command, every one exiting 0) and its channel file, written where the page
says. Only the names of the role and the two databases are made unique (tests run beside
each other on one server), everywhere in the page at once; the target ends equal to the
source."""

from __future__ import annotations

import re
import shlex
import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from syncpoint.cli.main import app
from tests.conftest import PG_ADMIN

pytestmark = pytest.mark.spark
DOC = Path(__file__).resolve().parents[2] / "docs" / "getting-started.md"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
NOT_HERE = ("--follow", "serve", "demo")  # long-running, or the demo's own section


def steps(rename: dict[str, str]) -> list[tuple[str, str]]:
    text = DOC.read_text("utf-8")
    text = text[text.index("## 2. Your first channel") :]
    for old, new in rename.items():
        text = re.sub(rf"\b{old}\b", new, text)
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def run_sql(block: str, shop: str) -> None:
    lines = block.splitlines()
    db = shop if lines[0].strip() == f"-- in {shop}:" else "postgres"
    body = "\n".join(ln for ln in lines if not ln.lstrip().startswith("--"))
    with psycopg.connect(PG_ADMIN.rsplit("/", 1)[0] + "/" + db, autocommit=True) as conn:
        for stmt in (s.strip() for s in body.split(";")):
            if stmt:
                conn.execute(stmt)  # type: ignore[call-overload]


def test_the_walk_through_runs_as_written(
    tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    u = uuid.uuid4().hex[:8]
    names = {"shop": f"shop_{u}", "warehouse": f"warehouse_{u}", "etl": f"etl_{u}"}
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    ran: list[tuple[str, str]] = []
    try:
        for lang, block in steps(names):
            if lang == "sql":
                run_sql(block, names["shop"])
            elif lang == "yaml" and block.startswith("channel:"):
                Path("syncpoint.yaml").write_text(block, encoding="utf-8")  # replaces init's
            elif lang == "sh":
                for line in block.splitlines():
                    line = line.split(" #")[0].strip()
                    if line.endswith("&") or any(w in NOT_HERE for w in line.split()):
                        continue
                    for cmd in line.split("&&"):
                        ran += shell(cmd.strip(), runner, monkeypatch)
        commands = [c for c, _ in ran]
        for c in ("init", "validate", "plan", "install", "snapshot", "run", "status", "verify"):
            assert c in commands
        assert commands[-1] == "uninstall"
        assert (tmp_path / f"{names['shop']}-channel" / "syncpoint.yaml").exists()  # outside
        plan = next(o for c, o in ran if c == "plan")
        assert "-- location dw:" in plan and "repl_stream_positions" in plan
        first_status = next(o for c, o in ran if c == "status")
        assert "syncpoint snapshot" in first_status  # the hint before anything is loaded
        status_text = [o for c, o in ran if c == "status"][1]
        assert "cen" not in status_text and "dw: integrate" in status_text
        q = "SELECT id, customer_id, amount FROM orders ORDER BY id"
        with psycopg.connect(PG_ADMIN.rsplit("/", 1)[0] + "/" + names["shop"]) as s:
            want = s.execute(q).fetchall()
        with psycopg.connect(PG_ADMIN.rsplit("/", 1)[0] + "/" + names["warehouse"]) as d:
            assert d.execute(q).fetchall() == want, ran
            assert [float(r[2]) for r in want] == [120.0, 15.0]
            assert d.execute("SELECT count(*) FROM customers").fetchall() == [(2,)]
        assert "3 changes read" in next(o for c, o in ran if c == "run"), ran
        assert "equal" in next(o for c, o in ran if c == "verify")
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
            for db in (names["shop"], names["warehouse"]):
                admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')  # type: ignore[call-overload]
            admin.execute(f'DROP ROLE IF EXISTS "{names["etl"]}"')  # type: ignore[call-overload]


def shell(cmd: str, runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """One shell command of the page: the few it uses, done as a shell would."""
    import os

    if cmd.startswith("export "):
        name, value = cmd.removeprefix("export ").split("=", 1)
        monkeypatch.setenv(name, os.path.expandvars(value.strip('"')))
        return []
    words = [os.path.expanduser(w) for w in shlex.split(cmd)]
    if not words:
        return []
    if words[0] == "mkdir":
        for w in words[1:]:
            if not w.startswith("-"):
                os.makedirs(w, exist_ok=True)
        return []
    if words[0] == "cd":
        monkeypatch.chdir(words[1])
        return []
    assert words[0] == "syncpoint", f"the page runs {cmd!r}, which this test does not know"
    done = runner.invoke(app, words[1:])
    assert done.exit_code == 0, f"{cmd}: {done.output}"
    return [(words[1], done.output)]
