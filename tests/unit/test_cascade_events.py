"""Which parent changes are events a cascade follows (core/cascade.py), and what each asks
of a child."""

from __future__ import annotations

from syncpoint.core.cascade import Cascade, Event, event_rows, events, rule_for

FK = Cascade("fk", "c", ("pcode",), "p", ("code",), "SET NULL", "CASCADE")


def test_deletes_and_updates_of_the_referenced_columns_are_events() -> None:
    records = [
        (1, "INSERT", '{"id": 1, "code": "a"}', None),
        (2, "UPDATE", '{"id": 1, "code": "a", "x": 2}', '{"id": 1, "code": "a", "x": 1}'),
        (3, "UPDATE", '{"id": 1, "code": "A"}', '{"id": 1, "code": "a"}'),  # case: a change
        (4, "UPDATE", '{"id": 1, "code": 1.50}', '{"id": 1, "code": 1.5}'),  # the same number
        (5, "DELETE", None, '{"id": 1, "code": "A"}'),
    ]
    rows = event_rows(records, {"code"})
    assert [(a, rk) for a, _, rk in rows] == [("O", 3), ("N", 3), ("D", 5)]


def test_rule_for_each_event() -> None:
    deleted = Event(5, 0, {"code": "a"})
    assert rule_for(deleted, FK) == ("SET NULL", ("a",), None)
    moved = Event(6, 0, {"code": "a"}, {"code": "b"})
    assert rule_for(moved, FK) == ("CASCADE", ("a",), ("b",))
    same = Event(7, 0, {"code": "a"}, {"code": "a"})
    assert rule_for(same, FK)[0] == ""
    null = Event(8, 0, {"code": None})
    assert rule_for(null, FK)[0] == ""  # a NULL refers to no parent
    restrict = Cascade("fk", "c", ("pcode",), "p", ("code",), "RESTRICT", "NO ACTION")
    assert rule_for(deleted, restrict)[0] == "" and rule_for(moved, restrict)[0] == ""


def test_a_middle_tables_inserts_are_kept_and_ask_nothing() -> None:
    records = [(1, "INSERT", '{"id": 1, "code": "a"}', None), (2, "DELETE", None, '{"id": 1}')]
    assert [(a, rk) for a, _, rk in event_rows(records, {"code"})] == [("D", 2)]
    rows = event_rows(records, {"code"}, inserts=True)
    assert [(a, rk) for a, _, rk in rows] == [("I", 1), ("D", 2)]
    made = events(0, [(1, "I", "a"), (2, "D", "a")], ["code"])
    assert made[0].new == {"code": "a"} and rule_for(made[0], FK)[0] == ""
    assert made[1].new is None and rule_for(made[1], FK)[0] == "SET NULL"
