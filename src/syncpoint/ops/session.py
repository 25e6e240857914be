"""The SparkSession of the operations: ``spark/session.py``'s, with every vendor's JDBC
driver (the jars found on this machine and the Java properties they need, from the
vendors' dialects), so that ``spark/`` itself knows no vendor."""

from __future__ import annotations

from typing import Any

from syncpoint import vendors
from syncpoint.config import SparkConfig


def get_session(cfg: SparkConfig) -> Any:
    """One SparkSession per process (built by the first call)."""
    from syncpoint.spark import session

    jars, props = vendors.jvm_setup()
    return session.get_session(cfg, jars, props)


def prestart(cfg: SparkConfig) -> None:
    """Start that session in a thread (a round that will need it is still reading)."""
    from syncpoint.spark import session

    jars, props = vendors.jvm_setup()
    session.prestart(cfg, jars, props)


def running() -> bool:
    """Whether this process has a Spark session, started or starting."""
    from syncpoint.spark import session

    return session.started()


def local_slots(master: str) -> int:
    """How many tasks a local master runs at once (``local``, ``local[N]``, ``local[*]``,
    ``local[N,F]``); 0 for any other master."""
    import os
    import re

    m = re.fullmatch(r"local(?:\[(\d+|\*)(?:,\d+)?\])?", master.strip())
    if m is None:
        return 0
    if m.group(1) in (None, ""):
        return 1
    return (os.cpu_count() or 1) if m.group(1) == "*" else max(1, int(m.group(1)))
