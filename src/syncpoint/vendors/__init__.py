"""The vendor registry: one package per database vendor, loaded lazily by name or URL scheme.

Every vendor package has the same modules with the same roles and exports the same names
(``Capture``, ``Integrate``, ``GateStore``, ``Cdr``, ``dialect``, ``types``, ``snapshot``,
``transport``), so ``postgres/`` beside ``sqlite/`` shows only real differences; ``get``
returns them as one ``Vendor``. Nothing outside ``vendors/`` imports a driver.
"""

from __future__ import annotations

import contextvars
import importlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from syncpoint.config import SCHEMES

if TYPE_CHECKING:
    from syncpoint.vendors.base import Capture
    from syncpoint.vendors.base import Capture as CaptureRole
    from syncpoint.vendors.cdrbase import CdrSite
    from syncpoint.vendors.gatestore import GateStore
    from syncpoint.vendors.integratebase import Integrate

NAMES = tuple(sorted(set(SCHEMES.values())))


@dataclass(frozen=True)
class Vendor:
    """One vendor's package: its roles (classes) and its data (modules)."""

    name: str
    Capture: type[Capture]
    Integrate: type[Integrate]
    GateStore: type[GateStore]
    Cdr: type[CdrSite]  # conflict bookkeeping and resolution at a site
    dialect: Any  # connecting, quoting, error translation, capability flags
    types: Any  # parse/render of column types, blank_padded (trailing blanks not kept)
    snapshot: Any  # rows as capture writes them, for snapshot and verify
    transport: Any  # binding and streaming the rows of transport tables
    # the package, whose ``LogCapture`` (capture from the database's log instead of
    # triggers, where the vendor has one) is imported when first asked for
    package: Any = None

    @property
    def LogCapture(self) -> type[CaptureRole] | None:  # noqa: N802 - the role's name
        return getattr(self.package, "LogCapture", None)

    def capture_class(self, kind: str) -> type[CaptureRole]:
        """The capture role for ``kind`` (``trigger`` or ``log``)."""
        if kind == "log":
            if self.LogCapture is None:
                raise ValueError(f"{self.name} has no log to capture from (capture: true)")
            return self.LogCapture
        return self.Capture


@cache
def get(name: str) -> Vendor:
    """The vendor called ``name`` (``postgres``, ``mariadb``, ``sqlite``)."""
    if name not in NAMES:
        raise ValueError(f"unknown vendor {name!r} (have: {', '.join(NAMES)})")
    pkg = importlib.import_module(f"syncpoint.vendors.{name}")
    return Vendor(
        name,
        pkg.Capture,
        pkg.Integrate,
        pkg.GateStore,
        pkg.Cdr,
        pkg.dialect,
        pkg.types,
        pkg.snapshot,
        pkg.transport,
        pkg,
    )


def jvm_setup() -> tuple[list[str], dict[str, str]]:
    """What Spark's JVMs need to reach every vendor: the JDBC driver jars found on this
    machine, and the Java system properties the drivers need."""
    jars: list[str] = []
    props: dict[str, str] = {}
    for name in NAMES:
        dialect = get(name).dialect
        if os.path.exists(dialect.JDBC_JAR):
            jars.append(dialect.JDBC_JAR)
        props.update(dialect.jvm_properties())
    return jars, props


def vendor_of(url: str) -> str:
    return SCHEMES[url.split("://", 1)[0].lower()]


def of_url(url: str) -> Vendor:
    """The vendor of the location at ``url``."""
    return get(vendor_of(url))


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


def connect(url: str, *, location: str | None = None, autocommit: bool = False) -> Any:
    """A DB-API connection to ``url`` with the vendor's errors translated."""
    return of_url(url).dialect.connect(url, location=location, autocommit=autocommit)
