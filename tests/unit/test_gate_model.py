"""A model of the gate protocol over the pure state machine of ``core/gate.py``, explored
two ways: exhaustively (every interleaving of a small system, breadth first) and by a
hypothesis stateful test (random long interleavings of a larger one).

The model is the protocol of ``syncpoint/gate.py``: a process locks the row, decides with
``core.gate.decide``, purges and sets the Loading state in the same commit (which drops
the lock), works outside the lock, then locks again and writes ``core.gate.release``'s
state if its turn's token is still there. A process may crash at any step: the database
drops its lock and rolls back what it had not committed. A human resets a gate whose
holder is dead, after checking what that run committed.

Checked in every reachable world: critical sections never overlap; a row is never purged
before it was loaded; no row is loaded twice; a crashed run blocks its role (REFUSE)
until reset; and from every world, finishing the live runs, resetting and one consumer
turn load every produced row.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from syncpoint.core import gate as core
from syncpoint.core.gate import (
    INITIAL,
    LOADING,
    OTHER,
    Action,
    Role,
    State,
    decide,
    release,
)

P, C = Role.PRODUCER, Role.CONSUMER


@dataclass(frozen=True)
class Proc:
    role: Role
    phase: str = "idle"  # idle, locked, section, releasing, done
    found: State | None = None
    token: int = 0
    worked: bool = False
    turns_left: int = 1


@dataclass(frozen=True)
class World:
    state: State = INITIAL
    token: int = 0  # the token of the last state change
    lock: int | None = None  # which process holds the row lock
    transport: frozenset[str] = frozenset()
    loaded: tuple[str, ...] = ()
    produced: frozenset[str] = frozenset()
    procs: tuple[Proc, ...] = ()
    dead: frozenset[int] = frozenset()  # tokens of runs that died holding the gate
    committed_loads: frozenset[int] = frozenset()
    crashes_left: int = 0
    next_token: int = 1


def _set(w: World, i: int, **kw: object) -> tuple[Proc, ...]:
    procs = list(w.procs)
    procs[i] = replace(procs[i], **kw)  # type: ignore[arg-type]
    return tuple(procs)


def enabled(w: World) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for i, p in enumerate(w.procs):
        if p.phase == "idle" and p.turns_left > 0 and w.lock is None:
            out.append(("lock", i))
        if p.phase == "locked":
            out.append(("decide", i))
        if p.phase == "section" and not p.worked:
            out.append(("work", i))
        if p.phase == "section" and p.worked and w.lock is None:
            out.append(("relock", i))
        if p.phase == "releasing":
            out.append(("release", i))
        if w.crashes_left > 0 and p.phase in ("locked", "section", "releasing"):
            out.append(("crash", i))
    if w.state in LOADING.values() and w.token in w.dead and w.lock is None:
        out.append(("reset", -1))
    return out


def step(w: World, action: str, i: int) -> World:
    p = w.procs[i] if i >= 0 else None
    if action == "lock":
        assert p is not None
        return replace(w, lock=i, procs=_set(w, i, phase="locked", found=w.state))
    if action == "decide":
        assert p is not None and p.found is not None
        assert p.found is w.state, "the state changed under the row lock"
        d = decide(p.role, p.found)
        if w.token in w.dead and w.state is LOADING[p.role]:
            assert d.action is Action.REFUSE, "a crashed run must block its role"
        if w.token in w.dead and w.state is LOADING[OTHER[p.role]]:
            assert d.action is Action.WAIT, "a crashed run must hold off the other role"
        if d.action is not Action.TAKE:
            return replace(w, lock=None, procs=_set(w, i, phase="idle", found=None))
        transport = w.transport
        if d.purge:
            unseen = transport - set(w.loaded)
            assert not unseen, f"purged before loaded: {sorted(unseen)}"
            transport = frozenset()
        t = w.next_token
        assert d.next_state is not None
        return replace(
            w,
            state=d.next_state,
            token=t,
            next_token=t + 1,
            lock=None,
            transport=transport,
            procs=_set(w, i, phase="section", token=t, worked=False),
        )
    if action == "work":
        assert p is not None
        if p.role is P:
            row = f"r{p.token}"
            return replace(
                w,
                transport=w.transport | {row},
                produced=w.produced | {row},
                procs=_set(w, i, worked=True),
            )
        batch = tuple(sorted(w.transport))
        assert not set(batch) & set(w.loaded), f"loaded twice: {set(batch) & set(w.loaded)}"
        return replace(
            w,
            loaded=w.loaded + batch,
            committed_loads=w.committed_loads | {p.token},
            procs=_set(w, i, worked=True),
        )
    if action == "relock":
        return replace(w, lock=i, procs=_set(w, i, phase="releasing"))
    if action == "release":
        assert p is not None
        if w.token != p.token:  # reset meanwhile: refused, nothing written
            return replace(w, lock=None, procs=_set(w, i, phase="done"))
        return replace(
            w,
            state=release(p.role, w.state),
            lock=None,
            procs=_set(w, i, phase="idle", found=None, turns_left=p.turns_left - 1),
        )
    if action == "crash":
        assert p is not None
        dead = w.dead
        if p.phase in ("section", "releasing") and w.token == p.token:
            dead = dead | {p.token}
        return replace(
            w,
            lock=None if w.lock == i else w.lock,
            dead=dead,
            crashes_left=w.crashes_left - 1,
            procs=_set(w, i, phase="idle", found=None, token=0, worked=False),  # restarted
        )
    if action == "reset":
        # The human checks what the dead run committed before choosing the state.
        if w.state is State.OPERATIONAL_SYS_LOADING:
            to = State.OPERATIONAL_SYS_LOADED  # its rows are committed rows: let them load
        elif w.token in w.committed_loads:
            to = State.WAREHOUSE_LOADED  # the dead consumer's load committed
        else:
            to = State.OPERATIONAL_SYS_LOADED  # load again
        t = w.next_token
        return replace(w, state=to, token=t, next_token=t + 1)
    raise AssertionError(action)


def check(w: World) -> None:
    inside = [p for p in w.procs if p.phase in ("section", "releasing")]  # live runs only
    assert len(inside) <= 1, "two critical sections at once"
    assert all(p.token == w.token for p in inside), "a live run lost its gate"
    assert len(set(w.loaded)) == len(w.loaded), "a row loaded twice"
    assert w.transport <= w.produced
    assert w.produced <= w.transport | set(w.loaded), "a row purged before it was loaded"
    if w.token in w.dead:
        assert w.state in LOADING.values(), "a crash did not leave a Loading state"


def drain(w: World) -> World:
    """Finish the live runs, reset a dead holder, run one consumer turn: all must be loaded."""
    for i, p in enumerate(w.procs):
        if p.phase == "locked":
            w = replace(w, lock=None, procs=_set(w, i, phase="idle", found=None))
    for i, p in enumerate(w.procs):
        if p.phase == "section" and not p.worked:
            w = step(w, "work", i)
        if w.procs[i].phase == "section":
            w = step(w, "relock", i)
        if w.procs[i].phase == "releasing":
            w = step(w, "release", i)
    if w.token in w.dead:
        w = step(w, "reset", -1)
    if w.state is State.OPERATIONAL_SYS_LOADED:
        w = replace(w, procs=(*w.procs, Proc(C)))
        i = len(w.procs) - 1
        for action in ("lock", "decide", "work", "relock", "release"):
            w = step(w, action, i)
    check(w)
    assert set(w.loaded) == w.produced, "a produced row was never loaded"
    assert w.state is State.WAREHOUSE_LOADED
    return w


def explore(start: World) -> int:
    seen = {start}
    todo = deque([start])
    while todo:
        w = todo.popleft()
        check(w)
        drain(w)
        for action, i in enabled(w):
            nxt = step(w, action, i)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return len(seen)


def test_every_interleaving_of_two_producers_and_a_consumer_with_crashes() -> None:
    procs = (Proc(P, turns_left=2), Proc(P, turns_left=1), Proc(C, turns_left=2))
    n = explore(World(procs=procs, crashes_left=2))
    assert n > 10_000  # the exploration really branched


def test_every_interleaving_of_one_producer_and_two_consumers_with_crashes() -> None:
    procs = (Proc(P, turns_left=2), Proc(C, turns_left=2), Proc(C, turns_left=1))
    n = explore(World(procs=procs, crashes_left=2))
    assert n > 5_000


def test_a_crash_blocks_its_role_until_reset() -> None:
    w = World(procs=(Proc(P), Proc(P)), crashes_left=1)
    for action, i in (("lock", 0), ("decide", 0), ("work", 0), ("crash", 0)):
        w = step(w, action, i)
    assert w.state is State.OPERATIONAL_SYS_LOADING and w.token in w.dead
    w = step(step(w, "lock", 1), "decide", 1)
    assert w.procs[1].phase == "idle" and w.state is State.OPERATIONAL_SYS_LOADING  # refused
    w = step(w, "reset", -1)
    w = step(step(w, "lock", 1), "decide", 1)
    assert w.procs[1].phase == "section"
    assert w.transport == {"r1"}  # appended after the reset, not purged


BROKEN = [
    # (role, state found) -> a wrong rule, and what the model must then report
    ((P, State.OPERATIONAL_SYS_LOADED), (Action.TAKE, True, "purge"), "purged before loaded"),
    ((C, State.OPERATIONAL_SYS_LOADING), (Action.TAKE, False, "early"), "two critical|hold off"),
    ((P, State.WAREHOUSE_LOADING), (Action.TAKE, False, "overtake"), "two critical sections"),
    ((P, State.OPERATIONAL_SYS_LOADING), (Action.WAIT, False, "no block"), "must block its role"),
    ((C, State.WAREHOUSE_LOADED), (Action.TAKE, False, "reload"), "loaded twice"),
]


@pytest.mark.parametrize(("key", "rule_", "complaint"), BROKEN)
def test_the_model_catches_a_broken_rule(monkeypatch, key, rule_, complaint) -> None:
    monkeypatch.setitem(core._TABLE, key, rule_)
    procs = (Proc(P, turns_left=2), Proc(P, turns_left=1), Proc(C, turns_left=2))
    with pytest.raises(AssertionError, match=complaint):
        explore(World(procs=procs, crashes_left=1))


class GateMachine(RuleBasedStateMachine):
    """Long random interleavings of three producers and three consumers, with crashes."""

    def __init__(self) -> None:
        super().__init__()
        procs = tuple(Proc(r, turns_left=4) for r in (P, P, P, C, C, C))
        self.world = World(procs=procs, crashes_left=4)

    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        choices = enabled(self.world)
        if choices:
            action, i = data.draw(st.sampled_from(choices), label="action")
            self.world = step(self.world, action, i)

    @invariant()
    def holds(self) -> None:
        check(self.world)

    def teardown(self) -> None:
        drain(self.world)


GateMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=80, deadline=None)
test_gate_machine = GateMachine.TestCase


# -- the pure rules, row for row (docs/objects.md) ------------------------------------------------
SPEC_TABLE = [
    (P, State.WAREHOUSE_LOADED, Action.TAKE, True),
    (P, State.OPERATIONAL_SYS_LOADED, Action.TAKE, False),
    (P, State.WAREHOUSE_LOADING, Action.WAIT, False),
    (P, State.OPERATIONAL_SYS_LOADING, Action.REFUSE, False),
    (C, State.OPERATIONAL_SYS_LOADED, Action.TAKE, False),
    (C, State.OPERATIONAL_SYS_LOADING, Action.WAIT, False),
    (C, State.WAREHOUSE_LOADED, Action.WAIT, False),
    (C, State.WAREHOUSE_LOADING, Action.REFUSE, False),
]


@pytest.mark.parametrize(("role", "found", "action", "purge"), SPEC_TABLE)
def test_decide_follows_the_spec_table(role, found, action, purge) -> None:
    d = decide(role.value, found.value)  # plain strings are accepted too
    assert (d.action, d.purge) == (action, purge)
    assert d.next_state == (LOADING[role] if action is Action.TAKE else None)


def test_release_needs_the_roles_loading_state() -> None:
    assert release(P, State.OPERATIONAL_SYS_LOADING) is State.OPERATIONAL_SYS_LOADED
    assert release(C, State.WAREHOUSE_LOADING) is State.WAREHOUSE_LOADED
    with pytest.raises(core.NotHolder):
        release(P, State.WAREHOUSE_LOADED)
    assert INITIAL is State.WAREHOUSE_LOADED


@pytest.mark.parametrize(
    "text", ["WarehouseLoaded", "warehouseloaded", "warehouse-loaded", "WAREHOUSE_LOADED"]
)
def test_parse_state_accepts_spellings(text) -> None:
    assert core.parse_state(text) is State.WAREHOUSE_LOADED


def test_parse_errors_name_the_choices() -> None:
    with pytest.raises(ValueError, match="OperationalSysLoading"):
        core.parse_state("Loaded")
    with pytest.raises(ValueError, match="producer, consumer"):
        core.parse_role("writer")


def test_backoff_grows_and_is_capped() -> None:
    bounds = [core.backoff(n, base=0.02, cap=0.5) for n in range(10)]
    assert bounds[:3] == [0.02, 0.04, 0.08]
    assert max(bounds) == 0.5 and bounds == sorted(bounds)
