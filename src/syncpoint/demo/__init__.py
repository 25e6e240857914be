"""``syncpoint demo``: the whole system on an embedded default, as a sequence of steps.

``run(workdir)`` performs the steps of ``steps.py`` in order and returns their shared state;
the CLI (``cli/demo.py``) chooses the folder and prints what happened. Each step is one
function so later steps (rounds into a target, receive stamps, a conflict, a gate handshake)
slot in without touching the others.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from syncpoint.demo import steps
from syncpoint.demo.steps import DemoState

STEPS: tuple[tuple[str, Callable[[DemoState], None]], ...] = (
    ("create the SQLite sources dec01.db and dec02.db", steps.create_sources),
    ("write the channel file syncpoint.yaml", steps.write_config),
    ("install capture at every location", steps.install),
    (
        "run the application's transactions (a ticker makes a position after each)",
        steps.write_changes,
    ),
    ("tick: make a commit-ordered position per location", steps.tick),
    ("read the change records up to the tick", steps.read_changes),
    ("replay the records and compare with the sources", steps.verify),
    ("capture status", steps.status),
)


def run(workdir: Path, on_step: Callable[[str], None] | None = None) -> DemoState:
    state = DemoState(workdir=workdir)
    for title, step in STEPS:
        if on_step is not None:
            on_step(title)
        step(state)
    return state


__all__ = ["STEPS", "DemoState", "run"]
