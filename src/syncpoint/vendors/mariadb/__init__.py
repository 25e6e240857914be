"""MariaDB 10.6+ and MySQL 8 (PyMySQL).

What the vendor registry (``syncpoint.vendors.get``) takes from every vendor package,
under the same names in each.
"""

from syncpoint.vendors.mariadb import dialect, snapshot, transport, types
from syncpoint.vendors.mariadb.capture import MariadbCapture as Capture
from syncpoint.vendors.mariadb.cdr import MariadbCdr as Cdr
from syncpoint.vendors.mariadb.gate import MariadbGateStore as GateStore
from syncpoint.vendors.mariadb.integrate import MariadbIntegrate as Integrate
from syncpoint.vendors.mariadb.log.capture import MariadbLogCapture as LogCapture

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
