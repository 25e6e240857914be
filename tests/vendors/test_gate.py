"""The gate's state table (docs/objects.md) on PostgreSQL, MariaDB and SQLite, row for row, through
the Python API: what each role does on each state, what it purges, what it leaves behind."""

from __future__ import annotations

import pytest

from syncpoint.core.gate import State
from syncpoint.errors import GateBusy, GateRefused, LocationError, UsageError
from syncpoint.ops.gate import Gate, gate

OS_ING, OS_ED = State.OPERATIONAL_SYS_LOADING, State.OPERATIONAL_SYS_LOADED
WH_ING, WH_ED = State.WAREHOUSE_LOADING, State.WAREHOUSE_LOADED
S = State

# (role, state found) -> (outcome, rows left in the transport table after the take,
# state during the run, state after a successful run). The transport table holds 3 rows.
TABLE = [
    ("producer", WH_ED, "take", 0, OS_ING, OS_ED),
    ("producer", OS_ED, "take", 3, OS_ING, OS_ED),
    ("producer", WH_ING, "busy", 3, None, WH_ING),
    ("producer", OS_ING, "refused", 3, None, OS_ING),
    ("consumer", OS_ED, "take", 3, WH_ING, WH_ED),
    ("consumer", OS_ING, "busy", 3, None, OS_ING),
    ("consumer", WH_ED, "busy", 3, None, WH_ED),
    ("consumer", WH_ING, "refused", 3, None, WH_ING),
]  # fmt: skip


def _transport(db) -> None:
    db.execute("CREATE TABLE tr (id integer)", "INSERT INTO tr VALUES (1), (2), (3)")


def _state(db) -> State | None:
    st = Gate(db.url, "g1").status()
    return st.row.state if st else None


@pytest.mark.parametrize(("role", "found", "outcome", "left", "during", "after"), TABLE)
def test_state_table_row(any_db, role, found, outcome, left, during, after) -> None:
    _transport(any_db)
    Gate(any_db.url, "g1").reset(found)
    if outcome == "take":
        with gate(any_db.url, "g1", role, purge_tables=["tr"]) as turn:
            assert turn.found is found
            assert _state(any_db) is during
            assert any_db.query("SELECT count(*) FROM tr")[0][0] == left
        assert _state(any_db) is after
        return
    expected = GateBusy if outcome == "busy" else GateRefused
    with pytest.raises(GateRefused) as info:
        with gate(any_db.url, "g1", role, purge_tables=["tr"]):
            pytest.fail("the body must not run")
    assert type(info.value) is expected
    assert info.value.exit_code == 3
    assert info.value.gate is not None and info.value.gate["state"] == str(found)
    assert "g1" in info.value.message and str(found) in info.value.message
    assert any_db.query("SELECT count(*) FROM tr")[0][0] == left
    assert _state(any_db) is after


def test_new_gate_starts_warehouse_loaded(any_db) -> None:
    g = Gate(any_db.url, "fresh", prefix="pfx_")
    assert g.status() is None
    assert g.statuses() == []
    with pytest.raises(GateBusy):  # a consumer of a new gate has nothing to load
        g.take("consumer")
    st = g.status()
    assert st is not None and st.row.state is S.WAREHOUSE_LOADED
    table = "pfx_load_state"
    assert any_db.query(f"SELECT gate_name, state FROM {table}") == [("fresh", "WarehouseLoaded")]
    # another prefix is another table: the gate of repl_ does not exist
    assert Gate(any_db.url, "fresh").status() is None


def test_state_change_records_holder_and_time(any_db) -> None:
    with gate(any_db.url, "g1", "producer", command="load.sh --all") as turn:
        st = Gate(any_db.url, "g1").status()
        assert st is not None
        assert st.row.command == "load.sh --all"
        assert (st.row.host, st.row.pid) == (turn.holder.host, turn.holder.pid)
        assert st.row.age_s is not None and st.row.age_s >= 0
    d = Gate(any_db.url, "g1").status().to_dict()  # type: ignore[union-attr]
    assert d["state"] == "OperationalSysLoaded"
    assert d["holder"]["command"] == "load.sh --all"
    assert d["turns"] == 2  # taken, released
    assert set(d) == {"gate", "location", "state", "changed_at", "age_s", "holder", "turns"}


