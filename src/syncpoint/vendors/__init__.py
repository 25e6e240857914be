"""Vendor registry: one package per database vendor, loaded lazily by URL scheme.

Every vendor package has the same modules with the same roles (``dialect.py``,
``capture.py``, ``integrate.py``, ``gate.py``, ``sql/``), so ``postgres/`` beside ``sqlite/``
shows only real differences. Nothing outside ``vendors/`` imports a driver.
"""

from __future__ import annotations

import contextvars
import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from syncpoint.config import SCHEMES

if TYPE_CHECKING:
    from syncpoint.vendors.base import Capture

_CAPTURE_CLASS = {
    "postgres": "PostgresCapture",
    "mariadb": "MariadbCapture",
    "sqlite": "SqliteCapture",
}


# Set by the commands that must change nothing (validate, plan, status): every connection
# opened meanwhile leaves its location as it is (see each dialect's ``connect``).
UNCHANGED: contextvars.ContextVar[bool] = contextvars.ContextVar("unchanged", default=False)


@contextmanager
def unchanged() -> Iterator[None]:
    """Within this block, connections change nothing by being opened (SQLite: a missing file
    is an error instead of being created, the journal mode is left as it is)."""
    token = UNCHANGED.set(True)
    try:
        yield
    finally:
        UNCHANGED.reset(token)


def vendor_of(url: str) -> str:
    return SCHEMES[url.split("://", 1)[0].lower()]


def module(vendor: str, role: str) -> Any:
    """``module("postgres", "capture")`` imports ``syncpoint.vendors.postgres.capture``."""
    return importlib.import_module(f"syncpoint.vendors.{vendor}.{role}")


def capture_for(location: str, url: str, prefix: str) -> Capture:
    vendor = vendor_of(url)
    cls = getattr(module(vendor, "capture"), _CAPTURE_CLASS[vendor])
    return cls(location=location, url=url, prefix=prefix)  # type: ignore[no-any-return]


def connect(url: str, *, location: str | None = None, autocommit: bool = False) -> Any:
    """A DB-API connection to ``url`` with the vendor's errors translated."""
    return module(vendor_of(url), "dialect").connect(url, location=location, autocommit=autocommit)
