"""Conflict rules between sites (CDR): what a site does with an incoming change to a row that
it may have changed itself. Plain Python, the reference the vendors' apply SQL follows (as
``core/netting.py`` is for Spark's netting), and the checks on a table's CDR settings.

Words:

- A **version** of a column group is ``(ts, origin)``: the time of the group's last change
  and the location where that change was made, both carried unchanged from site to site.
  Versions are totally ordered by ``(ts, origin)``, so a tie on the time is broken by the
  location name, the same way at every site.
- A row's **key version** ``kv`` counts the incarnations of its key: an insert of a key takes
  the key version of the key's tombstone plus one (1 when there is none).
- A **tombstone** is a deleted key with its key version and the delete's version; where the
  site deleted a row of that incarnation itself (its application's delete, or another
  site's delete applied to its row), also that row: its values and group versions.
- An incoming change is the net of the changes of one key made at one site in one round
  (its *window*). It carries, per group, its version (``after``); the versions the
  window's changes of the group were made from (``before``: none for an insert); and the
  versions they made (``made``). A group's version may come from elsewhere: a change of
  another site applied at the origin site during the window; then the window did not make
  it, and the change leaves that group alone.

A group of an incoming change **conflicts** when the change made the group's version and
the local row's version of that group is not one the change was made from. The rule then
decides: ``latest`` keeps the greater version, ``earliest`` the smaller. A group without a
conflict takes the incoming value when the change made it.

| incoming | local state | decision |
|---|---|---|
| insert/update kv | no row, no tombstone | apply (insert) |
| insert/update kv | row of kv | per group: apply, or resolve by the rule on conflict |
| insert/update kv | row of kv, group version made here | that group left alone, no conflict |
| insert/update kv | row of an older kv | apply all groups: a newer incarnation |
| insert/update kv | row of a newer kv | ignore: the change is of an older incarnation (conflict) |
| insert/update kv | tombstone of an older kv | apply (insert): a new incarnation, always |
| insert/update kv | tombstone of kv | conflict: rule on the change's newest group vs the delete |
| insert/update kv | tombstone of kv with its row | per group vs the deleted row (see below) |
| insert/update kv | tombstone of a newer kv | ignore (conflict) |
| delete kv | row of kv, unchanged since | take what its window made, delete, tombstone |
| delete kv | row of kv, changed since | conflict: rule on the delete vs the row's newest group |
| delete kv | row of kv, changed since, delete wins | per group: what its window made; delete |
| delete kv | row of kv, changed since, row wins | per group: what its window made; tombstone |
| delete kv | row of a newer kv | ignore: of an older incarnation (conflict); tombstone |
| delete kv | row of an older kv | row takes kv, delete, tombstone (also the older kv's) |
| delete kv | no row, tombstone of kv with its row | put back, take what its window made, delete |
| delete kv | no row | tombstone (a later update of kv meets it) |

Every delete leaves its tombstone at every site it reaches, whatever it decided there: the
site that made it holds one, and ``purge`` takes a tombstone once every site holds it or
never gets that delete (it ended, not passed on, at a site on the way; or the site holds a
newer incarnation), and at once where the row of that incarnation is back.

Two deletes of one incarnation keep the tombstone version the rule prefers, so every site
resolves a late change of that incarnation against the same one.

In a ring a site passes on what it applied, as its own capture records it: so a delete that
wins there first takes into the row the groups its window made (the row the site deletes,
and captures, is then the one the deleting site deleted), and a delete of a newer
incarnation first gives the older row its key version (what the site passes on is that
incarnation's delete); a delete that finds no row of its incarnation is recorded for capture
by the apply (deleting nothing, it fires no capture trigger), unless the site deleted that
row itself: then the tombstone's row is put back and the delete takes it away as a row,
with the groups its window made, so what the site passes on is its own deleted row with
those (a reader that gets the site's delete and this one in one round nets them into the
later one, which must not lose the site's groups); and a change that loses to the delete of
its incarnation there, its groups merged into the deleted row, is passed on as that row
put back, taking them, and deleted again (a site after it whose row won against the delete
has no other way to it). A row passed on can hold
groups of several sites; the site whose version of a group comes back to it leaves the
group alone: it had it first, and what it holds now it has decided since.

A delete that loses is no delete anywhere. The site that deleted keeps the row it deleted
in the tombstone, and decides every change of that incarnation against it group by group,
like against a row: a change that loses to the delete has its groups merged into the
deleted row all the same (its own site keeps them: the row there stays), and the change
that beats the delete makes the merged row again. The site that kept its row takes the
groups the delete's window changed before it deleted (a delete's ``after`` holds the
deleted row's versions). Both end with the same row whether the deleted row's last changes
left the deleting site before the delete or with it, and whichever of the other site's
changes came before the one that beat the delete.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

RESOLUTIONS = ("latest", "earliest")
DEFAULT_GROUP = "default"


@dataclass(frozen=True, order=True)
class Version:
    ts: str  # ISO-8601 UTC text with microseconds: ordered as text
    origin: str


@dataclass(frozen=True)
class Row:
    """A site's current row of a key: its key version and each group's version."""

    kv: int
    groups: Mapping[str, Version]

    def newest(self) -> Version:
        return max(self.groups.values())


@dataclass(frozen=True)
class Tombstone:
    kv: int
    version: Version
    groups: Mapping[str, Version] | None = None  # the deleted row's, where this site had it


@dataclass(frozen=True)
class Change:
    """An incoming insert/update (``delete`` False) or delete of one key. ``before``: per
    group, the version (or the versions) the window's changes were made from; ``made``:
    per group, the versions they made (None: every group whose version is not in
    ``before`` was made by the change)."""

    kv: int
    after: Mapping[str, Version] = field(default_factory=dict)
    before: Mapping[str, Version | frozenset[Version]] = field(default_factory=dict)
    delete: bool = False
    version: Version | None = None  # a delete's own version
    made: Mapping[str, frozenset[Version]] | None = None

    def befores(self, group: str) -> frozenset[Version]:
        b = self.before.get(group)
        if b is None:
            return frozenset()
        return b if isinstance(b, frozenset) else frozenset({b})

    def touched(self, group: str) -> bool:
        """Whether the change made the group's version (rather than carrying one it found)."""
        if self.made is not None:
            return self.after[group] in self.made.get(group, frozenset())
        return self.after[group] not in self.befores(group)

    def newest(self) -> Version:
        if self.delete:
            assert self.version is not None
            return self.version
        return max(self.after.values())


