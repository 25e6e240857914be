"""A private PostgreSQL server with ``wal_level = logical`` for the log capture tests: one
per test process (session scope), started on first use and stopped at the end, so that the
shared server on 5432 is never reconfigured. Each test gets its own database in it.

    def test_x(log_db): ...  # fixtures from tests/conftest.py (pytest_plugins)
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from bench.private_pg import private_cluster

from tests.conftest import Db


@pytest.fixture(scope="session")
def log_pg() -> Iterator[str]:
    """The base URL (no database) of this process's private logical-level server."""
    try:
        with private_cluster(
            {"max_replication_slots": "40", "max_wal_senders": "40", "fsync": "off"}
        ) as base:
            yield base
    except RuntimeError as exc:  # no initdb on this machine
        pytest.skip(str(exc))


def make_log_db(base: str) -> Iterator[Db]:
    name = f"sp_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield Db("postgres", f"{base}/{name}", name)
    finally:
        with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
            # slots of the database first: a database with a slot cannot be dropped
            admin.execute(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                "WHERE database = %s AND NOT active",
                (name,),
            )
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def log_db(log_pg: str) -> Iterator[Db]:
    yield from make_log_db(log_pg)
