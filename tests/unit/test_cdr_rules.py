"""The conflict rules of ``core/cdr.py`` as a table of cases, and the property that two sites
that exchange their concurrent changes decide the same way (they converge)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from syncpoint.core.cdr import Change, Row, Tombstone, Version, check_groups, decide, wins

V0 = Version("2026-01-01T00:00:00.000000", "a")
A1 = Version("2026-01-01T00:00:01.000000", "a")
B2 = Version("2026-01-01T00:00:02.000000", "b")
A_TIE = Version("2026-01-01T00:00:05.000000", "a")
B_TIE = Version("2026-01-01T00:00:05.000000", "b")
D = "default"


def test_ties_are_broken_by_location_name_the_same_way_everywhere() -> None:
    assert wins("latest", B_TIE, A_TIE) and not wins("latest", A_TIE, B_TIE)
    assert wins("earliest", A_TIE, B_TIE) and not wins("earliest", B_TIE, A_TIE)
    with pytest.raises(ValueError, match="resolution"):
        wins("newest", A1, B2)


@pytest.mark.parametrize(
    "rule, change, row, tomb, take, insert, delete, conflicts",
    [
        # a plain update of an unchanged row: no conflict
        ("latest", Change(1, {D: A1}, {D: V0}), Row(1, {D: V0}), None, {D}, False, False, ()),
        # update/update on one group: latest keeps b's, earliest a's (here: the local)
        (
            "latest",
            Change(1, {D: B2}, {D: V0}),
            Row(1, {D: A1}),
            None,
            {D},
            False,
            False,
            ((D, "remote"),),
        ),
        (
            "earliest",
            Change(1, {D: B2}, {D: V0}),
            Row(1, {D: A1}),
            None,
            set(),
            False,
            False,
            ((D, "local"),),
        ),
        # different groups: both kept, no conflict
        (
            "latest",
            Change(1, {"p": V0, "q": B2}, {"p": V0, "q": V0}),
            Row(1, {"p": A1, "q": V0}),
            None,
            {"q"},
            False,
            False,
            (),
        ),
        # insert/insert of one key: a conflict, decided by the rule
        ("latest", Change(1, {D: B2}), Row(1, {D: A1}), None, {D}, False, False, ((D, "remote"),)),
        # the same change arriving again: nothing
        ("latest", Change(1, {D: A1}, {D: V0}), Row(1, {D: A1}), None, set(), False, False, ()),
        # update meets the delete of its incarnation: the rule on the times
        (
            "latest",
            Change(1, {D: B2}, {D: V0}),
            None,
            Tombstone(1, A1),
            {D},
            True,
            False,
            (("*", "remote"),),
        ),
        (
            "earliest",
            Change(1, {D: B2}, {D: V0}),
            None,
            Tombstone(1, A1),
            set(),
            False,
            False,
            (("*", "local"),),
        ),
        # a newer incarnation always gets in, even where the rule would let the delete win
        ("earliest", Change(2, {D: A1}), None, Tombstone(1, B2), {D}, True, False, ()),
        # a change of an older incarnation is ignored
        (
            "latest",
            Change(1, {D: B2}, {D: V0}),
            None,
            Tombstone(2, A1),
            set(),
            False,
            False,
            (("*", "local"),),
        ),
        (
            "latest",
            Change(1, {D: B2}, {D: V0}),
            Row(2, {D: A1}),
            None,
            set(),
            False,
            False,
            (("*", "local"),),
        ),
        # deletes
        (
            "latest",
            Change(1, before={D: V0}, delete=True, version=A1),
            Row(1, {D: V0}),
            None,
            set(),
            False,
            True,
            (),
        ),
        (
            "latest",
            Change(1, before={D: V0}, delete=True, version=B2),
            Row(1, {D: A1}),
            None,
            set(),
            False,
            True,
            (("*", "remote"),),
        ),
        (
            "earliest",
            Change(1, before={D: V0}, delete=True, version=B2),
            Row(1, {D: A1}),
            None,
            set(),
            False,
            False,
            (("*", "local"),),
        ),
        (
            "latest",
            Change(1, before={D: V0}, delete=True, version=B2),
            Row(2, {D: A1}),
            None,
            set(),
            False,
            False,
            (("*", "local"),),
        ),
    ],
)
def test_decisions(
    rule: str,
    change: Change,
    row: Row | None,
    tomb: Tombstone | None,
    take: set[str],
    insert: bool,
    delete: bool,
    conflicts: tuple[tuple[str, str], ...],
) -> None:
    d = decide(rule, change, row, tomb)
    assert (set(d.take), d.insert, d.delete, d.conflicts) == (take, insert, delete, conflicts)


def _apply(rule: str, state: dict, change: Change, values: dict) -> None:
    """Apply a change to a one-key site ``state`` ({row, tomb, values}) by the rules."""
    row, tomb = state["row"], state["tomb"]
    d = decide(rule, change, row, tomb)
    if d.delete:
        state["row"], state["values"] = None, {}
    if d.tombstone:
        state["tomb"] = Tombstone(change.kv, change.newest())
    if d.take and not d.delete:  # a delete's groups go into the row it deletes
        groups = {} if d.insert or row is None or change.kv > row.kv else dict(row.groups)
        vals = {} if not groups else dict(state["values"])
        for g in d.take:
            groups[g] = change.after[g]
            vals[g] = values[g]
        state["row"], state["values"] = Row(change.kv, groups), vals


@pytest.mark.parametrize("rule", ["latest", "earliest"])
@pytest.mark.parametrize("ts_a, ts_b", [("1", "2"), ("2", "1"), ("3", "3")])
@pytest.mark.parametrize(
    "op_a, op_b",
    list(itertools.product(["update p", "update q", "delete"], repeat=2)),
)
def test_two_sites_converge_whatever_each_did(
    rule: str, ts_a: str, ts_b: str, op_a: str, op_b: str
) -> None:
    base = Row(1, {"p": V0, "q": V0})
    vals = {"p": "p0", "q": "q0"}
    sites = {s: {"row": base, "tomb": None, "values": dict(vals)} for s in "ab"}
    changes = {}
    for s, op, ts in (("a", op_a, ts_a), ("b", op_b, ts_b)):
        v = Version(f"2026-01-01T00:00:0{ts}.000000", s)
        if op == "delete":
            changes[s] = (Change(1, before=dict(base.groups), delete=True, version=v), {})
            sites[s].update(row=None, tomb=Tombstone(1, v), values={})
        else:
            g = op.split()[1]
            after = {**base.groups, g: v}
            new_vals = {**vals, g: f"{g}-{s}"}
            changes[s] = (Change(1, after, dict(base.groups)), new_vals)
            sites[s].update(row=Row(1, after), values=new_vals)
    _apply(rule, sites["a"], *changes["b"])
    _apply(rule, sites["b"], *changes["a"])
    assert sites["a"]["values"] == sites["b"]["values"]
    assert (sites["a"]["row"] is None) == (sites["b"]["row"] is None)


def test_delete_then_reinsert_with_a_newer_key_version_in_either_order() -> None:
    # site 1 inserted key1 (kv1, exchanged); site 2 deletes it (kv1); site 1, having seen
    # the delete, inserts key1 again (kv2). Site 2 gets the re-insert in every rule.
    for rule in ("latest", "earliest"):
        d = decide(rule, Change(2, {D: A1}), None, Tombstone(1, B2))
        assert d.insert and d.take == {D}
        # and site 1, holding kv2, ignores a late delete of kv1
        d = decide(rule, Change(1, before={D: V0}, delete=True, version=B2), Row(2, {D: A1}), None)
        assert not d.delete


def test_column_group_checks_list_every_problem() -> None:
    got = check_groups(
        "orders",
        {"pricing": ["amount", "currency"], "ship": ["currency", "id", "nope"], "default": []},
        ["id", "amount", "currency"],
        ["id"],
    )
    assert got == [
        "orders: column 'currency' is in two column groups ('pricing' and 'ship')",
        "orders: key column 'id' cannot be in column group 'ship'",
        "orders: column group 'ship' names a missing column 'nope'",
        "orders: column group 'default' is the name of the default group",
        "orders: column group 'default' has no columns",
    ]


def _cfg(conflicts: dict, both: int = 2) -> list[str]:
    from syncpoint import config
    from syncpoint.errors import ConfigError

    data = {
        "channel": "shop",
        "locations": {
            f"s{i}": {"url": f"sqlite:///tmp/s{i}.db", "capture": True, "integrate": i < both}
            for i in range(2)
        },
        "tables": [{"name": "orders", "key": ["id"]}],
        "conflicts": conflicts,
    }
    try:
        config.from_dict(data, "f.yaml")
    except ConfigError as exc:
        return [p.removeprefix("f.yaml: ") for p in exc.problems]
    return []


def test_the_conflicts_section_is_checked_before_any_connection() -> None:
    assert _cfg({"orders": {"resolution": "earliest", "column_groups": {"p": ["amount"]}}}) == []
    assert _cfg({"orders": {"column_groups": {"p": ["amount"], "q": ["amount", "id"]}}}) == [
        "conflicts: orders: column 'amount' is in two column groups ('p' and 'q')",
        "conflicts: orders: key column 'id' cannot be in column group 'q'",
    ]
    assert _cfg({"nope": {}}) == ["conflicts: 'nope' is not a replicated table of this channel"]
    assert _cfg({"orders": {}}, both=1) == [
        "conflicts: orders: the table is captured and integrated at 1 location(s); "
        "conflicts arise only between two or more"
    ]
    assert any("resolution" in p for p in _cfg({"orders": {"resolution": "newest"}}))


def test_cdr_add_at_sites_not_installed_is_refused_and_makes_no_file(tmp_path: Any) -> None:
    from syncpoint import config
    from syncpoint.errors import ConfigError
    from syncpoint.ops.cdr import setup

    data = {
        "channel": "shop",
        "locations": {
            n: {"url": f"sqlite:///{tmp_path}/{n}.db", "capture": True, "integrate": True}
            for n in ("s1", "s2")
        },
        "tables": [{"name": "orders"}],
    }
    cfg = config.from_dict(data, "f.yaml")
    with pytest.raises(ConfigError, match="s1: .* does not exist"):
        setup.add(cfg, "orders", "latest", None)
    assert list(tmp_path.iterdir()) == []


def test_a_version_the_window_found_rather_than_made_is_left_alone() -> None:
    """b's window changed group p only, but its row carries in the default group A1, a
    version made at a that b took meanwhile: at a, whose row has a later version of its
    own (A3), the default group stays and no conflict is recorded. A change made over
    several of the window's own steps is a fast-forward from any of them."""
    a3 = Version("2026-01-01T00:00:03.000000", "a")
    found = Change(
        1, {D: A1, "p": B2}, {D: frozenset(), "p": V0}, made={D: frozenset(), "p": frozenset({B2})}
    )
    assert decide("earliest", found, Row(1, {D: a3, "p": V0}), None).take == frozenset({"p"})
    assert decide("earliest", found, Row(1, {D: a3, "p": V0}), None).conflicts == ()
    chain = Change(1, {D: B2}, {D: frozenset({V0, A1})}, made={D: frozenset({B2})})
    assert decide("earliest", chain, Row(1, {D: A1}), None) == decide(
        "latest", chain, Row(1, {D: A1}), None
    )
    assert decide("earliest", chain, Row(1, {D: A1}), None).take == frozenset({D})


