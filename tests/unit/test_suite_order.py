"""The order tests/conftest.py gives the two test processes' shares: the tests marked long
come first in each share, longest first, spread so that no share gets them all; every test
stays in the run exactly once, and the others keep their order."""

from __future__ import annotations

from tests.conftest import share_out


def test_long_tests_open_each_share_and_nothing_is_lost() -> None:
    weights = {"a": 0.0, "b": 300.0, "c": 0.0, "d": 0.0, "e": 120.0, "f": 0.0, "g": 390.0}
    weights |= {f"x{i}": 0.0 for i in range(7)}
    items = list(weights)
    out = share_out(items, 2, weights.__getitem__)
    assert sorted(out) == sorted(items)
    first, second = out[:7], out[7:]  # the scheduler's cut: 14 // 2, then the rest
    assert first[0] == "g" and second[:2] == ["b", "e"]  # 390 | 300 + 120
    assert [i for i in out if weights[i] == 0] == [i for i in items if weights[i] == 0]


def test_three_shares_and_more_long_tests_than_a_share_holds() -> None:
    items = [f"t{i}" for i in range(7)]
    out = share_out(items, 3, lambda i: 10.0 + int(i[1:]))
    assert sorted(out) == sorted(items)
    # shares of 2, 2 and 3 (7 // 3, then 5 // 2, then 3): each its heaviest first
    assert out == ["t6", "t1", "t5", "t2", "t4", "t3", "t0"]
