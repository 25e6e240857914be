"""``syncpoint demo``: the whole system on an embedded default, as a sequence of steps.

Two SQLite sources (``dec01``, ``dec02``) with a shop's related tables, one SQLite target
(``cen``), Spark local: capture is installed, the rows already there are loaded by
``snapshot``, live writers change both sources while
``run --once`` runs again and again, a last run follows; then ``status`` and the receive
stamps, ``purge``, a gate handshake (a producer turn and ``load_transport``), and checks of
the target against the sources; ``verify`` finds cen equal, finds a difference planted
there, and ``--repair`` removes it. Last, two more SQLite sites replicate both ways and
resolve conflicts (``bidi.py``).

``run(workdir, ...)`` performs ``STEPS`` in order, one function each, and returns their
shared ``DemoState`` (results per step, checks); the CLI (``cli/demo.py``) chooses the
folder and shows what happens, live, through the state's listener. A step that fails ends
the demo: its error becomes a failed check, and the later steps, which build on it, are
not run.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from pathlib import Path

from syncpoint.demo import bidi, checks, handshake, load, rounds, setup, status
from syncpoint.demo.state import DemoState, Listener
from syncpoint.errors import SyncpointError

STEPS: tuple[tuple[str, Callable[[DemoState], None]], ...] = (
    ("create the SQLite databases: sources dec01, dec02 and target cen", setup.create_databases),
    ("write the channel file syncpoint.yaml", setup.write_config),
    ("install capture at dec01 and dec02", setup.install),
    ("start Spark", rounds.start_spark),
    ("snapshot: load the rows the sources already held", load.snapshot),
    ("opening round", rounds.opening_round),
    ("live writers at both sources while rounds run", rounds.live_rounds),
    ("the writers stopped: one more run --once", rounds.final_round),
    ("status and receive stamps", status.status),
    ("purge the change records cen has applied", status.purge),
    ("gate handshake: a batch producer and syncpoint take turns", handshake.handshake),
    ("check cen against the sources", checks.run_checks),
    ("verify cen, plant a difference, verify --repair", load.verify),
    (
        "two sites both ways: conflicts resolved by column group, a delete and a re-insert",
        bidi.bidirectional,
    ),
)


def run(
    workdir: Path,
    *,
    seconds: float = 5.0,
    spark_master: str = "local[*]",
    listener: Listener | None = None,
) -> DemoState:
    state = DemoState(
        workdir=workdir, seconds=seconds, spark_master=spark_master, listener=listener
    )
    timings: dict[str, float] = {}
    state.results["steps"] = timings
    try:
        for n, (title, step) in enumerate(STEPS, 1):
            state.event("step", n=n, title=title)
            t0 = time.monotonic()
            try:
                step(state)
            except Exception as exc:  # noqa: BLE001 - the demo reports it as a failed step
                detail = (
                    str(exc) if isinstance(exc, SyncpointError) else f"{type(exc).__name__}: {exc}"
                )
                state.results["error"] = {"step": title, "message": detail}
                if not isinstance(exc, SyncpointError):
                    state.results["error"]["traceback"] = traceback.format_exc()
                state.check(f"step {n} ({title}) completed", False, detail)
                break
            finally:
                timings[step.__name__] = round(time.monotonic() - t0, 2)
    finally:
        _stop_spark()
    state.results["seconds"] = state.elapsed()
    return state


def _stop_spark() -> None:
    import sys

    if "syncpoint.spark.session" in sys.modules:
        sys.modules["syncpoint.spark.session"].stop_session()


__all__ = ["STEPS", "DemoState", "run"]