def test_key_columns_must_be_integer_text_or_uuid() -> None:
    from syncpoint.config import TableName
    from syncpoint.core.model import Column, TableShape
    from syncpoint.ops.cdr.setup import _key_types

    cols = (
        Column("id", "bigint", False, 1),
        Column("code", "character varying(20)", False, 2),
        Column("at", "timestamp without time zone", False, 3),
    )
    shape = TableShape(TableName(name="t"), cols)
    assert _key_types("a", "postgres", shape, ["id", "code"]) == []
    (problem,) = _key_types("a", "postgres", shape, ["id", "at"])
    assert problem.startswith("a: key column 'at' is timestamp without time zone")


def test_a_delete_that_loses_leaves_both_sites_with_the_same_row() -> None:
    """b changes the pricing (P1) and deletes the row (T2); a changes the name later (Y).
    The update wins at both sites. b makes the row again from what it deleted, taking only
    the group a's change made; a keeps its row, taking the groups b's delete's window made.
    Whether P1 reached a before the delete (its own window) or with it (one window whose net
    change is the delete), both end with name Y and pricing P1."""
    p = "pricing"
    p1 = Version("2026-01-01T00:00:01.000000", "b")
    t2 = Version("2026-01-01T00:00:02.000000", "b")
    y = Version("2026-01-01T00:00:03.000000", "a")
    tomb = Tombstone(1, t2, {D: V0, p: p1})  # what b deleted
    # a's name change, made while a's pricing was still P0
    change_a = Change(1, {D: y, p: V0}, {D: V0, p: V0})
    d = decide("latest", change_a, None, tomb)
    assert (d.insert, set(d.take), d.conflicts) == (True, {D}, (("*", "remote"),))
    # P1 in a window of its own, applied at a before the delete came: the delete made nothing
    alone = Change(1, {D: V0, p: p1}, {D: V0, p: p1}, delete=True, version=t2)
    d = decide("latest", alone, Row(1, {D: y, p: p1}), None)
    assert (d.delete, set(d.take), d.conflicts) == (False, set(), (("*", "local"),))
    # P1 and the delete in one window: a has P0 and takes P1 from the delete
    netted = Change(
        1,
        {D: V0, p: p1},
        {D: V0, p: frozenset({V0, p1})},
        delete=True,
        version=t2,
        made={D: frozenset(), p: frozenset({p1})},
    )
    d = decide("latest", netted, Row(1, {D: y, p: V0}), None)
    assert (d.delete, set(d.take), d.conflicts) == (False, {p}, (("*", "local"),))


