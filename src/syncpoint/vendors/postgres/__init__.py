"""PostgreSQL 15+ (psycopg 3).

What the vendor registry (``syncpoint.vendors.get``) takes from every vendor package,
under the same names in each.
"""

from typing import Any

from syncpoint.vendors.postgres import dialect, snapshot, transport, types
from syncpoint.vendors.postgres.capture import PostgresCapture as Capture
from syncpoint.vendors.postgres.cdr import PostgresCdr as Cdr
from syncpoint.vendors.postgres.gate import PostgresGateStore as GateStore
from syncpoint.vendors.postgres.integrate import PostgresIntegrate as Integrate

__all__ = [
    "Capture",
    "Cdr",
    "GateStore",
    "Integrate",
    "LogCapture",
    "dialect",
    "snapshot",
    "transport",
    "types",
]


def __getattr__(name: str) -> Any:
    # log capture (its log reader and its drivers' modules) is imported where a location
    # captures from the log only: a round of trigger capture starts without it
    if name == "LogCapture":
        from syncpoint.vendors.postgres.log.capture import PostgresLogCapture

        return PostgresLogCapture
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
