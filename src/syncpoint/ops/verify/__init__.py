"""``syncpoint verify``: is each target table equal to the sources that feed it?

Both sides are split into ranges of the partition column; Spark computes a count and a
checksum of canonical row texts per range (``canon.py``, ``spark/verify.py``); differing
ranges are compared key by key, again after a round (changes in flight are not
differences). ``--repair`` writes the source's rows through the rounds' staging and apply.
Why that is safe: docs/internals.md, "verify".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from syncpoint.config import ChannelConfig
from syncpoint.errors import WorkFailed
from syncpoint.ops.snapshot import plan
from syncpoint.ops.verify.sides import TableCheck


@dataclass
class VerifyReport:
    tables: list[dict[str, Any]] = field(default_factory=list)
    repaired: int = 0

    @property
    def differences(self) -> int:
        return sum(len(t["differences"]) for t in self.tables)

    def to_dict(self) -> dict[str, Any]:
        return {"differences": self.differences, "tables": self.tables, "repaired": self.repaired}


def verify(
    cfg: ChannelConfig,
    tables: list[str] | None = None,
    *,
    repair: bool = False,
    recheck: bool = True,
    spark: Any = None,
) -> VerifyReport:
    pairs = plan.check(cfg, plan.select(cfg, tables, None), *plan.catalogs(cfg))
    groups: dict[tuple[str, str], list[plan.Pair]] = {}
    for p in pairs:
        groups.setdefault((p.integrate, _target(cfg, p)), []).append(p)
    checks = [TableCheck(cfg, ps, spark) for ps in groups.values()]
    _refuse_missing(checks)
    report = VerifyReport()
    stops: dict[int, dict[str, str]] = {}  # read once per table, after the round
    try:
        found = {id(c): c.differences(None) for c in checks}
        if recheck and any(found.values()):
            from syncpoint.ops import run as runner

            runner.run_once(cfg, spark=spark)
            for c in checks:
                if found[id(c)]:
                    since = c.positions()
                    again = c.differences(c.differing_ranges)
                    stops[id(c)] = c.stopped()
                    moving = c.in_flight(since, stops[id(c)]) if again else set()
                    found[id(c)] = [
                        d for d in again if _same(d, found[id(c)]) and _text(d.key) not in moving
                    ]
        for c in checks:
            diffs = found[id(c)]
            report.tables.append(
                {
                    "integrate": c.integrate,
                    "target": c.target_name,
                    "sources": [p.location for p in c.pairs],
                    "rows": c.rows,
                    "ranges": c.range_count,
                    "ranges_differing": len(c.differing_ranges),
                    "differences": [d.to_dict() for d in diffs],
                    "stopped": [
                        {"location": loc, "reason": why}
                        for loc, why in (stops[id(c)] if id(c) in stops else c.stopped()).items()
                    ],
                }
            )
            if repair and diffs:
                written = c.repair(diffs)
                kept = _not_repaired(c, diffs)
                report.repaired += written - len(kept)
                report.tables[-1]["not_repaired"] = kept
    finally:
        for c in checks:
            c.close()
    return report


def _not_repaired(c: TableCheck, diffs: list[Any]) -> list[dict[str, Any]]:
    """The rows a repair wrote that a look right after it still finds different, each with
    why: a repair is only counted once the target holds what the source holds."""
    still = {_text(d.key): d for d in c.differences(c.differing_ranges)}
    out = []
    for d in diffs:
        now = still.get(_text(d.key))
        if now is None:
            continue
        cols = f" in {', '.join(now.columns)}" if now.columns else ""
        out.append(
            {
                **now.to_dict(),
                "reason": f"still {now.kind}{cols} after the repair wrote the source's row: "
                "the target does not store the source's value as it is (compare the "
                "column types at both sides), or the row changed again meanwhile",
            }
        )
    return out


def _refuse_missing(checks: list[TableCheck]) -> None:
    """A target table that does not exist cannot be compared: each is named (exit 1),
    before anything is read."""
    missing = [c for c in checks if c.shape is None]
    if not missing:
        return
    for c in checks:
        c.close()
    names = "; ".join(
        f"{c.target_name} at {c.integrate} (fed by {', '.join(p.location for p in c.pairs)})"
        for c in missing
    )
    raise WorkFailed(
        f"verify cannot compare target tables that do not exist: {names}. `syncpoint "
        "snapshot` or the first round creates them (`syncpoint status` says why one stopped)"
    )


def _target(cfg: ChannelConfig, p: plan.Pair) -> str:
    from syncpoint.core.rounds import target_name

    return str(target_name(p.table, p.location)[0])


def _same(d: Any, before: list[Any]) -> bool:
    return any(b.key == d.key for b in before)


def _text(key: list[Any]) -> str:
    return json.dumps(key, separators=(",", ":"))


__all__ = ["VerifyReport", "verify"]