def test_a_row_made_again_is_decided_against_the_deleted_row_group_by_group() -> None:
    # the deleted row's pricing (B2) and the change's (A_TIE) were both made from V0
    tomb = Tombstone(1, A1, {D: V0, "p": B2})
    change = Change(1, {D: V0, "p": A_TIE}, {D: V0, "p": V0})
    d = decide("latest", change, None, tomb)
    assert (d.insert, set(d.take), d.conflicts) == (True, {"p"}, (("*", "remote"), ("p", "remote")))
    d = decide(
        "earliest",
        Change(1, {D: V0, "p": A1}, {D: V0, "p": V0}),
        None,
        Tombstone(1, B2, {D: V0, "p": A_TIE}),
    )
    assert (d.insert, set(d.take), d.conflicts) == (True, {"p"}, (("*", "remote"), ("p", "remote")))
    # a change that loses to the delete: its groups merged into the deleted row all the same
    d = decide(
        "latest",
        Change(1, {D: V0, "p": A1}, {D: V0, "p": V0}),
        None,
        Tombstone(1, B2, {D: V0, "p": V0}),
    )
    assert (d.insert, set(d.take), d.conflicts) == (False, {"p"}, (("*", "local"),))
    # a tombstone without its row (written where the row was not here): the change whole
    d = decide("latest", change, None, Tombstone(1, A1))
    assert (d.insert, set(d.take)) == (True, {D, "p"})


