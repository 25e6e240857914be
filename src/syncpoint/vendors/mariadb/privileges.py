"""What ``validate`` says a MariaDB account lacks for what ``install`` and ``run`` will do,
read from its grants (``SHOW GRANTS``), each with the GRANT that gives it
(docs/privileges.md). The global privileges each capture kind needs (``PROCESS`` for
triggers; ``REPLICATION SLAVE`` and ``BINLOG MONITOR`` for the binary log) are checked
where that kind is (``catalog.problems``, ``logcapture.server_problems``).

Capture creates tables, a view, a function (by ``CREATE OR REPLACE``, which asks ``ALTER
ROUTINE`` too) and (trigger capture) triggers in the location's database, and reads and
writes them and the watched tables; with the binary log
on, MariaDB lets an account without ``SUPER`` create a function only when
``log_bin_trust_function_creators`` is on. An integrate location creates, alters, indexes,
fills and drops its control tables and the target tables, and uses temporary tables.
"""

from __future__ import annotations

import re
from typing import Any

from syncpoint.vendors.mariadb.names import Names, render

# on the location's database, per role
CAPTURE = (
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "ALTER",
    "INDEX",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    # install makes its function by CREATE OR REPLACE, which asks ALTER ROUTINE even of a
    # function that does not exist yet
    "ALTER ROUTINE",
)
TRIGGERS = ("TRIGGER",)
# granted by MariaDB to a routine's creator on it where automatic_sp_privileges is on
ROUTINE = ("EXECUTE",)
INTEGRATE = (
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "ALTER",
    "INDEX",
    "CREATE TEMPORARY TABLES",
)
ALL = "ALL PRIVILEGES"
_GRANT = re.compile(r"^GRANT (.+?) ON (.+?) TO ", re.S)


def grants(cur: Any) -> list[tuple[set[str], str]]:
    """(privileges, scope) of each grant line: scope as written (``*.*``, ```db`.*``,
    ``FUNCTION `db`.`f```). Column privileges (``SELECT (a)``) are left out."""
    cur.execute(render("queries/grants.sql", Names("x")))
    out = []
    for (line,) in cur.fetchall():
        m = _GRANT.match(str(line))
        if not m:
            continue  # a role granted (GRANT `role` TO ...)
        privs = {p.strip().upper() for p in _split(m.group(1)) if "(" not in p}
        out.append((privs, m.group(2).strip()))
    return out


def _split(text: str) -> list[str]:
    """The privileges of a grant, split at the commas outside column lists."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [*parts, cur]


def _db_pattern(scope: str) -> re.Pattern[str] | None:
    """The databases a ```db`.*`` scope covers (``%`` and ``_`` are wildcards there)."""
    m = re.match(r"^`((?:[^`]|``)*)`\.\*$", scope)
    if not m:
        return None
    name, out, i = m.group(1).replace("``", "`"), "", 0
    while i < len(name):
        ch = name[i]
        if ch == "\\" and i + 1 < len(name):
            out += re.escape(name[i + 1])
            i += 2
            continue
        out += ".*" if ch == "%" else "." if ch == "_" else re.escape(ch)
        i += 1
    return re.compile(f"^{out}$", re.S)


def held(found: list[tuple[set[str], str]], db: str) -> set[str]:
    """The privileges held on every table of database ``db`` (global ones included)."""
    out: set[str] = set()
    for privs, scope in found:
        pattern = _db_pattern(scope)
        if scope == "*.*" or (pattern is not None and pattern.match(db)):
            out |= privs
    return out


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _missing(have: set[str], need: tuple[str, ...]) -> list[str]:
    return [] if ALL in have else [p for p in need if p not in have]


def capture(cur: Any, names: Names, location: str, triggers: bool) -> list[str]:
    """What the account of a capture location lacks (``triggers``: trigger capture)."""
    db, account, log_bin, trust, automatic = _session(cur)
    if db is None:
        return []
    found = grants(cur)
    have = held(found, db)
    need = CAPTURE + (TRIGGERS if triggers else ())
    fn = names.obj("trans_key")
    cur.execute(render("queries/routine_exists.sql", names), (fn,))
    made = bool(cur.fetchone()[0])
    if made:
        # install keeps the function there (an account that runs what another installed
        # needs none of the routine privileges)
        need = tuple(p for p in need if p not in ("CREATE ROUTINE", "ALTER ROUTINE"))
    elif not int(automatic or 0):
        need += ROUTINE
    out = _problem(account, db, location, _missing(have, need), "capture's install and runs")
    if not made and int(log_bin or 0) and not int(trust or 0):
        if not any(scope == "*.*" and privs & {"SUPER", ALL} for privs, scope in found):
            out.append(
                f"the binary log is on at {location} and the account {account} lacks "
                "SUPER: MariaDB then refuses to let it create capture's function "
                "(error 1419); SET GLOBAL log_bin_trust_function_creators = 1 (and in the "
                "server's configuration), or GRANT SUPER ON *.* TO <user>"
            )
    return out


def integrate(cur: Any, location: str) -> list[str]:
    """What the account of an integrate location lacks on its database."""
    db, account, *_ = _session(cur)
    if db is None:
        return []
    have = held(grants(cur), db)
    return _problem(
        account, db, location, _missing(have, INTEGRATE), "the control tables and target tables"
    )


def _session(cur: Any) -> tuple[Any, ...]:
    cur.execute(render("queries/privileges.sql", Names("x")))
    db, account, *rest = cur.fetchone()
    return (None if db is None else str(db), str(account), *rest)


def _problem(account: str, db: str, location: str, missing: list[str], what: str) -> list[str]:
    if not missing:
        return []
    user = "'{}'@'{}'".format(*account.rsplit("@", 1)) if "@" in account else account
    return [
        f"the account {user} lacks {', '.join(missing)} on database {db!r} at {location} "
        f"({what} need them): GRANT {', '.join(missing)} ON {_quote(db)}.* TO {user}"
    ]
