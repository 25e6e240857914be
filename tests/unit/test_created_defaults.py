"""Which source defaults a created target table carries, as each catalog writes them."""

from __future__ import annotations

import pytest

from syncpoint.core.extras import Default, portable_default
from syncpoint.ops.created import default_sql

CASES = [
    ("'nobody'::text", Default("text", "nobody")),  # PostgreSQL
    ("'it''s'::character varying", Default("text", "it's")),
    ("'G'::public.mpaa_rating", Default("text", "G")),
    ("_utf8mb4'nobody'", Default("text", "nobody")),  # MariaDB's introducer
    ("'nobody'", Default("text", "nobody")),  # MariaDB, SQLite
    ("0", Default("number", "0")),
    ("4.99", Default("number", "4.99")),
    ("(-3)::integer", Default("number", "-3")),
    ("true", Default("bool", "1")),
    ("now()", Default("now")),
    ("CURRENT_TIMESTAMP", Default("now")),
    ("current_timestamp(6)", Default("now")),
    ("nextval('public.film_film_id_seq'::regclass)", None),  # a sequence: not portable
    ("CURRENT_DATE", None),
    ("gen_random_uuid()", None),
    ("NULL", None),
    (None, None),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_portable_default(text: str | None, expected: Default | None) -> None:
    assert portable_default(text) == expected


def test_default_sql_per_target_vendor() -> None:
    assert default_sql("postgres", Default("text", "it's"), "text") == "'it''s'"
    assert default_sql("postgres", Default("bool", "1"), "boolean") == "true"
    assert default_sql("sqlite", Default("bool", "0"), "INTEGER") == "0"
    assert default_sql("mariadb", Default("now"), "datetime(6)") == "CURRENT_TIMESTAMP(6)"
    assert default_sql("postgres", Default("now"), "timestamp(6) with time zone") == (
        "CURRENT_TIMESTAMP"
    )
