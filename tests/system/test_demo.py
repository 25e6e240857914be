"""``syncpoint demo``: the command a new user runs first exits 0 and shows what it did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SYNCPOINT = [sys.executable, "-m", "syncpoint.cli.main"]


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SYNCPOINT, *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def test_demo_json(tmp_path: Path) -> None:
    r = _run("demo", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(r.stdout)
    assert data["ok"] is True and data["kept"] is False
    assert not Path(data["workdir"]).exists()  # the temporary folder is gone
    assert sorted(data["records"]) == ["dec01", "dec02"]
    for loc, recs in data["records"].items():
        assert [(x["table"], x["action"]) for x in recs] == [
            ("customers", "INSERT"),
            ("customers", "INSERT"),
            ("orders", "INSERT"),
            ("order_lines", "INSERT"),
            ("order_lines", "INSERT"),
            ("orders", "UPDATE"),
            ("order_lines", "UPDATE"),
            ("orders", "INSERT"),
            ("order_lines", "INSERT"),
            ("order_lines", "DELETE"),
            ("orders", "DELETE"),  # ON DELETE CASCADE, captured
            ("customers", "DELETE"),
            ("customers", "INSERT"),  # INSERT OR REPLACE
        ]
        assert all(x["dbid"] == loc for x in recs)
        assert not any("Ghost" in (x["content"] or "") for x in recs)  # rolled back
        # one tick after each transaction: records land in ticks 1, 2 and 4 (3 rolled back)
        assert sorted({x["context"] for x in recs}) == [1, 2, 4]
        assert data["ticks"][loc]["context"] == 5
        st = data["status"][loc]
        assert st["installed"] and st["pending"] == 13 and st["context"] == 5
    assert len(data["checks"]) == 8 and all(c["ok"] for c in data["checks"])


def test_demo_text_keeps_its_files(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    r = _run("demo", "--keep", str(work))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "change records at dec01, up to tick 5" in r.stdout
    assert "ok dec02 order_lines: replayed change records equal the source table" in r.stdout
    assert "dec01: capture installed, position 5, 13 change records queued" in r.stdout
    assert f"demo passed; files kept in {work}" in r.stdout
    assert sorted(p.name for p in work.glob("*.db")) == ["dec01.db", "dec02.db"]
    # the kept files are a working channel
    st = _run("-c", str(work / "syncpoint.yaml"), "status", "--json")
    assert st.returncode == 0, st.stderr
    assert json.loads(st.stdout)["capture"]["dec02"]["pending"] == 13
    # running it again in the same folder starts afresh
    again = _run("demo", "--keep", str(work), "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["status"]["dec01"]["pending"] == 13
