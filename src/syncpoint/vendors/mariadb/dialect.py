"""MariaDB / MySQL: connecting, quoting, and translating PyMySQL errors into syncpoint's."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar
from urllib.parse import parse_qs, unquote, urlsplit

import pymysql

from syncpoint.config import redact_url
from syncpoint.errors import (
    Deadlock,
    DuplicateKey,
    LocationError,
    LockTimeout,
    MissingObject,
    TransientError,
)

NAME = "mariadb"
TITLE = "MariaDB"  # the vendor as messages name it
JDBC_DRIVER = "org.mariadb.jdbc.Driver"
JDBC_JAR = "/usr/share/java/mariadb-java-client.jar"
# Spark may read and write this database over several JDBC connections at once.
JDBC_PARALLEL = True
HAS_SCHEMAS = False  # a MariaDB "schema" is the database itself
# The methods a created target index can have here (lower case, as catalogs name them);
# an index of another method is left out, or made so that it takes every value
# (ops/created.py)
INDEX_METHODS = ("btree", "fulltext", "spatial")
INDEX_USING = False  # the method follows the table (USING gist), or is a kind (FULLTEXT)
PARAM = "%s"  # the driver's placeholder for a bound value
ALTERS_TYPES = True  # a column type change at the source is applied to the target
UPSERT_ANY_UNIQUE = True  # ON DUPLICATE KEY UPDATE acts on whichever unique index a row hits
# CHAR(n) drops a value's trailing blanks when it is read back: ``verify`` compares a
# value stored here without them
CHAR_TRAILING_BLANKS_COUNT = False
ADDS_FOREIGN_KEYS = True  # created target tables get the foreign keys among the channel's tables

# Lost connection, server gone, deadlock, lock wait timeout, too many connections.
_TRANSIENT = {1040, 1053, 1205, 1213, 2003, 2006, 2013, 2055}
# The refinements of LocationError callers test for (``errors.py``), by error number:
# lock wait timeout; duplicate entry, table exists; no such table, unknown column, unknown
# database, no such function, unknown table (DROP), cannot drop a missing column or key.
_LOCK_TIMEOUT = 1205
_DEADLOCK = 1213
_DUPLICATE = {1062, 1050}
_MISSING = {1146, 1054, 1049, 1305, 1051, 1091}


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def copy_text_tokens(head: Sequence[object] = ()) -> dict[str, str]:
    """The tokens of the window's line-writing reads (``window/range_text.sql``,
    ``ops_out_net.sql``, ``records_text.sql``): ``head`` (the round's columns) as a literal
    of the text COPY's and LOAD DATA's text formats read, each value followed by a tab,
    and each text column of the read escaped for those formats by SQL (NULL as \\N)."""
    bs = literal("\\")
    pairs = [(bs, literal("\\\\"))] + [
        (f"CHAR({code} USING utf8mb4)", literal("\\" + letter))
        for code, letter in ((10, "n"), (13, "r"), (9, "t"))
    ]

    def esc(column: str) -> str:
        out = column
        for a, b in pairs:
            out = f"REPLACE({out}, {a}, {b})"
        return f"IFNULL({out}, {literal(chr(92) + 'N')})"

    cols = {"content": "content", "old": "oldcontent", "dbid": "dbid", "key": "sp_key"}
    cols["old_key"] = "sp_old_key"
    line = "".join(_escaped(str(v)) + "\t" for v in head)
    return {"head": literal(line)} | {f"esc_{k}": esc(f"sp_r.{c}") for k, c in cols.items()}


def _escaped(v: str) -> str:
    """``v`` as a field of COPY's and LOAD DATA's text formats (the escapes ``esc`` makes
    in SQL)."""
    for a, b in (("\\", "\\\\"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t")):
        v = v.replace(a, b)
    return v


def literal(value: str, collate: bool = False) -> str:
    """A utf8mb4 string literal that reads as ``value`` under every sql_mode.

    Every session syncpoint opens (``connect``, ``jdbc``) sets NO_BACKSLASH_ESCAPES, and
    MariaDB stores that mode with each trigger created through it: there a backslash is an
    ordinary character, elsewhere an escape. A value without a backslash or NUL is written
    plainly, quotes doubled (the same in both modes); any other as a hex literal, which no
    mode reads differently. ``collate``: compare it byte for byte (utf8mb4_bin) rather than
    by the other side's collation.
    """
    tail = " COLLATE utf8mb4_bin" if collate else ""
    if "\\" not in value and "\0" not in value:
        return "_utf8mb4'" + value.replace("'", "''") + "'" + tail
    return "_utf8mb4 X'" + value.encode("utf-8").hex() + "'" + tail


def json_path(key: str) -> str:
    """A JSON path naming the member ``key`` of an object, any key."""
    return '$."' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def translate(exc: Exception, location: str | None = None, table: str | None = None) -> Exception:
    if isinstance(exc, pymysql.err.Error):
        code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
        text = exc.args[1] if len(exc.args) > 1 else str(exc)
        cls = _error_class(code)
        return cls(
            f"MariaDB: {text}" + (f" (error {code})" if code else ""),
            location=location,
            table=table,
        )
    return exc


def _error_class(code: int | None) -> type[LocationError]:
    if code == _LOCK_TIMEOUT:
        return LockTimeout
    if code == _DEADLOCK:
        return Deadlock
    if code in _TRANSIENT:
        return TransientError
    if code in _DUPLICATE:
        return DuplicateKey
    if code in _MISSING:
        return MissingObject
    return LocationError


@contextmanager
def translated(location: str | None = None, table: str | None = None) -> Iterator[None]:
    try:
        yield
    except pymysql.err.Error as exc:
        raise translate(exc, location, table) from exc


# TLS in the URL's query string, as MySQL's and MariaDB's clients name it:
# ?ssl_mode=DISABLED|REQUIRED|VERIFY_CA|VERIFY_IDENTITY&ssl_ca=/ca.pem&ssl_cert=..&ssl_key=..
# (ssl=true is REQUIRED). The same settings reach PyMySQL and the JDBC driver (``jdbc``).
SSL_MODES = ("DISABLED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY")


def _query(url: str) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()}


def ssl_mode(q: dict[str, str]) -> str | None:
    mode = q.get("ssl_mode", q.get("sslmode", "")).upper().replace("-", "_")
    if not mode and q.get("ssl", "").lower() in ("1", "true", "yes", "on"):
        mode = "REQUIRED"
    if not mode and q.get("ssl_ca"):
        mode = "VERIFY_CA"
    if mode and mode not in SSL_MODES:
        raise LocationError(f"ssl_mode {mode!r} is not one of {', '.join(SSL_MODES)}")
    return mode or None


def _ssl_kwargs(q: dict[str, str]) -> dict[str, Any]:
    """PyMySQL's TLS arguments."""
    import ssl

    mode = ssl_mode(q)
    if mode in (None, "DISABLED"):
        return {}
    kw: dict[str, Any] = {k: q[k] for k in ("ssl_ca", "ssl_cert", "ssl_key") if q.get(k)}
    if mode == "REQUIRED":
        kw["ssl"] = {"check_hostname": False, "verify_mode": ssl.CERT_NONE}
    else:
        kw["ssl_verify_cert"] = True
        kw["ssl_verify_identity"] = mode == "VERIFY_IDENTITY"
    return kw


def jdbc_ssl(q: dict[str, str]) -> dict[str, str]:
    """The JDBC driver's TLS properties for the same settings (a client certificate must be
    given to it in a Java key store: ``keyStore``/``keyStorePassword`` in the query string
    pass through)."""
    mode = ssl_mode(q)
    if mode in (None, "DISABLED"):
        return {}
    props = {"useSSL": "true"}
    if mode == "REQUIRED":
        props["trustServerCertificate"] = "true"
    elif q.get("ssl_ca"):
        props["serverSslCert"] = q["ssl_ca"]
    if mode == "VERIFY_CA":
        props["disableSslHostnameVerification"] = "true"
    for k in ("keyStore", "keyStorePassword", "keyStoreType"):
        if q.get(k):
            props[k] = q[k]
    return props


def parts(url: str) -> dict[str, Any]:
    p = urlsplit(url)
    q = _query(url)
    return {
        "host": p.hostname or "127.0.0.1",
        "port": p.port or 3306,
        "user": unquote(p.username) if p.username else "root",
        "password": unquote(p.password) if p.password else "",
        "database": p.path.lstrip("/") or None,
        "unix_socket": q.get("unix_socket"),
        **_ssl_kwargs(q),
    }


def jvm_properties() -> dict[str, str]:
    """Java system properties Spark's JVMs need for this vendor's JDBC driver (none)."""
    return {}


def file_of(url: str) -> str | None:
    """The database file of a location, for vendors whose database is one (not this one)."""
    return None


class Connection(pymysql.connections.Connection):  # type: ignore[misc]
    """PyMySQL's connection, but PyMySQL gives a connection without TLS settings a TLS
    context of its own (TLS if the server offers it, unverified), and making one loads the
    system's certificates: tens of milliseconds of CPU at every connect (about half the CPU
    of an idle follower's ticks; most of a gate turn's). That default context is made once
    here and shared; any other TLS setting (``ssl_mode`` in the URL) is PyMySQL's own."""

    preferred: ClassVar[Any] = None

    def _create_ssl_ctx(self, sslp: Any) -> Any:
        make = super()._create_ssl_ctx  # type: ignore[misc]
        if sslp != {}:
            return make(sslp)
        if Connection.preferred is None:
            Connection.preferred = make(sslp)
        return Connection.preferred


def connect(
    url: str, *, location: str | None = None, autocommit: bool = False, local_infile: bool = False
) -> Any:
    """``local_infile``: the client may send files (the direct path's LOAD DATA LOCAL)."""
    kw = parts(url)
    try:
        return Connection(
            **kw,
            local_infile=local_infile,
            charset="utf8mb4",
            autocommit=autocommit,
            connect_timeout=10,
            # SQL mode pinned so triggers, quoting and zero-date handling do not depend on
            # the server's defaults.
            sql_mode="STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION,NO_BACKSLASH_ESCAPES",
            init_command="SET time_zone = '+00:00'",
        )
    except pymysql.err.Error as exc:
        err = translate(exc, location)
        err.message = f"cannot connect to {redact_url(url)}: {err.message}"  # type: ignore[attr-defined]
        raise err from None


def jdbc(url: str) -> tuple[str, dict[str, str]]:
    """JDBC URL and properties; ``jdbc:mysql:`` so Spark picks its MySQL dialect (Debian's
    Connector/J 2.x accepts it)."""
    kw = parts(url)
    props = {"driver": JDBC_DRIVER, "user": kw["user"], **jdbc_ssl(_query(url))}
    if kw["password"]:
        props["password"] = kw["password"]
    db = kw["database"] or ""
    return (
        f"jdbc:mysql://{kw['host']}:{kw['port']}/{db}"
        "?sessionVariables=time_zone='+00:00',sql_mode='STRICT_ALL_TABLES,NO_BACKSLASH_ESCAPES'",
        props,
    )


def spark_jdbc(url: str) -> tuple[str, dict[str, str]]:
    """``jdbc`` for Spark's reads and staging writes (batches rewritten as one statement)."""
    jurl, props = jdbc(url)
    return jurl + "&rewriteBatchedStatements=true", props


def db_time(dt: Any) -> Any:
    """DATETIME(6) columns hold UTC wall clock without a zone (sessions run at +00:00)."""
    from datetime import UTC

    return dt.astimezone(UTC).replace(tzinfo=None) if dt is not None else None


def py_time(value: Any) -> Any:
    from datetime import UTC

    return value.replace(tzinfo=UTC) if value is not None else None
