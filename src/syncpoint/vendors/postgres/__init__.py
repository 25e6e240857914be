"""PostgreSQL 15+ (psycopg 3).

What the vendor registry (``syncpoint.vendors.get``) takes from every vendor package,
under the same names in each.
"""

from syncpoint.vendors.postgres import dialect, snapshot, transport, types
from syncpoint.vendors.postgres.capture import PostgresCapture as Capture
from syncpoint.vendors.postgres.cdr import PostgresCdr as Cdr
from syncpoint.vendors.postgres.gate import PostgresGateStore as GateStore
from syncpoint.vendors.postgres.integrate import PostgresIntegrate as Integrate
from syncpoint.vendors.postgres.log.capture import PostgresLogCapture as LogCapture

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
