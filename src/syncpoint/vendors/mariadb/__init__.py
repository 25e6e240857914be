"""MariaDB 10.6+ and MySQL 8 (PyMySQL).

What the vendor registry (``syncpoint.vendors.get``) takes from every vendor package,
under the same names in each.
"""

from typing import Any

from syncpoint.vendors.mariadb import dialect, snapshot, transport, types
from syncpoint.vendors.mariadb.capture import MariadbCapture as Capture
from syncpoint.vendors.mariadb.cdr import MariadbCdr as Cdr
from syncpoint.vendors.mariadb.gate import MariadbGateStore as GateStore
from syncpoint.vendors.mariadb.integrate import MariadbIntegrate as Integrate

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
        from syncpoint.vendors.mariadb.log.capture import MariadbLogCapture

        return MariadbLogCapture
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
