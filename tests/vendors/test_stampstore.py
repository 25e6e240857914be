"""Receive stamp tables on every vendor: created, moved forward only, leader and trailer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from syncpoint.vendors.stampstore import StampStore

T = datetime(2026, 3, 10, 9, 0, 0, 123456, tzinfo=UTC)


def _begin(db, conn) -> None:
    if db.vendor == "sqlite":
        conn.execute("BEGIN IMMEDIATE")


def test_record_and_read_back(any_db) -> None:
    store = StampStore(any_db.vendor, "repl_", "shop", "cen")
    conn = any_db.connect(autocommit=False)
    try:
        store.ensure(conn)
        locs = ["a", "b", "c"]
        _begin(any_db, conn)
        rs = store.record(
            conn,
            locs,
            {"a": (T - timedelta(hours=2), 3), "b": (T - timedelta(days=1), 7), "c": (None, 1)},
        )
        conn.commit()
        assert rs.leader is not None and rs.leader.location == "a"
        assert (
            rs.trailer is not None and rs.trailer.location == "c" and rs.trailer.cap_begin is None
        )
        row = store.row(conn)
        assert row is not None
        assert row["leader_cap_loc"] == "a"
        assert row["leader_cap_begin"] == T - timedelta(hours=2)
        assert row["leader_cap_begin_int"] == int((T - timedelta(hours=2)).timestamp())
        assert (row["trailer_cap_loc"], row["trailer_cap_begin"]) == ("c", None)

        # a raced (None) and an older time never move a stamp back; c moves to 8:30.
        _begin(any_db, conn)
        rs = store.record(
            conn,
            locs,
            {"a": (None, 9), "b": (T - timedelta(days=2), 9), "c": (T - timedelta(minutes=30), 9)},
        )
        conn.commit()
        assert (rs.leader.location, rs.leader.cap_begin) == ("c", T - timedelta(minutes=30))
        assert (rs.trailer.location, rs.trailer.cap_begin) == ("b", T - timedelta(days=1))
        have = store.read(conn)
        assert have["a"] == (T - timedelta(hours=2), 3)
        assert have["b"] == (T - timedelta(days=1), 7)
        assert have["c"] == (T - timedelta(minutes=30), 9)
        if any_db.vendor != "sqlite":
            conn.commit()
    finally:
        conn.close()


def test_rollback_leaves_stamps_unchanged(any_db) -> None:
    store = StampStore(any_db.vendor, "repl_", "shop", "cen")
    conn = any_db.connect(autocommit=False)
    try:
        store.ensure(conn)
        _begin(any_db, conn)
        store.record(conn, ["a"], {"a": (T, 1)})
        conn.commit()
        _begin(any_db, conn)
        store.record(conn, ["a"], {"a": (T + timedelta(hours=1), 2)})
        conn.rollback()
        assert store.read(conn)["a"] == (T, 1)
        if any_db.vendor != "sqlite":
            conn.commit()
    finally:
        conn.close()
