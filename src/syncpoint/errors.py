"""The whole error tree of syncpoint.

Every error has a stable ``code`` (shown in ``--json`` output), an ``exit_code``
(docs/troubleshooting.md, "Exit codes") and a message that names the location, the table
and what the user can do next. The refinements a caller tests for (``DuplicateKey``,
``MissingObject``, ``LockTimeout``) keep their parent's code::

    SyncpointError
     ├── ConfigError            exit 2  the configuration file is wrong (nothing was touched)
     ├── UsageError             exit 2  the command line is wrong
     ├── WorkFailed             exit 1  the work failed; nothing was half applied
     │    ├── LocationError          a database could not be reached or refused a statement
     │    │    ├── DuplicateKey      a unique key or name is taken (a row, a catalog object)
     │    │    ├── MissingObject     a table, column or function the statement names is absent
     │    │    └── TransientError    worth retrying (lost connection, deadlock, lock timeout)
     │    │         ├── Deadlock          the transaction was chosen to end a deadlock
     │    │         └── LockTimeout       a lock wait ran out (another session holds it)
     │    │              └── RowLockTimeout    the gate's row stayed locked (gate_row_locked)
     │    ├── NotInstalled           capture objects of this prefix are missing
     │    ├── StreamIdentityError    a stored position is of another stream (reinstall, restore)
     │    ├── PositionConflict       another consumer moved the positions (compare-and-set failed)
     │    ├── FollowerBusy           another run --follow of this channel and application runs
     │    └── TableStopped           a table's rounds stop until the user acts (poison row, DDL)
     └── GateRefused            exit 3  a gate refused the turn (docs/objects.md)
          └── GateBusy               the other side held it until --wait ran out

Driver errors are translated into these at the vendor boundary (``vendors/*/dialect.py``),
by code, never by message text: PostgreSQL's SQLSTATE, MariaDB's error number, SQLite's
result code. ``DuplicateKey`` is SQLSTATE 23505 (and 42P07/42710, a catalog name taken),
MariaDB 1062/1050, SQLite's UNIQUE and PRIMARY KEY constraint codes; ``LockTimeout`` is
SQLSTATE 55P03, MariaDB 1205, SQLite BUSY/LOCKED; ``Deadlock`` is SQLSTATE 40P01 and
MariaDB 1213 (the connection stays usable: the transaction alone was rolled back);
``MissingObject`` is SQLSTATE 42P01,
42703, 42883, 3F000, MariaDB 1146/1054/1049/1305 and SQLite's "no such ..." errors (SQLite
gives them only the generic result code, so its dialect alone reads the message). Nothing
above the vendors catches a driver exception or reads an error's text.
"""

from __future__ import annotations


class SyncpointError(Exception):
    """Base of every error syncpoint raises on purpose."""

    code = "error"
    exit_code = 1

    def __init__(self, message: str, *, location: str | None = None, table: str | None = None):
        self.message = message
        self.location = location
        self.table = table
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = []
        if self.location:
            where.append(f"location {self.location}")
        if self.table:
            where.append(f"table {self.table}")
        return f"{', '.join(where)}: {self.message}" if where else self.message

    def to_dict(self) -> dict[str, object]:
        return {
            "error": self.code,
            "message": self.message,
            "location": self.location,
            "table": self.table,
            "exit_code": self.exit_code,
        }


class ConfigError(SyncpointError):
    """The configuration is invalid. ``problems`` lists each one as ``file: key: what``."""

    code = "config"
    exit_code = 2

    def __init__(self, message: str, problems: list[str] | None = None):
        self.problems = problems or [message]
        super().__init__(message)

    def __str__(self) -> str:
        if len(self.problems) == 1:
            return self.problems[0]
        return self.message + "\n" + "\n".join(f"  - {p}" for p in self.problems)

    def to_dict(self) -> dict[str, object]:
        d = super().to_dict()
        d["problems"] = self.problems
        return d


class UsageError(SyncpointError):
    code = "usage"
    exit_code = 2


class WorkFailed(SyncpointError):
    code = "failed"
    exit_code = 1


class LocationError(WorkFailed):
    """A database refused or could not be reached; the message says which and why."""

    code = "location"


class DuplicateKey(LocationError):
    """A row with the same unique key, or a catalog object with the same name, exists."""


class MissingObject(LocationError):
    """The table, column, schema or function a statement names does not exist."""


class TransientError(LocationError):
    """Lost connection, deadlock, serialization failure, lock timeout: safe to retry."""

    code = "transient"


class Deadlock(TransientError):
    """The database rolled the transaction back to end a deadlock; the connection is fine
    and the transaction may be done again at once."""


class LockTimeout(TransientError):
    """A lock wait ran out: another session held the lock for longer than allowed."""


class RowLockTimeout(LockTimeout):
    """The gate's row stayed locked by another session for longer than the lock timeout."""

    code = "gate_row_locked"


class NotInstalled(WorkFailed):
    code = "not_installed"


class StreamIdentityError(WorkFailed):
    code = "stream_identity"


class PositionConflict(WorkFailed):
    code = "position_conflict"


class FollowerBusy(WorkFailed):
    """Another ``run --follow`` of the same channel and application holds the follower lock."""

    code = "follower_busy"


class TableStopped(WorkFailed):
    code = "table_stopped"


class GateRefused(SyncpointError):
    """A gate refused the turn: the previous run of this role did not finish (until reset).
    ``gate`` holds the gate's name, state and holder for ``--json`` output."""

    code = "gate_refused"
    exit_code = 3

    def __init__(
        self, message: str, *, location: str | None = None, gate: dict[str, object] | None = None
    ):
        self.gate = gate
        super().__init__(message, location=location)

    def to_dict(self) -> dict[str, object]:
        d = super().to_dict()
        d["gate"] = self.gate
        return d


class GateBusy(GateRefused):
    """The other side held the gate (or there was nothing to load) until ``--wait`` ran out."""

    code = "gate_busy"
