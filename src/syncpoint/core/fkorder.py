"""Foreign-key order of the target tables of a sync group (the consistent cut,
docs/guarantees.md §2).

The apply transaction of a round runs, per table:

1. upserts, parents before children (a new child row finds its new parent);
2. deletes, children before parents (a parent is deleted after the rows that referred
   to it are gone, or after their upsert moved them to another parent in step 1).

Rows of one table are upserted and deleted in repl_key order, so a self-reference
(a row that refers to a row of the same table inserted before it) also holds. Parents
come from the target catalog's foreign keys among the group's tables; where the catalog
has none, the order of the group in the configuration stands. A cycle of foreign keys
keeps the configured order for the tables in it (the tables below a cycle still come after
it): a vendor with deferrable constraints then
needs them ``DEFERRABLE`` (the apply transaction defers what can be deferred), the others
cannot apply such a cycle in one statement order and fail closed with the database's error.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def parents_first(tables: Sequence[str], edges: Iterable[tuple[str, str]]) -> list[str]:
    """``tables`` ordered so that each comes after its parents; ``edges`` are
    ``(child, parent)`` pairs. Stable: ties keep the given order; cycles keep it too."""
    index = {t: i for i, t in enumerate(tables)}
    parents: dict[str, set[str]] = {t: set() for t in tables}
    for child, parent in edges:
        if child in index and parent in index and child != parent:
            parents[child].add(parent)
    done: list[str] = []
    placed: set[str] = set()
    remaining = list(tables)
    while remaining:
        ready = [t for t in remaining if parents[t] <= placed]
        if not ready:
            # a cycle: the first, in configured order, of the tables whose parents left are
            # all in a cycle with it (not a table that only hangs below a cycle)
            ready = [t for t in remaining if _in_cycle(t, parents[t] - placed, parents)]
            ready = ready[:1] or [remaining[0]]
        nxt = min(ready, key=index.__getitem__)
        done.append(nxt)
        placed.add(nxt)
        remaining.remove(nxt)
    return done


def _in_cycle(t: str, left: set[str], parents: dict[str, set[str]]) -> bool:
    """Whether every table of ``left`` has ``t`` among its ancestors."""
    for p in left:
        seen: set[str] = set()
        todo = [p]
        while todo:
            x = todo.pop()
            if x in seen:
                continue
            seen.add(x)
            todo += parents[x]
        if t not in seen:
            return False
    return True
