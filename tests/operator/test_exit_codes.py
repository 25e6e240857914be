"""Exit codes as docs/commands.md gives them: ``status`` exits 1 when any location cannot be
read (saying why once), ``serve`` on a port in use exits 1 (not 3, a gate's refusal), and
``--version`` prints the version."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import yaml

import syncpoint
from tests.system import roundkit as rk


def test_status_exits_1_when_one_location_cannot_be_read(pg_db: Any, tmp_path: Path) -> None:
    rk.setup_source(pg_db)
    path = rk.write_config(tmp_path / "sp.yaml", {"src": pg_db}, pg_db)
    assert rk.syncpoint(path, "install").returncode == 0
    data = yaml.safe_load(path.read_text())
    gone = pg_db.url.rsplit("/", 1)[0] + "/sp_no_such_database"
    data["locations"]["cen"]["url"] = gone
    path.write_text(yaml.safe_dump(data))
    done = rk.syncpoint(path, "status")
    assert done.returncode == 1, done.stdout
    assert "src: capture installed" in done.stdout  # the readable location is still shown
    said = done.stdout + done.stderr
    assert said.count('database "sp_no_such_database" does not exist') == 1, said
    assert "error: could not read cen" in done.stderr
    done = rk.syncpoint(path, "status", "--json")
    assert done.returncode == 1
    assert "does not exist" in json.loads(done.stdout)["integrate"]["cen"]["error"]


def test_serve_on_a_busy_port_exits_1(sqlite_db: Any, tmp_path: Path) -> None:
    path = rk.write_config(tmp_path / "sp.yaml", {"src": sqlite_db}, sqlite_db)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        done = rk.syncpoint(path, "serve", "--port", str(port), timeout=120)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr


def test_version(tmp_path: Path) -> None:
    done = rk.syncpoint(tmp_path / "none.yaml", "--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"syncpoint {syncpoint.__version__}"


def test_status_piped_prints_whole_tables(pg_db: Any, tmp_path: Path) -> None:
    rk.setup_source(pg_db)
    path = rk.write_config(tmp_path / "sp.yaml", {"src": pg_db}, pg_db, app="a_long_application")
    assert rk.syncpoint(path, "install").returncode == 0
    done = rk.syncpoint(path, "status", env={"COLUMNS": ""})  # a pipe, as under cron
    assert done.returncode == 0, done.stderr
    rows = [ln for ln in done.stdout.splitlines() if "public.parent" in ln and "src" in ln]
    assert rows and all("…" not in ln for ln in done.stdout.splitlines()), done.stdout
    assert max(len(ln) for ln in done.stdout.splitlines()) > 80