@dataclass(frozen=True)
class Decision:
    """What the site does: the groups to take from the change (all: the row is (re)created;
    with ``delete``, into the row deleted, which its tombstone keeps), delete the row,
    record a tombstone, and the conflicts to record (group, winner)."""

    take: frozenset[str] = frozenset()
    insert: bool = False
    delete: bool = False
    tombstone: bool = False
    conflicts: tuple[tuple[str, str], ...] = ()  # (group, "local" | "remote")


def wins(rule: str, remote: Version, local: Version) -> bool:
    """Whether the remote version wins over the local one under ``rule``."""
    if rule not in RESOLUTIONS:
        raise ValueError(f"resolution {rule!r} is not one of {', '.join(RESOLUTIONS)}")
    return remote > local if rule == "latest" else remote < local


def _winner(remote_wins: bool) -> str:
    return "remote" if remote_wins else "local"


def decide(rule: str, change: Change, row: Row | None, tomb: Tombstone | None) -> Decision:
    """The decision for one incoming change (see the table in the module docstring)."""
    if change.delete:
        return _decide_delete(rule, change, row, tomb)
    everything = frozenset(change.after)
    if row is None:
        if tomb is None or tomb.kv < change.kv:
            return Decision(take=everything, insert=True)
        if tomb.kv > change.kv:
            return Decision(conflicts=(("*", "local"),))
        keep = wins(rule, change.newest(), tomb.version)
        if tomb.groups is None:
            return Decision(
                take=everything if keep else frozenset(),
                insert=keep,
                conflicts=(("*", _winner(keep)),),
            )
        # decided against the deleted row as against a row: made again if the change beats
        # the delete; else the groups taken are merged into the deleted row (the change's own
        # site keeps its row, with them; a later change that beats the delete brings it back)
        take, conflicts = _per_group(rule, change, tomb.groups)
        if not keep:
            return Decision(take=take, conflicts=(("*", "local"),))
        return Decision(take=take, insert=True, conflicts=(("*", "remote"), *conflicts))
    if change.kv > row.kv:
        return Decision(take=everything)
    if change.kv < row.kv:
        return Decision(conflicts=(("*", "local"),))
    take, conflicts = _per_group(rule, change, row.groups)
    return Decision(take=take, conflicts=conflicts)