def test_a_delete_where_this_site_deleted_the_row_already_takes_its_groups_into_that_row() -> None:
    """b renamed the row (B2, from A1) and deleted it; a's delete of the same incarnation
    comes after, its window having repriced (A_TIE, from V0). b puts its deleted row back
    and deletes it again: the rename stays (the delete's name is the one b's was made
    from), the price is the delete's; no conflict. Where the tombstone kept no row, or is
    of another incarnation, the delete only leaves its tombstone."""
    p = "pricing"
    tomb = Tombstone(1, B_TIE, {D: B2, p: V0})
    delete = Change(1, {D: A1, p: A_TIE}, {D: A1, p: V0}, delete=True, version=A_TIE)
    d = decide("latest", delete, None, tomb)
    assert (set(d.take), d.delete, d.tombstone, d.conflicts) == ({p}, True, True, ())
    for other in (Tombstone(1, B_TIE), Tombstone(2, B_TIE, {D: B2, p: V0})):
        d = decide("latest", delete, None, other)
        assert (set(d.take), d.delete, d.tombstone) == (set(), False, True)


def test_a_delete_that_wins_records_the_groups_its_window_took_from_the_row() -> None:
    """a reprices (A_TIE, from V0) and deletes later; b repriced too (B2, from
    V0): the delete wins at b and takes a's price into the row it deletes, so b's price is
    lost there: a conflict of the group, besides the delete's."""
    p = "pricing"
    delete = Change(1, {D: V0, p: A_TIE}, {D: V0, p: V0}, delete=True, version=A_TIE)
    d = decide("latest", delete, Row(1, {D: V0, p: B2}), None)
    assert (set(d.take), d.delete, d.conflicts) == ({p}, True, (("*", "remote"), (p, "remote")))
