"""DDL classification: a type named with and without its schema is one type (Pagila's
``public.year``, as the catalog writes it, and ``year``, as a session that sees ``public``
does), two schemas' types of one name are not; a STOP record stops under every policy."""

from __future__ import annotations

import json

import pytest

from syncpoint.core import ddl
from syncpoint.vendors.postgres.types import parse


def _shape(year_type: str) -> str:
    cols = [
        {"name": "film_id", "type": "integer", "nullable": False, "pk": 1},
        {"name": "release_year", "type": year_type, "nullable": True, "pk": None},
    ]
    return json.dumps({"schema": "public", "table": "film", "columns": cols})


@pytest.mark.parametrize(
    ("old", "new", "retyped"),
    [
        ("public.year", "year", False),
        ("year", "public.year", False),
        ('"My Schema".year', "year", False),
        ("public.year[]", "year[]", False),
        ("public.year", "other.year", True),
        ("public.year", "integer", True),
    ],
)
def test_a_type_with_and_without_its_schema_is_one_type(old: str, new: str, retyped: bool) -> None:
    change = ddl.classify(parse, "ALTER", _shape(new), _shape(old))
    assert bool(change.retyped) is retyped
    if not retyped:
        assert (change.kind, change.summary) == (ddl.ADDITIVE, "no column change")


@pytest.mark.parametrize("policy", [ddl.APPLY, ddl.STOP, ddl.IGNORE])
def test_a_stop_record_stops_under_every_policy(policy: str) -> None:
    why = "capture trigger repl_capture_2_ins on public.film was dropped by hand"
    change = ddl.classify(parse, "STOP", json.dumps({"reason": why}), None, 42)
    assert ddl.decide(change, policy) == ddl.STOP
    reason = ddl.stop_reason(change, "public.film", "src", policy)
    assert why in reason
    assert "syncpoint install" in reason and "--restart" in reason