def test_exception_in_body_leaves_loading_until_reset(any_db) -> None:
    with pytest.raises(RuntimeError):
        with gate(any_db.url, "g1", "producer"):
            raise RuntimeError("the load failed")
    assert _state(any_db) is S.OPERATIONAL_SYS_LOADING
    with pytest.raises(GateRefused) as info:
        with gate(any_db.url, "g1", "producer", wait=0.5):
            pytest.fail("the body must not run")
    assert type(info.value) is GateRefused  # refused at once, not a wait that ran out
    assert "reset" in info.value.message
    done = Gate(any_db.url, "g1").reset("OperationalSysLoaded")
    assert (done["from"], done["to"]) == ("OperationalSysLoading", "OperationalSysLoaded")
    with gate(any_db.url, "g1", "consumer") as turn:
        assert turn.found is S.OPERATIONAL_SYS_LOADED
    assert _state(any_db) is S.WAREHOUSE_LOADED


def test_reset_while_running_refuses_the_release(any_db) -> None:
    with pytest.raises(GateRefused) as info:
        with gate(any_db.url, "g1", "producer"):
            Gate(any_db.url, "g1").reset("WarehouseLoaded")
    assert "reset while it held it" in info.value.message
    assert _state(any_db) is S.WAREHOUSE_LOADED  # the reset stands, Loaded not written


def test_purge_quotes_hostile_table_names(any_db) -> None:
    name = 'tr "x"; DROP TABLE keep; --'
    q = '"tr ""x""; DROP TABLE keep; --"' if any_db.vendor != "mariadb" else f"`{name}`"
    any_db.execute(f"CREATE TABLE {q} (id integer)", f"INSERT INTO {q} VALUES (1)")
    any_db.execute("CREATE TABLE keep (id integer)", "INSERT INTO keep VALUES (7)")
    with gate(any_db.url, "g1", "producer", purge_tables=[name]) as turn:
        assert turn.purged == {name: 1}
    assert any_db.query(f"SELECT count(*) FROM {q}") == [(0,)]
    assert any_db.query("SELECT id FROM keep") == [(7,)]


def test_purge_of_missing_table_fails_and_changes_nothing(any_db) -> None:
    with pytest.raises(LocationError) as info:
        with gate(any_db.url, "g1", "producer", purge_tables=["no_such_table"]):
            pytest.fail("the body must not run")
    assert "no_such_table" in str(info.value)
    assert _state(any_db) is S.WAREHOUSE_LOADED


def test_wait_runs_out_with_gate_busy(any_db) -> None:
    Gate(any_db.url, "g1").reset("WarehouseLoading")
    with pytest.raises(GateBusy) as info:
        Gate(any_db.url, "g1").take("producer", wait=0.3)
    msg = info.value.message
    assert "gave up after waiting" in msg and "WarehouseLoading" in msg and "consumer" in msg
    assert info.value.to_dict()["error"] == "gate_busy"


def test_bad_gate_name_is_a_usage_error(any_db) -> None:
    with pytest.raises(UsageError):
        Gate(any_db.url, "")
    with pytest.raises(UsageError):
        Gate(any_db.url, "x" * 101)


def test_gate_states_for_syncpoint_status(any_db, tmp_path) -> None:
    from syncpoint.config import from_dict
    from syncpoint.ops.gate import gate_states

    bad = f"sqlite:///{tmp_path}/no/such/dir/x.db"
    cfg = from_dict(
        {
            "channel": "shop",
            "prefix": "shp_",
            "locations": {
                "ops": {"url": any_db.url, "capture": True},
                "dw": {"url": bad, "integrate": True},
            },
            "transport": {"gate": "nightly", "location": "ops", "tables": ["tr"]},
        }
    )
    Gate(any_db.url, "nightly", prefix="shp_").reset("OperationalSysLoaded")
    states = gate_states(cfg)
    assert list(states) == ["ops", "dw"]
    assert [(g["gate"], g["state"]) for g in states["ops"]] == [("nightly", "OperationalSysLoaded")]
    assert "error" in states["dw"]
