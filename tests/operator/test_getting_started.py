"""The PostgreSQL-to-PostgreSQL walk-through of ``docs/getting-started.md`` runs as written:
its SQL, its channel file (with the test's databases for the two URLs) and each of its
``syncpoint`` command lines in document order, every one exiting 0, and the target ends equal
to the source."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from syncpoint.cli.main import app
from tests.conftest import make_pg

pytestmark = pytest.mark.spark
DOC = Path(__file__).resolve().parents[2] / "docs" / "getting-started.md"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
SRC_URL = "postgresql://postgres@127.0.0.1:5432/shop"
DST_URL = "postgresql://etl:${DW_PASSWORD}@127.0.0.1:5432/warehouse"
NOT_HERE = ("--follow", "serve", "demo")  # long-running, or the demo's own section


def steps() -> list[tuple[str, str]]:
    text = DOC.read_text("utf-8")
    text = text[text.index("## 2. Your first channel") :]
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def test_the_walk_through_runs_as_written(
    tmp_path: Path, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    gens = [make_pg(), make_pg()]
    src, dst = (next(g) for g in gens)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    ran = []
    try:
        for lang, block in steps():
            if lang == "sql":
                body = "\n".join(ln for ln in block.splitlines() if not ln.startswith("--"))
                stmts = [s.strip() for s in body.split(";") if s.strip()]
                src.execute(*[s for s in stmts if not s.upper().startswith("CREATE DATABASE")])
            elif lang == "yaml" and block.startswith("channel:"):
                assert SRC_URL in block and DST_URL in block
                text = block.replace(SRC_URL, src.url).replace(DST_URL, dst.url)
                (tmp_path / "syncpoint.yaml").write_text(text, encoding="utf-8")
            elif lang == "sh":
                for line in block.splitlines():
                    line = line.split(" #")[0].strip()
                    if line.startswith("export "):
                        name, value = line.removeprefix("export ").split("=", 1)
                        monkeypatch.setenv(name, value)
                        continue
                    words = shlex.split(line)
                    if not words or not words[0].endswith("syncpoint"):
                        continue
                    if any(w in NOT_HERE for w in words):
                        continue
                    done = runner.invoke(app, words[1:])
                    assert done.exit_code == 0, f"{line}: {done.output}"
                    ran.append((words[1], done.output))
        commands = [c for c, _ in ran]
        for c in ("init", "validate", "plan", "install", "snapshot", "run", "status", "verify"):
            assert c in commands
        assert commands[-1] == "uninstall"
        status_text = next(o for c, o in ran if c == "status")
        assert "cen" not in status_text and "dw: integrate" in status_text
        q = "SELECT id, customer_id, amount FROM orders ORDER BY id"
        assert dst.query(q) == src.query(q), ran
        assert [float(r[2]) for r in dst.query(q)] == [120.0, 15.0]
        assert dst.query("SELECT count(*) FROM customers") == [(2,)]
        assert "3 changes read" in next(o for c, o in ran if c == "run"), ran
        assert "equal" in next(o for c, o in ran if c == "verify")
    finally:
        for g in gens:
            next(g, None)
