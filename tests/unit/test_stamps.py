"""Receive stamps: leader, trailer, guaranteed candidates and the fake clock (pure logic)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from syncpoint.core import stamps
from syncpoint.core.model import Tick

T = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)


def test_source_text_situation() -> None:
    # a: integrated at 7:00 then 9:00 (raced: keeps 7:00); b: an earlier day; c: 8:30.
    prev = {"a": T - timedelta(hours=2), "b": T - timedelta(days=1, hours=3), "c": None}
    new = stamps.advance(prev, {"a": None, "c": T - timedelta(minutes=30)})
    rs = stamps.leader_trailer(new)
    assert rs.leader is not None and rs.trailer is not None
    assert (rs.leader.location, rs.leader.cap_begin) == ("c", T - timedelta(minutes=30))
    assert (rs.trailer.location, rs.trailer.cap_begin) == ("b", T - timedelta(days=1, hours=3))
    assert rs.locations["a"].cap_begin == T - timedelta(hours=2)


def test_one_location_is_leader_and_trailer() -> None:
    rs = stamps.leader_trailer({"only": T})
    assert rs.leader == rs.trailer == stamps.Stamp("only", T)


def test_location_never_integrated_is_trailer_without_time() -> None:
    rs = stamps.leader_trailer({"a": T, "b": None})
    assert rs.trailer == stamps.Stamp("b", None)
    assert rs.leader == stamps.Stamp("a", T)


def test_ties_are_broken_by_name() -> None:
    rs = stamps.leader_trailer({"x": T, "a": T})
    assert rs.leader is not None and rs.leader.location == "x"
    assert rs.trailer is not None and rs.trailer.location == "a"


def test_epoch_seconds_rounds_down() -> None:
    assert stamps.epoch_seconds(datetime(1970, 1, 1, 0, 0, 1, 999999, tzinfo=UTC)) == 1
    assert stamps.epoch_seconds(datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC)) == -1


def test_candidate_uses_guaranteed_time_not_clock() -> None:
    tick = Tick(context=5, guaranteed=T - timedelta(seconds=3), sampled_at=T)
    assert stamps.candidate("a", tick) == T - timedelta(seconds=3)


def test_fake_clock_and_race(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(stamps.FAKE_CLOCK_ENV, json.dumps({"a": "2026-03-10T07:00:00+00:00"}))
    calm = Tick(context=1, guaranteed=T, sampled_at=T)
    raced = Tick(context=2, guaranteed=T - timedelta(seconds=1), sampled_at=T)
    assert stamps.candidate("a", calm) == datetime(2026, 3, 10, 7, tzinfo=UTC)
    assert stamps.candidate("a", raced) is None
    assert stamps.candidate("b", raced) == T - timedelta(seconds=1)


times = st.none() | st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
)


@given(
    st.dictionaries(st.sampled_from("abcd"), times), st.dictionaries(st.sampled_from("abcd"), times)
)
def test_stamps_never_move_back(prev: dict, cand: dict) -> None:
    new = stamps.advance(prev, cand)
    for loc, old in prev.items():
        if old is not None:
            assert new[loc] is not None and new[loc] >= old
    rs = stamps.leader_trailer(new)
    if rs.leader and rs.trailer and rs.trailer.cap_begin:
        assert rs.leader.cap_begin >= rs.trailer.cap_begin
