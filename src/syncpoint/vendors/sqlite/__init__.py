"""SQLite 3.35+ (the standard sqlite3 module).

What the vendor registry (``syncpoint.vendors.get``) takes from every vendor package,
under the same names in each.
"""

from syncpoint.vendors.sqlite import dialect, snapshot, transport, types
from syncpoint.vendors.sqlite.capture import SqliteCapture as Capture
from syncpoint.vendors.sqlite.cdr import SqliteCdr as Cdr
from syncpoint.vendors.sqlite.gate import SqliteGateStore as GateStore
from syncpoint.vendors.sqlite.integrate import SqliteIntegrate as Integrate

__all__ = ["Capture", "Cdr", "GateStore", "Integrate", "dialect", "snapshot", "transport", "types"]