def _per_group(
    rule: str, change: Change, local: Mapping[str, Version]
) -> tuple[frozenset[str], tuple[tuple[str, str], ...]]:
    """The groups a change takes over a local row of its incarnation (and the conflicts)."""
    take: set[str] = set()
    conflicts: list[tuple[str, str]] = []
    for g, theirs in change.after.items():
        mine = local.get(g)
        if mine == theirs:
            continue  # the same change, arrived again or by another way
        if not change.touched(g):
            continue  # the change left this group alone; the local version stands
        if mine is None or mine in change.befores(g):
            take.add(g)
            continue
        w = wins(rule, theirs, mine)
        conflicts.append((g, _winner(w)))
        if w:
            take.add(g)
    return frozenset(take), tuple(conflicts)


def _decide_delete(rule: str, change: Change, row: Row | None, tomb: Tombstone | None) -> Decision:
    # the groups the delete's window changed before it deleted are taken as an update's
    # (``take``): into the row it loses to, or into the row it deletes (its tombstone keeps
    # that row, and in a ring its capture passes it on); a group changed on both sides is
    # a conflict of that group, whichever wins
    if row is None:
        if tomb is not None and tomb.kv == change.kv and tomb.groups is not None:
            # this site deleted the row of that incarnation already: the row is put back and
            # deleted as a row, so that the row this site keeps and passes on holds its own
            # groups and what the delete's window made (two deletes of one row: no "*")
            take, conflicts = _per_group(rule, change, tomb.groups)
            return Decision(take=take, delete=True, tombstone=True, conflicts=conflicts)
        return Decision(tombstone=True)
    if row.kv > change.kv:
        return Decision(tombstone=True, conflicts=(("*", "local"),))
    if row.kv < change.kv:
        return Decision(delete=True, tombstone=True)
    take, conflicts = _per_group(rule, change, row.groups)
    changed = any(v not in change.befores(g) for g, v in row.groups.items())
    if not changed:
        return Decision(take=take, delete=True, tombstone=True)
    w = wins(rule, change.newest(), row.newest())
    return Decision(
        take=take,
        delete=w,
        tombstone=True,
        conflicts=(("*", _winner(w)), *conflicts),
    )


def check_groups(
    table: str,
    groups: Mapping[str, Sequence[str]],
    columns: Iterable[str] | None,
    key: Iterable[str] | None,
) -> list[str]:
    """Problems with a table's column groups: a group without columns, a column in two
    groups, a key column in a group, a column the table does not have (when ``columns`` is
    known), a group named like the default group."""
    problems: list[str] = []
    have = set(columns) if columns is not None else None
    keys = set(key or ())
    seen: dict[str, str] = {}
    for g, cols in groups.items():
        if g == DEFAULT_GROUP:
            problems.append(f"{table}: column group {g!r} is the name of the default group")
        if not cols:
            problems.append(f"{table}: column group {g!r} has no columns")
        for c in cols:
            if c in seen:
                problems.append(
                    f"{table}: column {c!r} is in two column groups ({seen[c]!r} and {g!r})"
                )
            seen[c] = g
            if c in keys:
                problems.append(f"{table}: key column {c!r} cannot be in column group {g!r}")
            if have is not None and c not in have:
                problems.append(f"{table}: column group {g!r} names a missing column {c!r}")
    return problems


def group_of(groups: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Column -> group name for the grouped columns (the others are in the default group)."""
    return {c: g for g, cols in groups.items() for c in cols}


def bookkeeping_prefix(prefix: str) -> str:
    """Columns whose names start with this are the sites' bookkeeping (key version and
    versions), added and removed by ``cdr``: never the application's schema."""
    return f"{prefix}cdr_"


def strip_bookkeeping(shape: str | None, prefix: str) -> str | None:
    """A DDL record's shape (``{"columns": [...]}``) without the bookkeeping columns, so
    that ``cdr add`` and ``cdr remove`` at the sites are no schema change to replicate."""
    if not shape:
        return shape
    try:
        data = json.loads(shape)
    except ValueError:
        return shape
    if not isinstance(data, dict) or not isinstance(data.get("columns"), list):
        return shape
    mark = bookkeeping_prefix(prefix)
    cols = [c for c in data["columns"] if not str(c.get("name", "")).startswith(mark)]
    if len(cols) == len(data["columns"]):
        return shape
    return json.dumps({**data, "columns": cols})
