"""A private PostgreSQL 15 instance for the benches that need ``wal_level = logical`` (the
peers' apply) or a lot of WAL (10 million changes), so that the shared cluster on 5432 is
neither restarted nor filled.

``initdb`` (trust auth, user ``postgres``) into a temporary directory on the same disk as
the shared cluster, a free port on 127.0.0.1, the socket in the data directory, started
with ``pg_ctl``; stopped and removed when the ``with`` block ends, on an error, Ctrl-C or
SIGTERM alike. Run as root, the server runs as the ``postgres`` user (``initdb`` refuses
root).

    with private_cluster() as base:   # "postgresql://postgres@127.0.0.1:<port>"
        ...
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

PG_BIN = Path(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"))
SETTINGS = {
    "wal_level": "logical",
    "max_wal_senders": "10",
    "max_replication_slots": "10",
    "max_logical_replication_workers": "4",
    "listen_addresses": "'127.0.0.1'",
    # the launcher starts a subscription's apply worker at most once per this interval
    # (5 s by default): a standing start's ENABLE would otherwise wait for it
    "wal_retrieve_retry_interval": "'100ms'",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_server_user(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def private_cluster(settings: Mapping[str, str] | None = None) -> Iterator[str]:
    """Yields the base URL (no database) of a fresh PostgreSQL 15 server; ``settings`` are
    added to ``SETTINGS`` in its postgresql.conf."""
    if not (PG_BIN / "initdb").exists():
        raise RuntimeError(f"no initdb in {PG_BIN} (set PG_BIN)")
    # SIGTERM unwinds like Ctrl-C, so the finally below stops and removes the server
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    root = Path(tempfile.mkdtemp(prefix="sp_bench_pg_", dir=os.environ.get("BENCH_PG_DIR")))
    data = root / "data"
    if os.geteuid() == 0:
        pw = pwd.getpwnam("postgres")
        os.chown(root, pw.pw_uid, pw.pw_gid)
    port = free_port()
    started = False
    try:
        subprocess.run(
            _as_server_user([str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres",
                             "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"]),
            check=True, capture_output=True,
        )  # fmt: skip
        conf = {**SETTINGS, "port": str(port), "unix_socket_directories": f"'{data}'"}
        conf.update(settings or {})
        with open(data / "postgresql.conf", "a") as f:
            f.write("\n# bench/private_pg.py\n")
            f.writelines(f"{k} = {v}\n" for k, v in conf.items())
        subprocess.run(
            _as_server_user([str(PG_BIN / "pg_ctl"), "-D", str(data), "-l",
                             str(data / "server.log"), "-w", "-t", "120", "start"]),
            check=True, capture_output=True, start_new_session=True,
        )  # fmt: skip
        started = True
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        if started:
            stopped = subprocess.run(
                _as_server_user([str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "fast",
                                 "-w", "-t", "60", "stop"]),
                capture_output=True, start_new_session=True,
            )  # fmt: skip
            if stopped.returncode != 0:
                subprocess.run(
                    _as_server_user([str(PG_BIN / "pg_ctl"), "-D", str(data), "-m",
                                     "immediate", "-w", "stop"]),
                    capture_output=True, start_new_session=True,
                )  # fmt: skip
                time.sleep(1)
        shutil.rmtree(root, ignore_errors=True)
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    import psycopg

    with private_cluster() as url:
        with psycopg.connect(f"{url}/postgres") as c:
            print(url, c.execute("SHOW wal_level").fetchone())
