"""Named failpoints for crash tests (docs/guarantees.md §3).

``SYNCPOINT_FAILPOINT=after_stage`` makes the process kill itself with SIGKILL the first
time it reaches ``hit("after_stage")``; ``name@N`` fires on the Nth time. Several names may
be given, comma-separated. Every step that can be named is listed in ``STEPS`` so the crash
tests can sweep them all.
"""

from __future__ import annotations

import os
import signal
from collections import Counter

ENV = "SYNCPOINT_FAILPOINT"

STEPS: dict[str, str] = {
    "after_tick": "sync points sampled and stored, nothing read yet",
    "after_read": "change records read, nothing staged",
    "round_after_task": "the direct path into MariaDB: a copy task's operations loaded into "
    "the staging and committed, the round's other tasks and its netting not done (in the "
    "process that runs the task: the driver, for a local master)",
    "after_stage": "staging tables written at the target, apply transaction not begun",
    "direct_typed_task": "a direct round's copy task (another vendor's records into a "
    "PostgreSQL target's typed staging): its records loaded and parsed, COMMIT not sent",
    "before_commit": "apply transaction done, COMMIT not sent",
    "after_commit": "apply transaction committed, nothing else done",
    "after_stamps": "receive stamps written",
    "snapshot_after_stage": "a snapshot chunk staged at the target, not applied",
    "snapshot_before_commit": "a snapshot chunk applied and recorded, COMMIT not sent",
    "snapshot_after_chunk": "a snapshot chunk committed",
    "snapshot_after_handover": "a snapshot handed over (position set to its tick)",
    "gate_after_take": "a gate was taken (Loading state committed), command not started",
    "gate_before_release": "command finished, Loaded state not written",
    "log_before_commit": "log capture: decoded records written to the queue, COMMIT not sent",
    "log_before_feedback": "log capture (a follower's stream): the queue committed, the slot "
    "not yet told (no feedback sent)",
    "log_reader_switch": "log capture (a follower's): the last tick's reader done, the other "
    "one (the SQL functions or the stream) not yet started",
}

_hits: Counter[str] = Counter()


def _armed() -> dict[str, int]:
    spec = os.environ.get(ENV, "").strip()
    out: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, _, nth = part.partition("@")
        out[name] = int(nth) if nth else 1
    return out


def hit(name: str) -> None:
    if name not in STEPS:
        raise KeyError(f"unknown failpoint {name!r}")
    armed = _armed()
    if name not in armed:
        return
    _hits[name] += 1
    if _hits[name] == armed[name]:
        os.kill(os.getpid(), signal.SIGKILL)
