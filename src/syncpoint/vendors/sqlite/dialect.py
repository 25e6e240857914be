"""SQLite: connecting, quoting, and translating sqlite3 errors into syncpoint's."""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from syncpoint.errors import DuplicateKey, LocationError, LockTimeout, MissingObject

NAME = "sqlite"
TITLE = "SQLite"  # the vendor as messages name it
JDBC_DRIVER = "org.sqlite.JDBC"
JDBC_JAR = "/usr/share/java/sqlite-jdbc.jar"
# One writer per database file: parallel JDBC partitions only queue on its lock.
JDBC_PARALLEL = False
HAS_SCHEMAS = False
# The methods a created target index can have here (lower case, as catalogs name them);
# an index of another method is left out, or made so that it takes every value
# (ops/created.py)
INDEX_METHODS = ("btree",)
INDEX_USING = False  # the method follows the table (USING gist), or is a kind (FULLTEXT)
PARAM = "?"  # the driver's placeholder for a bound value
ALTERS_TYPES = False  # columns take any value: there is no type to alter
UPSERT_ANY_UNIQUE = False  # an upsert names the unique index it acts on
# a CHAR(n) column keeps text as written (TEXT affinity): trailing blanks are the value's
CHAR_TRAILING_BLANKS_COUNT = True
ADDS_FOREIGN_KEYS = False  # ALTER TABLE cannot add one: created target tables get none
BUSY_TIMEOUT_S = 30.0

# The refinements of LocationError callers test for (``errors.py``), by result code (the
# primary code is the extended one's low byte): the busy timeout ran out or a table was
# locked; a UNIQUE or PRIMARY KEY constraint failed. A missing table, column or function
# has only the generic SQLITE_ERROR, so for that one the message is read, here alone.
_BUSY, _LOCKED = 5, 6
_DUPLICATE = {1555, 2067}  # SQLITE_CONSTRAINT_PRIMARYKEY, SQLITE_CONSTRAINT_UNIQUE
_MISSING = ("no such table", "no such column", "no such function")


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def path_of(url: str) -> str:
    return url.split("sqlite:///", 1)[1] if url.startswith("sqlite:///") else url


# Debian's sqlite-jdbc keeps its native library outside the jar, in the JNI folder of the
# machine's architecture: the JVM is told where (its library path and sqlite-jdbc's own
# properties, which also work on a JVM that was already running).
JNI_LIBRARY = "libsqlitejdbc.so"


def jni_dir() -> str | None:
    """The folder holding sqlite-jdbc's native library: this machine's multiarch JNI folder
    first (``/usr/lib/<multiarch>/jni``), then any other Debian JNI folder that has it."""
    import glob
    import sysconfig

    arch = sysconfig.get_config_var("MULTIARCH")
    candidates = [f"/usr/lib/{arch}/jni"] if arch else []
    candidates += sorted(os.path.dirname(p) for p in glob.glob(f"/usr/lib/*/jni/{JNI_LIBRARY}"))
    candidates.append("/usr/lib/jni")
    for d in candidates:
        if os.path.exists(os.path.join(d, JNI_LIBRARY)):
            return d
    return None


def jvm_properties() -> dict[str, str]:
    """Java system properties Spark's JVMs need for this vendor's JDBC driver."""
    jni = jni_dir()
    if jni is None:
        return {}
    return {
        "java.library.path": jni,
        "org.sqlite.lib.path": jni,
        "org.sqlite.lib.name": JNI_LIBRARY,
    }


def file_of(url: str) -> str | None:
    """The database file of a location: connecting to a missing one creates it."""
    return path_of(url)


def translate(exc: Exception, location: str | None = None, table: str | None = None) -> Exception:
    if isinstance(exc, sqlite3.Error):
        text = str(exc)
        return _error_class(exc, text)(f"SQLite: {text}", location=location, table=table)
    return exc


def _error_class(exc: sqlite3.Error, text: str) -> type[LocationError]:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (_BUSY, _LOCKED):
        return LockTimeout
    if code in _DUPLICATE:
        return DuplicateKey
    if text.startswith(_MISSING):
        return MissingObject
    return LocationError


@contextmanager
def translated(location: str | None = None, table: str | None = None) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise translate(exc, location, table) from exc


def connect(url: str, *, location: str | None = None, autocommit: bool = False) -> Any:
    """A connection in autocommit mode at the driver level (``isolation_level=None``);
    callers open transactions explicitly with ``BEGIN IMMEDIATE`` so the write lock is taken
    before any read that a decision depends on. ``autocommit`` is accepted for symmetry.

    Inside ``vendors.unchanged()`` (validate, plan, status) a file that does not exist is an
    error (sqlite3 would create it) and the journal mode is left as the file has it."""
    from syncpoint.vendors import UNCHANGED

    path = path_of(url)
    keep = UNCHANGED.get()
    if keep and not os.path.isfile(path):
        raise LocationError(f"SQLite file {path} does not exist", location=location)
    try:
        target = f"file:{urllib.parse.quote(path)}?mode=rw" if keep else path
        conn = sqlite3.connect(
            target,
            timeout=BUSY_TIMEOUT_S,
            isolation_level=None,
            check_same_thread=False,
            uri=keep,
        )
        if not keep:
            conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn
    except sqlite3.Error as exc:
        raise translate(exc, location) from None


def jdbc(url: str) -> tuple[str, dict[str, str]]:
    return f"jdbc:sqlite:{path_of(url)}", {"driver": JDBC_DRIVER}


def spark_jdbc(url: str) -> tuple[str, dict[str, str]]:
    """``jdbc`` for Spark's reads and staging writes (waiting for the write lock as long as
    syncpoint's own connections do)."""
    jurl, props = jdbc(url)
    return jurl, {**props, "busy_timeout": str(int(BUSY_TIMEOUT_S * 1000))}


def db_time(dt: Any) -> Any:
    """SQLite has no time type: UTC as ISO 8601 text with microseconds (sorts as time)."""
    from datetime import UTC

    if dt is None:
        return None
    return dt.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def py_time(value: Any) -> Any:
    from datetime import UTC, datetime

    return datetime.fromisoformat(value).replace(tzinfo=UTC) if value is not None else None
