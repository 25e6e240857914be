"""PostgreSQL: connecting, quoting, and translating psycopg errors into syncpoint's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import sql

from syncpoint.config import redact_url
from syncpoint.errors import (
    Deadlock,
    DuplicateKey,
    LocationError,
    LockTimeout,
    MissingObject,
    TransientError,
)

NAME = "postgres"
TITLE = "PostgreSQL"  # the vendor as messages name it
JDBC_DRIVER = "org.postgresql.Driver"
JDBC_JAR = "/usr/share/java/postgresql.jar"
# Spark may read and write this database over several JDBC connections at once.
JDBC_PARALLEL = True
HAS_SCHEMAS = True
# The methods a created target index can have here (lower case, as catalogs name them);
# an index of another method is left out, or made so that it takes every value
# (ops/created.py)
INDEX_METHODS = ("btree", "hash", "gist", "gin", "spgist", "brin")
INDEX_USING = True  # the method follows the table (USING gist), or is a kind (FULLTEXT)
PARAM = "%s"  # the driver's placeholder for a bound value
ALTERS_TYPES = True  # a column type change at the source is applied to the target
UPSERT_ANY_UNIQUE = False  # an upsert names the unique index it acts on
# char(n) pads a value with blanks to n, and trailing blanks never count in comparisons:
# a value stored here is equal to the same text without them (``verify`` compares so)
CHAR_TRAILING_BLANKS_COUNT = False
# ``verify`` can sum row hashes per range here (sql/snapshot/range_sums.sql)
ROW_SUMS_IN_DB = True
ADDS_FOREIGN_KEYS = True  # created target tables get the foreign keys among the channel's tables
DEFAULT_SCHEMA = "public"

# SQLSTATEs (and classes) worth a retry: connection loss, serialization failure, deadlock,
# insufficient resources (disk full, out of memory, too many connections), an object in
# use, lock not available, a statement cancelled (statement_timeout), admin shutdown, an
# I/O error. Any other error is terminal, whatever psycopg's class: it files class 54
# (program limit exceeded: "index row requires 19232 bytes, maximum size is 8191") and
# 55000 (object not in prerequisite state) under OperationalError, which no retry mends.
_TRANSIENT = (
    "08",
    "40001",
    "40P01",
    "53",
    "55006",
    "55P03",
    "57014",
    "57P01",
    "57P02",
    "57P03",
    "58",
)
# The refinements of LocationError callers test for (``errors.py``), by SQLSTATE: a unique
# violation, or a catalog name taken by a concurrent CREATE; an undefined table, column,
# function or schema.
_LOCK_TIMEOUT = "55P03"
_DEADLOCK = "40P01"
_DUPLICATE = ("23505", "42P07", "42710")
_MISSING = ("42P01", "42703", "42883", "3F000")


def quote(name: str) -> str:
    return sql.Identifier(name).as_string(None)


def literal(value: str) -> str:
    return sql.Literal(value).as_string(None)


def translate(exc: Exception, location: str | None = None, table: str | None = None) -> Exception:
    if isinstance(exc, psycopg.Error):
        state = getattr(exc, "sqlstate", None) or ""
        msg = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        cls = _error_class(state, isinstance(exc, psycopg.OperationalError))
        return cls(
            f"PostgreSQL: {msg}" + (f" (SQLSTATE {state})" if state else ""),
            location=location,
            table=table,
        )
    return exc


def _error_class(state: str, operational: bool) -> type[LocationError]:
    if state == _LOCK_TIMEOUT:
        return LockTimeout
    if state == _DEADLOCK:
        return Deadlock
    # an OperationalError without a SQLSTATE is the client's: the connection was lost
    if (operational and not state) or state.startswith(_TRANSIENT):
        return TransientError
    if state in _DUPLICATE:
        return DuplicateKey
    if state in _MISSING:
        return MissingObject
    return LocationError


@contextmanager
def translated(location: str | None = None, table: str | None = None) -> Iterator[None]:
    try:
        yield
    except psycopg.Error as exc:
        raise translate(exc, location, table) from exc


def jvm_properties() -> dict[str, str]:
    """Java system properties Spark's JVMs need for this vendor's JDBC driver (none)."""
    return {}


def file_of(url: str) -> str | None:
    """The database file of a location, for vendors whose database is one (not this one)."""
    return None


def conninfo(url: str) -> str:
    """libpq's connection string of a location URL (its query string holds libpq parameters)."""
    return "postgresql://" + url.split("://", 1)[1]


def connect(url: str, *, location: str | None = None, autocommit: bool = False) -> Any:
    try:
        return psycopg.connect(conninfo(url), autocommit=autocommit, connect_timeout=10)
    except psycopg.Error as exc:
        err = translate(exc, location)
        err.message = f"cannot connect to {redact_url(url)}: {err.message}"  # type: ignore[attr-defined]
        raise err from None


# libpq connection parameters whose PostgreSQL JDBC driver property has another name; the
# others (sslmode, sslrootcert, sslcert, sslkey, sslpassword, options, ...) share theirs.
JDBC_PARAM_NAMES = {
    "connect_timeout": "connectTimeout",
    "application_name": "ApplicationName",
    "dbname": "PGDBNAME",
}


def jdbc(url: str) -> tuple[str, dict[str, str]]:
    """JDBC URL and properties (user/password kept out of the URL). Every connection
    parameter of the URL's query string (``?sslmode=verify-full&sslrootcert=...``) becomes a
    driver property, so Spark's connections are made as psycopg's are. (The JDBC driver
    reads ``sslkey`` as a PKCS-8 DER file where libpq reads PEM.)"""
    from urllib.parse import parse_qsl, unquote, urlsplit

    p = urlsplit(url)
    props = {"driver": JDBC_DRIVER}
    for k, v in parse_qsl(p.query, keep_blank_values=True):
        props[JDBC_PARAM_NAMES.get(k, k)] = v
    if p.username:
        props["user"] = unquote(p.username)
    if p.password:
        props["password"] = unquote(p.password)
    return f"jdbc:postgresql://{p.hostname or 'localhost'}:{p.port or 5432}{p.path}", props


def spark_jdbc(url: str) -> tuple[str, dict[str, str]]:
    """``jdbc`` for Spark's reads and staging writes (inserts batched into one statement)."""
    jurl, props = jdbc(url)
    sep = "&" if "?" in jurl else "?"
    return jurl + sep + "reWriteBatchedInserts=true", props


def db_time(dt: Any) -> Any:
    """A Python UTC datetime as this driver binds a timestamptz."""
    return dt


def py_time(value: Any) -> Any:
    """A timestamptz read back as an aware UTC datetime."""
    from datetime import UTC

    return value.astimezone(UTC) if value is not None else None
